//! `exa finops <domain> estimate`: price the work, say where every number came from.

use crate::error::Error;
use crate::model::{Domain, Estimate, Request};
use crate::pricing;
use crate::settings::Settings;

/// The estimate of `req` in `domain`.
pub fn run(settings: &Settings, domain: Domain, req: &Request) -> Result<Estimate, Error> {
    pricing::estimate(settings, domain, req)
}
