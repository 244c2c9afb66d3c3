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
pub mod regions;
pub mod report;
pub mod show;
pub mod sync;
pub mod telemetry;

use crate::error::Error;
use crate::settings::Settings;
use crate::sources::cpu;

/// The CPU source settings name; a source named by flag, environment or config that cannot be read
/// refuses the run before it starts; under `auto`, why none is read (said once on stderr).
pub(crate) fn cpu_source(settings: &Settings) -> Result<Result<Box<dyn cpu::CpuSource>, String>, Error> {
    let choice = &settings.cpu.source;
    match cpu::open(choice.value, &settings.cpu.root.value) {
        Ok(s) => Ok(Ok(s)),
        Err(e) if choice.value == cpu::CpuChoice::None => Ok(Err(e.to_string())),
        Err(e) if choice.source != crate::model::Source::Default => {
            Err(Error::Failed(format!("cannot read CPU energy ({} from {}): {e}", choice.value.as_str(), choice.source)))
        }
        Err(e) => {
            if matches!(e, cpu::CpuError::NoAccess(_)) {
                settings.warn(format!("CPU energy is not read: {e}"));
            }
            Ok(Err(e.to_string()))
        }
    }
}
