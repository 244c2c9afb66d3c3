//! Filling grid-live's coefficient: a live (or cached) reading, else the
//! static default with one warning, never silently.

use crate::model::{Coef, GridInfo, Source};
use crate::settings::{paths, Settings};
use crate::sources::grid::{read_intensity, Endpoint};

/// Fills the live coefficient `name` when no explicit value was given, and says where it came from.
pub fn apply(settings: &Settings, name: &str, coef: &mut Coef) -> GridInfo {
    if matches!(coef.source, Source::Flag | Source::Config) {
        return GridInfo {
            origin: "explicit",
            value: coef.value,
            url: None,
            zone: None,
            reading_time: None,
            age_s: None,
            detail: Some(format!("{name} was given explicitly ({}); no request was made", coef.source)),
            history: None,
        };
    }
    let default = |why: String, ep: Option<&Endpoint>| {
        let at = ep.map(|e| format!("{}: ", e.shown_url())).unwrap_or_default();
        let kept = if coef.source == Source::Region { "the grid region's" } else { "the static default" };
        settings.warn(format!("grid-live: {at}{why}; using {kept} {name} = {}", coef.value));
        GridInfo {
            origin: "default",
            value: coef.value,
            url: ep.map(Endpoint::shown_url),
            zone: ep.and_then(|e| e.zone.clone()),
            reading_time: None,
            age_s: None,
            detail: Some(why),
            history: None,
        }
    };
    let ep = match settings.grid_endpoint() {
        Ok(Some(ep)) => ep,
        Ok(None) => return default("no grid-intensity endpoint is configured (EXAMLOPS_GRID_INTENSITY_URL)".into(), None),
        Err(why) => return default(why, None),
    };
    let cache_dir = paths::grid_cache_dir();
    match read_intensity(ep, cache_dir.as_deref()) {
        Ok(f) => {
            coef.value = f.reading.value;
            coef.source = Source::Live;
            GridInfo {
                origin: if f.age_s.is_some() { "cache" } else { "live" },
                value: f.reading.value,
                url: Some(ep.shown_url()),
                zone: ep.zone.clone(),
                reading_time: f.reading.time,
                age_s: Some(f.age_s.unwrap_or(0)),
                detail: f.reading.detail,
                history: None,
            }
        }
        Err(why) => default(why, Some(ep)),
    }
}
