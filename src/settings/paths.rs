//! Where exa keeps things: the config directory, the records database and the cache.
//!
//! One place decides these, from the platform's conventions (XDG on Linux).

use std::path::PathBuf;

fn dirs() -> Option<directories::ProjectDirs> {
    directories::ProjectDirs::from("", "", "examlops")
}

/// The directory of `finops.yaml`, `providers/` and `plugins/`.
pub fn config_dir() -> Option<PathBuf> {
    dirs().map(|d| d.config_dir().to_path_buf())
}

/// The records database when neither `--db` nor `EXAMLOPS_DB` names one.
pub fn default_db() -> Option<PathBuf> {
    dirs().map(|d| d.data_dir().join("records.sqlite3"))
}

/// The directory for cached grid-intensity readings.
pub fn grid_cache_dir() -> Option<PathBuf> {
    dirs().map(|d| d.cache_dir().join("grid"))
}
