//! One function per verb: `fn(&Settings, ...) -> Result<Report>`. No printing here.

pub mod config;
pub mod db;
pub mod estimate;
pub mod focus;
pub mod gpu;
pub mod import;
pub mod measure;
pub mod metrics;
pub mod providers;
pub mod record;
pub mod report;
pub mod show;
pub mod sync;
pub mod telemetry;
