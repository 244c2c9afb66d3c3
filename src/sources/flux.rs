//! Flux's job records: `flux jobs -a -A --json` and each job's resource set
//! R (`flux job info ID R`), run here, or a saved file of the same shapes.
//!
//! A job's cores and GPUs are counted from its R (RFC 20: `R_lite` entries,
//! each a set of ranks with `core` and `gpu` children as idsets like `0-3`).

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use crate::model::{BadLine, Job, Jobs};

/// Flux's job states (RFC 21), as bits.
/// The most ids one range of an idset may hold.
const MAX_IDS: u64 = 1 << 20;

const INACTIVE: u64 = 64;
const RUNNING: u64 = 16 | 32;

/// Runs `flux jobs` for every user's jobs active since `since` (seconds since the epoch).
pub fn jobs(program: &Path, since: Option<i64>, timeout: Duration) -> Result<Vec<u8>, String> {
    // flux reads a date and time in the local time zone.
    let since = since.map(|s| format!("--since={}", crate::time::local_iso(s).replace('T', " ")));
    let mut args = vec!["jobs", "-a", "-A", "--json", "--count=0"];
    if let Some(s) = &since {
        args.push(s);
    }
    super::child::output(program, &args, timeout)
}

/// Runs `flux job info ID R`: the job's resource set.
pub fn resources(program: &Path, id: &str, timeout: Duration) -> Result<Value, String> {
    let out = super::child::output(program, &["job", "info", id, "R"], timeout)?;
    serde_json::from_slice(&out).map_err(|e| format!("`flux job info {id} R` is not JSON: {e}"))
}

/// Each job object with where it was (its line, or its place in a list), or why it is not JSON.
pub type Items = Vec<(usize, Result<Value, String>)>;

/// The job objects of `flux jobs --json` output (`{"jobs": [...]}`), a JSON list, or one object per line.
pub fn parse(text: &str) -> Result<Items, String> {
    let trimmed = text.trim_start();
    if trimmed.starts_with('[') || (trimmed.starts_with('{') && trimmed.trim_end().ends_with('}') && !trimmed.contains("}\n{")) {
        if let Ok(v) = serde_json::from_str::<Value>(text) {
            let list = match v {
                Value::Object(mut o) if o.contains_key("jobs") => o.remove("jobs").unwrap_or_default(),
                Value::Object(o) => Value::Array(vec![Value::Object(o)]),
                other => other,
            };
            let Value::Array(list) = list else { return Err("\"jobs\" is not a list".into()) };
            return Ok(list.into_iter().enumerate().map(|(i, j)| (i + 1, Ok(j))).collect());
        }
    }
    Ok(text
        .split('\n')
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| (i + 1, serde_json::from_str::<Value>(l).map_err(|e| format!("not JSON: {e}"))))
        .collect())
}

/// The count of an RFC 22 idset: `0-3`, `0,2-5`, `[0-3]`, `7`.
pub fn idset_count(s: &str) -> Result<u64, String> {
    let inner = s.trim().trim_start_matches('[').trim_end_matches(']');
    if inner.is_empty() {
        return Ok(0);
    }
    let mut n: u64 = 0;
    for part in inner.split(',') {
        let bad = || format!("'{}' is not an idset like 0-3", crate::text::clean(s));
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (a.trim().parse::<u64>().map_err(|_| bad())?, b.trim().parse::<u64>().map_err(|_| bad())?),
            None => {
                let v = part.trim().parse::<u64>().map_err(|_| bad())?;
                (v, v)
            }
        };
        // No node has a million cores or GPUs: a wider range is not an id set any resource holds.
        if b < a || b - a >= MAX_IDS {
            return Err(bad());
        }
        n = n.saturating_add(b - a + 1);
    }
    Ok(n)
}

/// Cores and GPUs in a resource set R.
pub fn count_r(r: &Value) -> Result<(u64, u64), String> {
    let lite = r.pointer("/execution/R_lite").and_then(Value::as_array).ok_or("R has no execution.R_lite list")?;
    let (mut cores, mut gpus) = (0u64, 0u64);
    for entry in lite {
        let ranks = idset_count(entry.get("rank").and_then(Value::as_str).ok_or("an R_lite entry has no rank")?)?;
        let child = |k: &str| entry.pointer(&format!("/children/{k}")).and_then(Value::as_str).map_or(Ok(0), idset_count);
        cores = cores.saturating_add(ranks.saturating_mul(child("core")?));
        gpus = gpus.saturating_add(ranks.saturating_mul(child("gpu")?));
    }
    Ok((cores, gpus))
}

/// A job's state as exa names it: the result of an inactive job (`COMPLETED`, `FAILED`, `CANCELLED`,
/// `TIMEOUT`), else `RUNNING` or `PENDING`.
fn state_of(j: &Value) -> Result<String, String> {
    let state = match j.get("state") {
        Some(Value::Number(n)) => n.as_u64().unwrap_or(0),
        Some(Value::String(s)) => match s.to_ascii_uppercase().as_str() {
            "DEPEND" => 2,
            "PRIORITY" => 4,
            "SCHED" => 8,
            "RUN" => 16,
            "CLEANUP" => 32,
            "INACTIVE" => 64,
            _ => return Err(format!("'{}' is not a Flux job state", crate::text::clean(s))),
        },
        _ => return Err("missing".into()),
    };
    let result = match j.get("result") {
        Some(Value::Number(n)) => match n.as_u64() {
            Some(1) => "COMPLETED",
            Some(2) => "FAILED",
            Some(4) => "CANCELLED",
            Some(8) => "TIMEOUT",
            _ => "FAILED",
        },
        Some(Value::String(s)) => match s.to_ascii_uppercase().as_str() {
            "COMPLETED" => "COMPLETED",
            "CANCELED" | "CANCELLED" => "CANCELLED",
            "TIMEOUT" => "TIMEOUT",
            _ => "FAILED",
        },
        _ => "FAILED",
    };
    Ok(if state & INACTIVE != 0 {
        result.to_string()
    } else if state & RUNNING != 0 {
        "RUNNING".into()
    } else {
        "PENDING".into()
    })
}

/// A job record as a `Job`; its cores and GPUs from `r` (its R) when given, else from the record's own
/// `ncores`/`ngpus`, else unknown (`Ok` with `None`: the caller decides).
pub fn job(j: &Value, line: usize, r: Option<&Value>) -> Result<(Job, bool), BadLine> {
    let bad = |field: &str, why: String| BadLine { line, field: field.into(), why };
    let id = match j.get("id") {
        Some(Value::Number(n)) => n.as_u64().map(|n| n.to_string()),
        Some(Value::String(s)) if !s.is_empty() && s.len() <= 64 && s.chars().all(|c| c.is_ascii_alphanumeric() || "ƒf".contains(c)) => {
            Some(s.clone())
        }
        _ => None,
    }
    .ok_or_else(|| bad("id", "missing, or not a job id".into()))?;
    // 0 is Flux's "not yet"; any other value is a time, checked with the job.
    let t = |k: &str| j.get(k).and_then(Value::as_f64).filter(|v| *v != 0.0);
    let state = state_of(j).map_err(|w| bad("state", w))?;
    let (start, end) = (t("t_run"), t("t_cleanup").or_else(|| t("t_inactive")));

    let runtime = match (j.get("runtime").and_then(Value::as_f64).filter(|v| v.is_finite() && *v > 0.0), start, end) {
        (Some(r), _, _) => r,
        (None, Some(s), Some(e)) if e > s => e - s,
        _ => 0.0,
    };
    let (cores, gpus, known) = match r {
        Some(r) => {
            let (c, g) = count_r(r).map_err(|w| bad("R", w))?;
            (c as f64, g as f64, true)
        }
        None => match (j.get("ncores").and_then(Value::as_f64), j.get("ngpus").and_then(Value::as_f64)) {
            (Some(c), g) => (c, g.unwrap_or(0.0), g.is_some()),
            (None, _) => (0.0, 0.0, false),
        },
    };
    let text = |k: &str| j.get(k).and_then(Value::as_str).filter(|s| !s.is_empty()).map(crate::text::clean_word);
    let user = text("username").or_else(|| j.get("userid").and_then(Value::as_u64).map(|u| u.to_string().into()));
    Ok((
        super::jobs::checked(Job {
            line,
            raw_id: id.as_str().into(),
            id: id.into(),
            step: false,
            cluster: None,
            name: text("name"),
            user,
            account: text("bank"),
            partition: text("queue"),
            wckey: None,
            comment: None,
            state: state.into(),
            start: start.map(seconds),
            end: end.map(seconds),
            elapsed_s: runtime,
            gpus,
            gpu_type: None,
            cpu_hours: cores * runtime / 3600.0,
            energy_j: None,
        })?,
        known,
    ))
}

/// A time in seconds as a whole second; a value no clock reaches stays out of range, for `jobs::checked`.
fn seconds(t: f64) -> i64 {
    if t.is_finite() && t.abs() < 1e15 {
        t as i64
    } else {
        i64::MAX
    }
}

/// Reads every job of a saved file, a job's R being its `"R"` key; also the lines of the jobs that
/// ran with neither an R nor `ncores`, whose work cannot be counted.
pub fn parse_file(text: &str) -> Result<(Jobs, Vec<usize>), String> {
    let mut out = Jobs::default();
    let mut unknown = Vec::new();
    for (line, item) in parse(text)? {
        let v = match item {
            Ok(v) => v,
            Err(why) => {
                out.bad.push(BadLine { line, field: String::new(), why });
                continue;
            }
        };
        match job(&v, line, v.get("R")) {
            Ok((j, known)) => {
                if !known {
                    unknown.push(line);
                }
                out.add(j);
            }
            Err(b) => out.bad.push(b),
        }
    }
    Ok((out, unknown))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idsets() {
        assert_eq!(idset_count("0-3"), Ok(4));
        assert_eq!(idset_count("[0,2-5]"), Ok(5));
        assert_eq!(idset_count("7"), Ok(1));
        assert!(idset_count("3-1").is_err());
        assert!(idset_count("a").is_err());
    }

    #[test]
    fn r_counts_ranks_times_children() {
        let r: Value = serde_json::from_str(r#"{"version":1,"execution":{"R_lite":[{"rank":"0-1","children":{"core":"0-3","gpu":"0-1"}},{"rank":"5","children":{"core":"0"}}]}}"#).unwrap();
        assert_eq!(count_r(&r), Ok((9, 4)));
    }
}
