//! `exa import flux`: Flux cannot be installed here, so a fake `flux` on PATH
//! replays real job-list records and resource sets from Flux's own test
//! suite (copied into `tests/fixtures/sched/flux/`, its README naming the source), and saved files of
//! the same shapes.

use std::path::PathBuf;

use serde_json::Value;

use crate::common::{close, fails, stderr, Env};

fn fixture(name: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sched/flux").join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// A fake `flux`: `flux jobs` prints the records, `flux job info ID R` the resource set saved for ID.
fn fake_flux(env: Env, records: &str, rs: &[(&str, &str)]) -> Env {
    env.file("flux/joblist.jsonl", records);
    for (id, r) in rs {
        env.file(&format!("flux/R/{id}.json"), r);
    }
    let dir = env.dir.path().join("flux");
    env.program(
        "bin/flux",
        &format!(
            "#!/bin/sh\nD='{}'\necho \"$@\" >> \"$D/args\"\ncase \"$1\" in\n  jobs) printf '{{\"jobs\":['; sep=''; while IFS= read -r l; do printf '%s%s' \"$sep\" \"$l\"; sep=','; done < \"$D/joblist.jsonl\"; printf ']}}\\n';;\n  job) if [ -f \"$D/R/$3.json\" ]; then cat \"$D/R/$3.json\"; else echo \"flux-job: $3: not found\" >&2; exit 1; fi;;\nesac\n",
            dir.display()
        ),
    );
    let bin = env.dir.path().join("bin");
    env.path_first(&bin)
}

const GPU_R: &str = r#"{"version": 1, "execution": {"R_lite": [{"rank": "0", "children": {"core": "0-1", "gpu": "0"}}]}}"#;
const ONE_CORE: &str = r#"{"version": 1, "execution": {"R_lite": [{"rank": "0", "children": {"core": "0"}}]}}"#;

fn job<'a>(answer: &'a Value, id: &str) -> &'a Value {
    answer["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["run_id"] == format!("flux:tioga:{id}"))
        .unwrap_or_else(|| panic!("{id}: {answer}"))
}

#[test]
fn flux_jobs_and_their_resource_sets_become_records() {
    let rs = [
        ("97053292101632", fixture("R-fluxion.json")),
        ("96775562067968", GPU_R.to_string()),
        ("96619970166784", ONE_CORE.to_string()),
        ("96444648259584", ONE_CORE.to_string()),
    ];
    let rs: Vec<(&str, &str)> = rs.iter().map(|(i, r)| (*i, r.as_str())).collect();
    let env = fake_flux(Env::new(), &fixture("joblist-returncode.jsonl"), &rs);
    let dry = env.json::<Value>(&["import", "flux", "--cluster", "tioga", "--since", "2020-12-01", "--dry-run"]);
    assert_eq!(dry["skipped"], serde_json::json!({"running": 1, "never ran": 1}), "{dry}");
    assert_eq!(dry["jobs"].as_array().unwrap().len(), 4);
    // 4 ranks of 4 cores (R-fluxion) over t_cleanup - t_run.
    let big = job(&dry, "97053292101632");
    close(big["cpu_hours"].as_f64().unwrap(), 16.0 * (1_607_972_618.168_257_5 - 1_607_972_318.053_095_8) / 3600.0);
    assert_eq!((big["gpu_hours"].as_f64(), big["state"].as_str(), big["model"].as_str()), (Some(0.0), Some("COMPLETED"), Some("sleep")));
    let gpu = job(&dry, "96775562067968");
    close(gpu["gpu_hours"].as_f64().unwrap(), (1_607_972_301.543_08 - 1_607_972_301.499_296_7) / 3600.0);
    assert_eq!((gpu["state"].as_str(), gpu["user"].as_str()), (Some("FAILED"), Some("1000")));
    let args = std::fs::read_to_string(env.dir.path().join("flux/args")).unwrap();
    assert!(args.lines().next().unwrap().starts_with("jobs -a -A --json --count=0 --since=2020-12-01 00:00:00"), "{args}");
    assert!(args.contains("job info 96775562067968 R") && !args.contains("job info 98083329277952"), "R only for jobs that ran: {args}");

    let first = env.json::<Value>(&["import", "flux", "--cluster", "tioga", "--since", "2020-12-01"]);
    assert_eq!((first["imported"].as_u64(), first["records_written"].as_u64()), (Some(4), Some(8)), "{first}");
    let again = env.json::<Value>(&["import", "flux", "--cluster", "tioga"]);
    assert_eq!(
        (again["since_from"].as_str(), again["already_there"].as_u64(), again["imported"].as_u64()),
        (Some("the last import"), Some(1), Some(0))
    );
    // Flux jobs have no account: asking for one is malformed; a failing `flux job info` stops the import.
    fails(&env.run(&["import", "flux", "--cluster", "tioga", "--model-from", "account"]), 2, "Flux jobs have a name only");
    std::fs::remove_file(env.dir.path().join("flux/R/96444648259584.json")).unwrap();
    let out = env.run(&["import", "flux", "--cluster", "other", "--since", "2020-12-01"]);
    fails(&out, 1, "flux job info 96444648259584 R");
    assert!(stderr(&out).contains("not found"), "{}", stderr(&out));
    let report = env.json::<Value>(&["report", "--by", "run"]);
    assert!(
        report["groups"].as_array().unwrap().iter().all(|g| g["key"].as_str().unwrap().starts_with("flux:tioga:")),
        "nothing from the failed import"
    );
}

#[test]
fn a_saved_flux_file_carries_each_jobs_r() {
    let env = Env::new();
    let lines: Vec<String> = fixture("joblist-returncode.jsonl")
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            if v["id"] == 96_775_562_067_968_u64 {
                v["R"] = serde_json::from_str(GPU_R).unwrap();
            }
            if v["id"] == 96_444_648_259_584_u64 {
                v["R"] = serde_json::from_str(ONE_CORE).unwrap();
            }
            v.to_string()
        })
        .collect();
    let file = env.file("jobs.jsonl", &(lines.join("\n") + "\n"));
    let got = env.json::<Value>(&["import", "flux", "--file", file.to_str().unwrap(), "--cluster", "tioga"]);
    assert_eq!(got["imported"], 2, "{got}");
    assert_eq!(got["skipped"]["no resource set (R) in the file"], 2, "{got}");
    // `{"jobs": [...]}` as `flux jobs --json` prints it, and a broken line.
    let wrapped = env.file("jobs.json", &format!("{{\"jobs\": [{}]}}", lines.join(",")));
    let again = env.json::<Value>(&["import", "flux", "--file", wrapped.to_str().unwrap(), "--cluster", "tioga"]);
    assert_eq!((again["already_there"].as_u64(), again["imported"].as_u64()), (Some(2), Some(0)));
    let broken = env.file("broken.jsonl", &format!("{}\n{{\"id\": 5, \"state\": \"BOGUS\"}}\n", lines[0]));
    fails(
        &env.run(&["import", "flux", "--file", broken.to_str().unwrap(), "--cluster", "tioga"]),
        2,
        "line 2, field state: 'BOGUS' is not a Flux job state",
    );
}
