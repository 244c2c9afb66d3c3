//! What a newcomer meets first: figures without float noise, times as ISO
//! text, a config init that makes the directories the docs name, and
//! answers that say how to go on.

use serde_json::Value;

use crate::common::{fails, stdout, with_h100, Env};

/// Every number in `v`, with its path.
fn numbers(v: &Value, path: &str, out: &mut Vec<(String, f64)>) {
    match v {
        Value::Number(n) => out.push((path.to_string(), n.as_f64().unwrap())),
        Value::Array(a) => a.iter().enumerate().for_each(|(i, x)| numbers(x, &format!("{path}[{i}]"), out)),
        Value::Object(o) => o.iter().for_each(|(k, x)| numbers(x, &format!("{path}.{k}"), out)),
        _ => {}
    }
}

/// Significant digits of the shortest text that reads back as `x`.
fn significant(x: f64) -> usize {
    let s = format!("{:e}", x.abs());
    s.split('e').next().unwrap().chars().filter(char::is_ascii_digit).count()
}

#[track_caller]
fn no_noise(v: &Value) {
    let mut all = Vec::new();
    numbers(v, "", &mut all);
    let noisy: Vec<String> = all.iter().filter(|(_, x)| significant(*x) > 15).map(|(p, x)| format!("{p} = {x}")).collect();
    assert!(noisy.is_empty(), "float noise: {noisy:?}");
}

#[test]
fn figures_carry_no_float_noise() {
    let env = with_h100(Env::new()).env("FAKE_SMI_POWER", "300");
    let args = ["-o", "json", "finops", "measure", "--interval", "0.1", "--power-cost-per-kwh", "0.3", "--", "sleep", "0.4"];
    let out = env.run(&args);
    // After a command, the report is on stderr.
    let r: Value = crate::common::checked(&args, &out.stderr);
    no_noise(&r);
    for _ in 0..3 {
        env.json::<Value>(&["finops", "carbon", "record", "M", "--gpu-hours", "0.1", "--cpu-hours", "0.7"]);
    }
    no_noise(&env.json(&["report"]));
    no_noise(&env.json(&["gpu"]));
}

#[test]
fn config_init_makes_the_directories_and_shows_a_cluster() {
    let env = Env::new();
    let out = env.run(&["config", "init"]);
    assert_eq!(out.status.code(), Some(0));
    for d in ["providers/carbon", "providers/cost", "plugins"] {
        assert!(env.config_dir().join(d).is_dir(), "{d}");
        assert!(stdout(&out).contains(d), "{}", stdout(&out));
    }
    let text = std::fs::read_to_string(env.config_file()).unwrap();
    assert!(text.contains("# clusters:") && text.contains("prometheus: http://"), "{text}");
    // The example, uncommented, is a working config.
    let uncommented: String = text
        .lines()
        .map(|l| {
            if l.starts_with("# clusters:") || l.starts_with("#   ") {
                l.trim_start_matches("# ").trim_start_matches('#').to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    env.config(&uncommented);
    let v: Value = env.json(&["metrics", "clusters"]);
    assert_eq!(v["clusters"][0]["name"], "aurora-prod");
}

#[test]
fn metrics_without_clusters_says_how_to_add_one() {
    let env = Env::new();
    let out = env.run(&["metrics", "clusters"]);
    assert!(stdout(&out).contains("no clusters are configured: add one under clusters: in"), "{}", stdout(&out));
    assert!(stdout(&out).contains("finops.yaml"));
    let out = env.run(&["metrics", "node", "--cluster", "nope", "--node", "n1"]);
    fails(&out, 1, "finops.yaml");
}

#[test]
fn mistyped_names_get_a_suggestion() {
    let env = Env::new();
    env.config("finops:\n  carbon:\n    coefficients:\n      grid_intensity_g_per_kw: 250\n");
    let out = env.run(&["finops", "carbon", "estimate", "--gpu-hours", "1"]);
    assert!(crate::common::stderr(&out).contains("did you mean 'grid_intensity_g_per_kwh'"), "{}", crate::common::stderr(&out));
    let env = Env::new();
    env.json::<Value>(&["finops", "carbon", "record", "JPCP", "--gpu-hours", "1"]);
    let out = env.run(&["report", "jpcp"]);
    assert!(crate::common::stderr(&out).contains("did you mean 'JPCP'"), "{}", crate::common::stderr(&out));
}

#[test]
fn a_plugin_reached_twice_is_one_plugin() {
    let env = Env::new();
    let plugins = env.config_dir().join("plugins");
    env.program(
        "config/examlops/plugins/exa-cost-twice",
        "#!/bin/sh\ncase \"$1\" in metadata) echo '{\"protocol\":1,\"name\":\"twice\",\"methodology\":\"m\",\"outputs\":[\"cost_usd\"]}';; *) echo '{\"cost_usd\": 1}';; esac\n",
    );
    let env = env.path_first(&plugins);
    let v: Value = env.json(&["finops", "cost", "providers"]);
    let twice: Vec<&Value> = v["providers"].as_array().unwrap().iter().filter(|p| p["name"] == "twice").collect();
    assert_eq!(twice.len(), 1, "{twice:?}");
    assert_eq!(twice[0]["status"], "ok", "{}", twice[0]);
}

#[test]
fn measuring_without_a_gpu_says_so_at_once() {
    let env = Env::new();
    // A PATH with the system's tools and no nvidia-smi.
    let started = std::time::Instant::now();
    let args = ["-o", "json", "finops", "measure", "--duration", "10m"];
    let out = env.cmd().env("PATH", "/usr/bin:/bin").args(args).output().unwrap();
    assert!(started.elapsed() < std::time::Duration::from_secs(10), "never ten silent minutes: {:?}", started.elapsed());
    let err = crate::common::stderr(&out);
    assert!(err.contains("no GPU found"), "{err}");
    let r: Value = crate::common::checked(&args, &out.stdout);
    assert_eq!(r["gpu"]["status"], "not measured");
    let out = env
        .cmd()
        .env("PATH", "/usr/bin:/bin")
        .args(["finops", "measure", "--", "sh", "-c", "sleep 0.5; echo job-output >&2"])
        .output()
        .unwrap();
    let err = crate::common::stderr(&out);
    let (warned, job) = (err.find("no GPU found").unwrap(), err.find("job-output").unwrap());
    assert!(warned < job, "the warning comes at the start, before the job's own output: {err}");
}

#[test]
fn tables_fit_an_80_column_terminal_without_breaking_numbers() {
    let env = with_h100(Env::new()).env("FAKE_SMI_DEVICES", "8").env("NO_COLOR", "1");
    let exa = env!("CARGO_BIN_EXE_exa");
    let at_80 = |args: &str| {
        let out = env.cmd_for("script").args(["-qec", &format!("stty cols 80; {exa} {args}"), "/dev/null"]).output().unwrap();
        String::from_utf8_lossy(&out.stdout).replace('\r', "")
    };
    env.json::<Value>(&["finops", "carbon", "record", "a-model-with-a-rather-long-name", "--gpu-hours", "12345.678", "--cpu-hours", "32"]);
    for args in
        ["gpu", "finops carbon providers", "finops carbon estimate --gpu-hours 12 --cpu-hours 32", "finops cost providers", "report"]
    {
        let text = at_80(args);
        let table_lines: Vec<&str> = text.lines().filter(|l| l.starts_with(['│', '╭', '╰', '╞'])).collect();
        assert!(!table_lines.is_empty(), "{args}: no table in {text}");
        for l in &table_lines {
            assert!(l.chars().count() <= 80, "{args}: a table line of {} columns:\n{text}", l.chars().count());
        }
    }
    let gpu = at_80("gpu");
    assert!(gpu.contains("632 / 700") && gpu.contains("19.4 / 79.6"), "numbers whole on one line:\n{gpu}");
    let wide = at_80("gpu --wide");
    assert!(wide.contains("SM MHz") && wide.contains("ECC c/u"), "--wide keeps every column:\n{wide}");
}

#[test]
fn every_subcommand_has_examples_and_every_flag_a_description() {
    use clap::CommandFactory;
    fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
        let name = format!("{path} {}", cmd.get_name()).trim().to_string();
        if cmd.has_subcommands() {
            for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
                walk(sub, &name, missing);
            }
            return;
        }
        let examples = cmd.get_after_help().map(ToString::to_string).unwrap_or_default();
        let count = examples.lines().filter(|l| l.trim_start().starts_with("exa ") || l.contains("$(exa")).count();
        if !examples.starts_with("Examples:") || count < 2 {
            missing.push(format!("{name}: {count} example(s)"));
        }
        for a in cmd.get_arguments().filter(|a| !a.is_global_set() && a.get_id() != "help") {
            if a.get_help().is_none() {
                missing.push(format!("{name}: --{} has no description", a.get_id()));
            }
        }
    }
    let mut missing = Vec::new();
    walk(&exa::cli::Cli::command(), "", &mut missing);
    assert!(missing.is_empty(), "help that does not answer:\n{}", missing.join("\n"));
}

#[test]
fn flags_that_do_nothing_for_a_command_stay_out_of_its_help() {
    let env = Env::new();
    let help = |args: &[&str]| stdout(&env.run(&[args, &["--help"]].concat()));
    for args in [&["gpu"][..], &["metrics", "node"], &["finops", "carbon", "providers"], &["finops", "carbon", "estimate"]] {
        assert!(!help(args).contains("--db"), "{args:?} keeps no records");
    }
    for args in [&["gpu"][..], &["report"], &["metrics", "flags"]] {
        assert!(!help(args).contains("--strict"), "{args:?} chooses no provider");
    }
    assert!(help(&["report"]).contains("--db") && help(&["finops", "measure"]).contains("--strict"));
    // Given before the command, as before, they still work.
    let db = env.dir.path().join("r.db");
    env.json::<Value>(&["--db", db.to_str().unwrap(), "finops", "carbon", "record", "M", "--gpu-hours", "1"]);
    let r: Value = env.json(&["report", "--db", db.to_str().unwrap()]);
    assert_eq!(r["totals"]["records"]["carbon"], 1);
}

#[test]
fn without_a_gpu_a_terminal_sees_elapsed_time_and_cpu_hours() {
    let env = Env::new();
    let exa = env!("CARGO_BIN_EXE_exa");
    let burn = "import time\nt=time.time()\nwhile time.time()-t<1.5: pass";
    let script = format!("PATH=/usr/bin:/bin {exa} finops measure -- python3 -c '{burn}'");
    let out = env.cmd_for("script").args(["-qec", &script, "/dev/null"]).output().unwrap();
    let text = stdout(&out);
    let ticks: Vec<f64> = text
        .split('\r')
        .filter_map(|l| l.trim_start_matches("\u{1b}[2K").split(" CPU-hours so far").next().filter(|_| l.contains("CPU-hours so far")))
        .filter_map(|l| l.split_whitespace().last()?.parse().ok())
        .collect();
    assert!(ticks.len() >= 2, "a live line each second: {text:?}");
    assert!(ticks.last().unwrap() > &0.0, "CPU-hours grow while the job burns CPU: {ticks:?}");
}
