//! Live grid carbon intensity for `grid-live`.

use crate::commands::estimate::Coef;
use crate::provider::Source;
use crate::settings::{env, Settings};

/// Fills the live coefficient `name` when no explicit value was given; returns notes for the answer.
pub fn apply(settings: &Settings, name: &str, coef: &mut Coef) -> Vec<String> {
    if matches!(coef.source, Source::Flag | Source::Config) {
        return vec![format!("{name} was given explicitly ({}), so the live grid signal is not used", coef.source)];
    }
    let url = env("EXAMLOPS_GRID_INTENSITY_URL").or_else(|| settings.config.finops.carbon.grid.url.clone());
    match url {
        None => vec![format!("no grid-intensity endpoint is configured (EXAMLOPS_GRID_INTENSITY_URL); {name} is the static default")],
        Some(_) => vec![format!("the live grid-intensity fetch is not available in this build; {name} is the static default")],
    }
}
