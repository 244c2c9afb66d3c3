//! The ranges a scheduler's job record must fall in, checked as it is read:
//! a value outside them is that job's bad line (named, and skipped only
//! with `--skip-bad`), never a number stored that no job could have.

use crate::model::{BadLine, Job};

/// A day: how far ahead of this clock a scheduler's may run.
pub const SKEW_S: i64 = 86_400;
/// A century of seconds: no job ran longer.
const MAX_ELAPSED_S: f64 = 3.2e9;
/// GPUs one job can hold.
const MAX_GPUS: f64 = 1e7;
/// Core-hours one job can use (ten million cores for a century).
const MAX_CPU_HOURS: f64 = 1e13;
/// Joules one job's nodes can draw (a gigawatt for a century).
const MAX_ENERGY_J: f64 = 4e18;

/// The job as read, or its bad line: times between 1970 and now (plus a day of clock skew), an end
/// no earlier than its start, and every count finite, non-negative and within what a job could hold.
pub fn checked(job: Job) -> Result<Job, BadLine> {
    let bad = |field: &str, why: String| BadLine { line: job.line, field: field.into(), why };
    let latest = crate::time::now_unix().saturating_add(SKEW_S);
    for (field, t) in [("start", job.start), ("end", job.end)] {
        match t {
            Some(t) if t <= 0 => return Err(bad(field, format!("{t} is not a time after 1970"))),
            Some(t) if t > latest => return Err(bad(field, format!("{} is in the future", crate::time::iso8601(t)))),
            _ => {}
        }
    }
    if let (Some(s), Some(e)) = (job.start, job.end) {
        if e < s {
            return Err(bad("end", format!("{} is before the start, {}", crate::time::iso8601(e), crate::time::iso8601(s))));
        }
    }
    let ranged = |field: &str, v: f64, max: f64| {
        if v.is_finite() && (0.0..=max).contains(&v) {
            Ok(())
        } else {
            Err(bad(field, format!("{v} is not a number from 0 to {max:e}")))
        }
    };
    ranged("elapsed", job.elapsed_s, MAX_ELAPSED_S)?;
    ranged("gpus", job.gpus, MAX_GPUS)?;
    ranged("cpu_hours", job.cpu_hours, MAX_CPU_HOURS)?;
    if let Some(e) = job.energy_j {
        ranged("energy", e, MAX_ENERGY_J)?;
    }
    Ok(job)
}
