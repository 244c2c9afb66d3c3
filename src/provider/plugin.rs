//! Plugins: external programs that speak a small JSON protocol.
//!
//! A plugin is an executable named `exa-carbon-<name>` or `exa-cost-<name>`.
//! exa runs it with one argument, the call, and a JSON request on stdin:
//!
//! - `metadata`: answers `{"protocol": 1, "methodology", "uncertainty",
//!   "outputs", "source", "inputs", "coefficients": {NAME: default}}`.
//! - `compute`: reads `{"protocol": 1, "domain", "inputs", "coefficients",
//!   "config"}` and answers `{"outputs": {NAME: number}}`.
//!
//! A plugin that exits non-zero, answers anything else, returns a
//! non-finite number or outlasts its timeout is broken. Its stderr is the
//! user's stderr. This module never interprets what a plugin computes.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use crate::model::IndexMap;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::sources::child::{self, RunError};

use super::{Coefficient, ComputeError, Domain, Meta, Provider, ProviderKind, Values, INPUTS};

/// The protocol version exa speaks.
pub const PROTOCOL: u64 = 1;
/// The most a plugin may print on stdout.
const MAX_OUTPUT: u64 = 1 << 20;

/// A provider that is an external program speaking JSON over stdin and stdout.
pub struct Plugin {
    meta: Meta,
    program: PathBuf,
    timeout: Duration,
    config: Value,
}

#[derive(Debug, Deserialize)]
struct MetaReply {
    protocol: u64,
    methodology: String,
    uncertainty: Option<f64>,
    outputs: Vec<String>,
    source: Option<String>,
    #[serde(default)]
    inputs: Vec<String>,
    #[serde(default)]
    coefficients: IndexMap<String, f64>,
}

impl Plugin {
    /// Runs the plugin's `metadata` call; any failure is the reason it is broken.
    pub fn load(name: &str, domain: Domain, program: &Path, timeout: Duration, config: Value) -> Result<Self, String> {
        let request = json!({"protocol": PROTOCOL, "call": "metadata", "domain": domain});
        let reply = run(program, "metadata", &request, timeout)?;
        let m: MetaReply = serde_json::from_value(reply).map_err(|e| format!("its metadata is not the promised JSON: {e}"))?;
        if m.protocol != PROTOCOL {
            return Err(format!("it speaks protocol {}, exa speaks {PROTOCOL}", m.protocol));
        }
        if let Some(u) = m.uncertainty {
            if !u.is_finite() || !(0.0..=10.0).contains(&u) {
                return Err(format!("its uncertainty {u} is not a fraction between 0 and 10"));
            }
        }
        for want in domain.outputs() {
            if !m.outputs.iter().any(|o| o == want) {
                return Err(format!(
                    "a {domain} provider must produce {}; its metadata lists {:?}",
                    domain.outputs().join(" and "),
                    m.outputs
                ));
            }
        }
        if let Some(bad) = m.inputs.iter().find(|i| !INPUTS.contains(&i.as_str())) {
            return Err(format!("it accepts an input exa does not know: '{bad}' (known: {})", INPUTS.join(", ")));
        }
        let mut coefficients = Vec::new();
        for (name, default) in m.coefficients {
            if !default.is_finite() || default < 0.0 {
                return Err(format!("its coefficient '{name}' has default {default}, not a finite number >= 0"));
            }
            coefficients.push(Coefficient { name, default, env: None, unit: None, description: None });
        }
        let bytes = std::fs::read(program).unwrap_or_default();
        let meta = Meta {
            name: name.to_string(),
            kind: ProviderKind::Plugin,
            domain,
            uncertainty: m.uncertainty,
            methodology: m.methodology,
            source: m.source,
            accepts: if m.inputs.is_empty() { vec!["gpu_hours".to_string()] } else { m.inputs },
            coefficients,
            outputs: m.outputs,
            formulas: Vec::new(),
            live: None,
            origin: Some(program.to_path_buf()),
            digest: super::digest(&[&String::from_utf8_lossy(&bytes)]),
        };
        Ok(Plugin { meta, program: program.to_path_buf(), timeout, config })
    }
}

impl Provider for Plugin {
    fn meta(&self) -> &Meta {
        &self.meta
    }

    fn compute(&self, values: &Values) -> Result<IndexMap<String, f64>, ComputeError> {
        let request = json!({
            "protocol": PROTOCOL,
            "call": "compute",
            "domain": self.meta.domain,
            "inputs": values.inputs,
            "coefficients": values.coefficients,
            "config": self.config,
        });
        let broken = |why: String| ComputeError::Broken(format!("plugin '{}' ({}): {why}", self.meta.name, self.program.display()));
        let reply = run(&self.program, "compute", &request, self.timeout).map_err(broken)?;
        let outputs =
            reply.get("outputs").and_then(Value::as_object).ok_or_else(|| broken("its answer has no \"outputs\" object".into()))?;
        let mut out = IndexMap::default();
        for name in &self.meta.outputs {
            let v = outputs.get(name).ok_or_else(|| broken(format!("its answer has no output '{name}'")))?;
            let n = v.as_f64().filter(|n| n.is_finite()).ok_or_else(|| broken(format!("output '{name}' is {v}, not a finite number")))?;
            out.insert(name.clone(), n);
        }
        Ok(out)
    }
}

/// Runs `program call` with `request` on stdin; the parsed JSON on stdout, or why not.
fn run(program: &Path, call: &str, request: &Value, timeout: Duration) -> Result<Value, String> {
    let body = request.to_string();
    let done = child::run(program, &[call], Some(body.as_bytes()), Stdio::inherit(), timeout).map_err(|e| match e {
        RunError::Timeout(d) => format!("it did not answer '{call}' within {:.1} s and was killed", d.as_secs_f64()),
        other => other.to_string(),
    })?;
    if !done.status.success() {
        return Err(format!("'{call}' exited with {}", done.status));
    }
    if done.truncated || done.stdout.len() as u64 > MAX_OUTPUT {
        return Err(format!("'{call}' printed more than {MAX_OUTPUT} bytes"));
    }
    let text = String::from_utf8_lossy(&done.stdout);
    serde_json::from_str(text.trim()).map_err(|e| {
        let shown: String = text.trim().chars().take(80).collect();
        format!("'{call}' did not print the promised JSON ({e}): {shown:?}")
    })
}
