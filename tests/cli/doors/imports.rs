//! Imported numbers: range-checked as read; the watermark.

use crate::common::{fails, stderr, Env};
use serde_json::{json, Value};

fn sacct_json(jobs: &[Value]) -> String {
    json!({"jobs": jobs}).to_string()
}

fn slurm_job(id: Value, end: Value, gpus: Value) -> Value {
    json!({
        "job_id": id, "name": "train", "user": "alice", "account": "a", "partition": "gpu", "cluster": "hpc1",
        "state": {"current": ["COMPLETED"]},
        "time": {"start": 1764547200, "end": end, "elapsed": 3600},
        "tres": {"allocated": [{"type": "cpu", "count": 8}, {"type": "gres", "name": "gpu", "count": gpus}]}
    })
}

#[test]
fn imported_numbers_are_range_checked_as_they_are_read() {
    let env = Env::new();
    let good = slurm_job(json!(100), json!(1764550800), json!(2));
    let cases = [
        (slurm_job(json!(101), json!(1e300), json!(1)), "end"),
        (slurm_job(json!(102), json!(253402214400i64), json!(1)), "in the future"),
        (slurm_job(json!(-1), json!(1764550800), json!(1)), "job_id"),
        (slurm_job(json!(1e30), json!(1764550800), json!(1)), "job_id"),
        (slurm_job(json!(1.5), json!(1764550800), json!(1)), "job_id"),
        (slurm_job(json!(103), json!(1764550800), json!(-2)), "gpus"),
    ];
    for (bad, why) in &cases {
        let file = env.file("sacct.json", &sacct_json(&[good.clone(), bad.clone()]));
        let out = env.run(&["import", "slurm", "--file", file.to_str().unwrap(), "--cluster", "hpc1"]);
        fails(&out, 2, why);
        assert!(stderr(&out).contains("line 2") || stderr(&out).contains("job 2") || stderr(&out).contains(" 2"), "{}", stderr(&out));
        let out =
            env.run(&["-o", "json", "import", "slurm", "--file", file.to_str().unwrap(), "--cluster", "hpc1", "--skip-bad", "--dry-run"]);
        assert!(out.status.success(), "{why}: {}", stderr(&out));
    }
    // Nothing was stored by the refused imports; the good job imports alone.
    let file = env.file("sacct.json", &sacct_json(std::slice::from_ref(&good)));
    let got = env.json::<Value>(&["import", "slurm", "--file", file.to_str().unwrap(), "--cluster", "hpc1"]);
    assert_eq!(got["imported"], 1, "{got}");
    // A Flux core range that would wrap a 64-bit count is a bad line.
    let flux = json!({"id": 5, "state": "INACTIVE", "result": "COMPLETED", "t_run": 1764547200.0, "t_inactive": 1764550800.0,
        "R": {"version": 1, "execution": {"R_lite": [{"rank": "0", "children": {"core": "0-18446744073709551615"}}]}}});
    let file = env.file("flux.json", &format!("{flux}\n"));
    fails(&env.run(&["import", "flux", "--file", file.to_str().unwrap(), "--cluster", "tioga"]), 2, "idset");
}

#[test]
fn the_watermark_moves_only_with_imported_jobs_and_never_past_now() {
    let env = Env::new();
    // A hand-made record under the importer's run-id prefix does not pass for an import.
    env.json::<Value>(&["finops", "carbon", "record", "M", "--gpu-hours", "1", "--run-id", "slurm:hpc1:x"]);
    let bin = env.dir.path().join("bin");
    env.program("bin/sacct", "#!/bin/sh\necho 'sacct must not run' >&2\nexit 1\n");
    let env = env.path_first(&bin);
    fails(&env.run(&["import", "slurm", "--cluster", "hpc1"]), 2, "no earlier import");
    // An imported job sets it.
    let file = env.file("sacct.json", &sacct_json(&[slurm_job(json!(7), json!(1764550800), json!(1))]));
    let got = env.json::<Value>(&["import", "slurm", "--file", file.to_str().unwrap(), "--cluster", "hpc1"]);
    assert_eq!(got["watermark"], "2025-12-01T01:00:00Z", "{got}");
}
