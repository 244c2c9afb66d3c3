//! The JSON contract as a consumer decodes it: these structs are the test's own.

use std::collections::HashMap;

use serde::Deserialize;

#[derive(Debug, Deserialize)]
pub struct Estimate {
    pub domain: String,
    pub provider: Provider,
    pub provider_source: String,
    pub requested_provider: Option<String>,
    pub fallback_reason: Option<String>,
    pub inputs: HashMap<String, f64>,
    pub coefficients: HashMap<String, Coef>,
    pub outputs: HashMap<String, f64>,
    pub range: Option<HashMap<String, [f64; 2]>>,
    pub notes: Vec<String>,
}

#[derive(Debug, Deserialize)]
pub struct Provider {
    pub name: String,
    pub kind: String,
    pub uncertainty: Option<f64>,
    pub methodology: String,
}

#[derive(Debug, Deserialize)]
pub struct Coef {
    pub value: f64,
    pub source: String,
}

#[derive(Debug, Deserialize)]
pub struct Providers {
    pub domain: String,
    pub default: String,
    pub providers: Vec<Row>,
}

#[derive(Debug, Deserialize)]
pub struct Row {
    pub name: String,
    pub kind: String,
    pub uncertainty: Option<f64>,
    pub status: String,
    pub reason: Option<String>,
    pub default: bool,
}

#[derive(Debug, Deserialize)]
pub struct ErrorBody {
    pub error: ErrorInner,
}

#[derive(Debug, Deserialize)]
pub struct ErrorInner {
    pub kind: String,
    pub message: String,
}
