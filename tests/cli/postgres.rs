//! The PostgreSQL ledger against a real, throw-away PostgreSQL cluster.

use serde_json::Value;

use crate::common::{fails, stderr, stdout, Env};
use crate::pg::{PgServer, PASSWORD};

/// Records the same mix of work, through `exa`, into whatever `EXAMLOPS_DB` names.
fn record_mix(env: &Env) {
    let rec = |args: &[&str]| {
        let out = env.run(args);
        assert!(out.status.success(), "exa {args:?}: {}", stderr(&out));
    };
    rec(&["finops", "carbon", "record", "JPCP", "--gpu-hours", "12", "--run-id", "r1"]);
    rec(&["finops", "cost", "record", "JPCP", "--gpu-hours", "12", "--cpu-hours", "32", "--run-id", "r1"]);
    rec(&["finops", "carbon", "record", "JPCP", "--gpu-hours", "2", "--run-id", "r2"]);
    rec(&["finops", "carbon", "record", "JPCP", "--gpu-hours", "2", "--run-id", "r2"]);
    rec(&["finops", "carbon", "record", "GPT", "--gpu-hours", "3", "--run-id", "r3", "--part"]);
    rec(&["finops", "carbon", "record", "GPT", "--gpu-hours", "4", "--run-id", "r3", "--part"]);
    rec(&["finops", "carbon", "record", "GPT", "--gpu-hours", "1", "--provider", "ccf-like"]);
    rec(&["finops", "cost", "record", "GPT", "--cpu-hours", "5"]);
    rec(&["finops", "carbon", "record", "LLAMA", "--cpu-hours", "7"]);
    rec(&["finops", "carbon", "record", "LLAMA", "--gpu-hours", "7", "--provider", "codecarbon-like", "--run-id", "r4"]);
    // Two readings at least, however slow the machine: a measurement with no GPU interval holds no GPU-hours,
    // and would not supersede r2's estimates.
    let job = crate::common::until_calls(env, 3);
    let m = env.run(&["finops", "measure", "--interval", "0.1", "--record", "JPCP", "--run-id", "r2", "--", "sh", "-c", &job]);
    assert!(m.status.success(), "{}", stderr(&m));
}

/// Two reports agree: every field the same, every figure to 12 significant digits. The server
/// sums in its own order, and a sum of floating-point figures can differ in its last digit with
/// the order of its terms.
pub(crate) fn same(a: &Value, b: &Value, at: &str) {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            assert!((x - y).abs() <= 1e-12 * x.abs().max(y.abs()), "{at}: {x} and {y}");
        }
        (Value::Array(x), Value::Array(y)) => {
            assert_eq!(x.len(), y.len(), "{at}: {a} and {b}");
            x.iter().zip(y).enumerate().for_each(|(i, (x, y))| same(x, y, &format!("{at}[{i}]")));
        }
        (Value::Object(x), Value::Object(y)) => {
            assert_eq!(x.keys().collect::<Vec<_>>(), y.keys().collect::<Vec<_>>(), "{at}");
            x.iter().for_each(|(k, v)| same(v, &y[k], &format!("{at}.{k}")));
        }
        _ => assert_eq!(a, b, "{at}"),
    }
}

/// A report without the field naming where it was read.
fn report(env: &Env, args: &[&str]) -> Value {
    let mut v = env.json::<Value>(&[&["report"][..], args].concat());
    v.as_object_mut().unwrap().remove("db");
    v
}

#[test]
fn reports_on_postgres_are_the_sqlite_reports_aggregated_by_the_server() {
    let pg = PgServer::start();
    let url = pg.database("same");
    let lite = crate::common::with_h100(Env::new()).env("FAKE_SMI_POWER", "300");
    let post = crate::common::with_h100(Env::new()).env("FAKE_SMI_POWER", "300").env("EXAMLOPS_DB", &url);
    record_mix(&lite);
    record_mix(&post);
    for by in ["model", "run", "provider", "day"] {
        let (a, b) = (report(&lite, &["--by", by]), report(&post, &["--by", by]));
        // Measured energy differs between the two measured runs; everything else is the same.
        let strip = |mut v: Value| {
            let figures = ["kwh", "co2e_g", "co2e_range_g", "cost_usd", "gpu_hours", "cpu_hours", "embodied_co2e_g"];
            for g in v["groups"].as_array_mut().unwrap().iter_mut() {
                figures.iter().for_each(|k| drop(g.as_object_mut().unwrap().remove(*k)));
            }
            figures.iter().for_each(|k| drop(v["totals"].as_object_mut().unwrap().remove(*k)));
            v
        };
        assert_eq!(strip(a.clone()), strip(b.clone()), "--by {by}");
        // The estimated groups carry the same figures.
        for (ga, gb) in a["groups"].as_array().unwrap().iter().zip(b["groups"].as_array().unwrap()) {
            if ga["runs_measured"] == 0 {
                same(ga, gb, &format!("--by {by}"));
            }
        }
    }
    let one = report(&post, &["JPCP", "--by", "run"]);
    let r2 = one["groups"].as_array().unwrap().iter().find(|g| g["key"] == "r2").unwrap();
    assert_eq!(
        (r2["runs_measured"].as_u64(), r2["records"]["carbon"].as_u64(), r2["records_not_counted"].as_u64()),
        (Some(1), Some(1), Some(2))
    );
    assert!(one["notes"][0].as_str().unwrap().contains("a measured record supersedes an estimate"), "{}", one["notes"]);
    // The report names the database without its password.
    let shown = post.json::<Value>(&["report"])["db"].as_str().unwrap().to_string();
    assert!(!shown.contains(PASSWORD) && shown.contains("postgres://REDACTED@127.0.0.1"), "{shown}");
    // FOCUS rows come from either store alike.
    let focus = |env: &Env| -> Vec<String> {
        let out = env.run(&["report", "--format", "focus"]);
        stdout(&out).lines().filter(|l| !l.contains("run r2")).map(|l| l.split(",#").next().unwrap().to_string()).collect()
    };
    assert_eq!(focus(&lite), focus(&post));
    // Append-only in the database itself, whoever connects.
    for sql in
        ["DELETE FROM exa_records", "UPDATE exa_records SET model = 'x'", "TRUNCATE exa_records CASCADE", "DELETE FROM exa_estimates"]
    {
        let out = pg.psql("same", sql);
        assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("append-only"), "{sql}");
    }
    // Imported jobs: their keys found on the server the second time, and reports by the scheduler's labels.
    let sacct = post.file(
        "sacct.txt",
        "JobID|JobIDRaw|JobName|User|Account|Partition|Cluster|State|Start|End|ElapsedRaw|CPUTimeRAW|AllocTRES\n\
         7|7|a|u1|ml|gpu|c1|COMPLETED|2026-11-02T10:00:00|2026-11-02T11:00:00|3600|7200|cpu=2,gres/gpu=1\n\
         8|8|b|u2|bio|cpu|c1|COMPLETED|2026-11-02T10:00:00|2026-11-02T11:00:00|3600|3600|cpu=1\n",
    );
    let import = |env: &Env| env.json::<Value>(&["import", "slurm", "--file", sacct.to_str().unwrap()]);
    let first = import(&post);
    assert_eq!((first["imported"].as_u64(), first["records_written"].as_u64()), (Some(2), Some(4)), "{first}");
    let again = import(&post);
    assert_eq!((again["imported"].as_u64(), again["already_there"].as_u64()), (Some(0), Some(2)), "{again}");
    import(&lite);
    // The jobs' groups (the hand-made records, one of them measured differently in each store, are "(none)").
    let jobs = |env: &Env, by: &str| -> Value {
        report(env, &["--by", by])["groups"].as_array().unwrap().iter().filter(|g| g["key"] != "(none)").cloned().collect()
    };
    for by in ["account", "user", "partition"] {
        let (a, b) = (jobs(&lite, by), jobs(&post, by));
        assert_eq!(a.as_array().unwrap().len(), 2, "--by {by}: {a}");
        same(&a, &b, &format!("--by {by}"));
    }
}

#[test]
fn sixty_four_writers_from_two_spellings_of_one_database() {
    let pg = PgServer::start_trusting();
    let url = pg.database("many");
    let other = format!("postgresql://exa@localhost:{}/many?sslmode=disable", pg.port);
    let env = Env::new();
    let exa = env!("CARGO_BIN_EXE_exa");
    let mut writers = Vec::new();
    for w in 0..64 {
        let db = if w % 2 == 0 { url.clone() } else { other.clone() };
        // Eight writers record the same 50 runs (each run eight times over, into one cell, as others add to it).
        let run = if w % 8 == 7 { "shared".to_string() } else { format!("w{w}") };
        let script = format!(
            "i=0; while [ $i -lt 50 ]; do '{exa}' finops carbon record M{m} --gpu-hours 1 --run-id {run}-$i >/dev/null || exit 1; i=$((i+1)); done",
            m = w % 4
        );
        writers.push(env.cmd_for("sh").args(["-c", &script]).env("EXAMLOPS_DB", db).env("PGPASSWORD", PASSWORD).spawn().unwrap());
    }
    for mut w in writers {
        assert!(w.wait().unwrap().success(), "every writer recorded all of its records");
    }
    assert_eq!(pg.value("many", "SELECT count(*) FROM exa_records"), "3200");
    assert_eq!(pg.value("many", "SELECT count(DISTINCT idem_key) FROM exa_records"), "3200");
    let env = env.env("EXAMLOPS_DB", &url);
    let t = env.json::<Value>(&["report"])["totals"].clone();
    // 56 writers' 2,800 runs and the 50 shared ones, each of those counted once (its latest record).
    assert_eq!(
        (t["runs"].as_u64(), t["records"]["carbon"].as_u64(), t["records_not_counted"].as_u64()),
        (Some(2850), Some(2850), Some(350))
    );
    // That report came from the summary cells, which 64 writers into 4 cells kept whole: the same as a scan
    // of every record, and as the cells made again from every record.
    assert_eq!(pg.value("many", "SELECT sum(runs) || ' ' || count(*) FROM exa_report_cells"), "2850 4");
    let kept = report(&env, &["--by", "model"]);
    let scan = report(&env, &["--by", "model", "--since", "1970-01-01T00:00:01Z"]);
    for part in ["groups", "totals", "notes"] {
        same(&kept[part], &scan[part], &format!("cells against a scan: {part}"));
    }
    assert!(pg.psql("many", "SELECT exa_cells_rebuild()").status.success());
    same(&kept, &report(&env, &["--by", "model"]), "kept against made again");
}

#[test]
fn the_servers_summary_cells_count_what_a_scan_counts_even_records_written_by_sql() {
    let pg = PgServer::start_trusting();
    let url = pg.database("cells");
    let env = crate::common::with_h100(Env::new()).env("FAKE_SMI_POWER", "300").env("EXAMLOPS_DB", &url);
    record_mix(&env);
    // A record put in by SQL, two days before r1's carbon record: r1 now falls on two days (a split run).
    let copy = "INSERT INTO exa_records (idem_key, model, run_id, recorded_at, host, domain, provider, provider_kind, provider_digest, \
                gpu_hours, cpu_hours, kwh, co2e_g, cost_usd, uncertainty, measured, part) \
                SELECT 'by-sql', model, run_id, recorded_at - 2 * 86400, host, domain, provider, provider_kind, provider_digest, \
                gpu_hours, cpu_hours, kwh, co2e_g, cost_usd, uncertainty, measured, part FROM exa_records WHERE run_id = 'r1' AND domain = 'carbon'";
    assert!(pg.psql("cells", copy).status.success());
    assert_eq!(pg.value("cells", "SELECT string_agg(run_id, ',') FROM exa_split_runs"), "r1");
    for by in ["model", "day", "user"] {
        // Read from the cells, and (a bound within a day) from every record.
        let cells = report(&env, &["--by", by]);
        let scan = report(&env, &["--by", by, "--since", "1970-01-01T00:00:01Z"]);
        same(&cells["groups"], &scan["groups"], &format!("--by {by}"));
        same(&cells["totals"], &scan["totals"], &format!("--by {by}"));
        assert_eq!(cells["notes"], scan["notes"], "--by {by}");
    }
    // Cells kept record by record are the cells made again from every record.
    let kept = report(&env, &["--by", "day"]);
    assert!(pg.psql("cells", "SELECT exa_cells_rebuild()").status.success());
    same(&kept, &report(&env, &["--by", "day"]), "kept against made again");
    let t = report(&env, &[])["totals"].clone();
    assert_eq!(t["records_not_counted"].as_u64(), Some(3), "r1 recorded again (by SQL) and r2's two estimates under its measurement: {t}");
}

#[test]
fn a_restart_while_writers_run_loses_and_doubles_nothing() {
    let pg = PgServer::start_trusting();
    let url = pg.database("restart");
    let env = Env::new().env("EXAMLOPS_DB", &url);
    assert!(env.run(&["db", "migrate"]).status.success());
    let exa = env!("CARGO_BIN_EXE_exa");
    let log = env.dir.path().join("log").display().to_string();
    let mut writers = Vec::new();
    for w in 0..8 {
        // Each writer notes what exa told it: ok and the record's id and run, or failed, per record.
        let script = format!(
            "i=0; while [ $i -lt 40 ]; do if out=$('{exa}' -o json finops carbon record M --gpu-hours 1 --run-id w{w}-$i 2>/dev/null); then echo \"ok $(echo \"$out\" | tr -d '\\n')\" >> '{log}.{w}'; else echo failed >> '{log}.{w}'; fi; i=$((i+1)); done"
        );
        writers.push(env.cmd_for("sh").args(["-c", &script]).spawn().unwrap());
    }
    std::thread::sleep(std::time::Duration::from_millis(800));
    pg.restart();
    std::thread::sleep(std::time::Duration::from_millis(300));
    pg.restart();
    for mut w in writers {
        w.wait().unwrap();
    }
    let (mut ok, mut failed) = (0, 0);
    let stored = pg.value("restart", "SELECT string_agg(run_id || '=' || id, ' ') FROM exa_records");
    let stored: std::collections::HashMap<&str, &str> = stored.split(' ').filter_map(|p| p.split_once('=')).collect();
    for w in 0..8 {
        let text = std::fs::read_to_string(format!("{log}.{w}")).unwrap();
        for told in text.lines().filter_map(|l| l.strip_prefix("ok ")) {
            // A record sent again after a lost connection, whose first write had committed, is told the stored id.
            let told: Value = crate::common::checked(&["finops", "carbon", "record"], told.as_bytes());
            let (run, id) = (told["run_id"].as_str().unwrap(), told["id"].to_string());
            assert_eq!(stored.get(run), Some(&id.as_str()), "{run}: exa told its writer id {id}");
            ok += 1;
        }
        failed += text.lines().filter(|l| *l == "failed").count();
    }
    assert_eq!(ok + failed, 320);
    let rows: usize = pg.value("restart", "SELECT count(*) FROM exa_records").parse().unwrap();
    assert_eq!(rows, ok, "every record its writer was told was stored is there once, and no other ({failed} failed)");
    assert_eq!(
        pg.value("restart", "SELECT count(*) FROM exa_records r LEFT JOIN exa_estimates e ON e.record_id = r.id WHERE e.record_id IS NULL"),
        "0",
        "none half-written"
    );
}

#[test]
fn migrations_newer_schemas_and_databases_that_are_not_exas() {
    let pg = PgServer::start();
    let url = pg.database("schema");
    let env = Env::new().env("EXAMLOPS_DB", &url);
    let m = env.json::<Value>(&["db", "migrate"]);
    assert_eq!(m["schema_version"], exa::store::postgres::SCHEMA_VERSION);
    assert!(!m["db"].as_str().unwrap().contains(PASSWORD));
    env.json::<Value>(&["finops", "carbon", "record", "OLD", "--gpu-hours", "1"]);
    // Back to the previous version, as the first release left it: its index gone, its version 1.
    assert!(pg
        .psql(
            "schema",
            "DROP TRIGGER exa_records_cells ON exa_records; DROP FUNCTION exa_cells_on_insert(), exa_cells_rebuild(), \
             exa_cell_recount(text, bigint, text, text, text), exa_day(bigint), \
             exa_cells_refresh(text[], text[], bigint[], text[], text[], text[]); DROP TABLE exa_report_cells, exa_split_runs, exa_runs; \
             DROP INDEX exa_records_run_id, exa_records_cell; ALTER TABLE exa_records DROP COLUMN cells_kept; DROP TABLE exa_mlflow_outbox; DROP INDEX exa_records_run; ALTER TABLE exa_records DROP COLUMN job_user, DROP COLUMN job_account, DROP COLUMN job_partition; UPDATE exa_meta SET value = '1' WHERE key = 'schema_version'"
        )
        .status
        .success());
    assert_eq!(env.json::<Value>(&["report"])["totals"]["records"]["carbon"], 1, "a reader reads the previous schema as it is");
    assert_eq!(env.json::<Value>(&["db", "migrate"])["schema_version"], exa::store::postgres::SCHEMA_VERSION);
    assert_eq!(pg.value("schema", "SELECT count(*) FROM pg_indexes WHERE indexname = 'exa_records_run'"), "1");
    // The migration made the summary cells from the record already there, and reports read them.
    assert_eq!(pg.value("schema", "SELECT runs || ' ' || carbon || ' ' || model FROM exa_report_cells"), "1 1 OLD");
    assert_eq!(env.json::<Value>(&["report"])["totals"]["records"]["carbon"], 1);
    // From the previous version (5): the batches' count of their cells is made; the cells are as they were.
    assert!(pg
        .psql(
            "schema",
            "DROP FUNCTION exa_cells_refresh(text[], text[], bigint[], text[], text[], text[]); UPDATE exa_meta SET value = '5' WHERE key = 'schema_version'"
        )
        .status
        .success());
    assert_eq!(env.json::<Value>(&["db", "migrate"])["schema_version"], exa::store::postgres::SCHEMA_VERSION);
    assert_eq!(pg.value("schema", "SELECT count(*) FROM pg_proc WHERE proname = 'exa_cells_refresh'"), "1");
    assert_eq!(pg.value("schema", "SELECT runs || ' ' || carbon || ' ' || model FROM exa_report_cells"), "1 1 OLD");
    // The records' key constraint carries the schema's version, whatever it was named before (6 left it as
    // PostgreSQL named it); a record finds the previous version and migrates it first.
    let key = format!("exa_records_key_v{}", exa::store::postgres::SCHEMA_VERSION);
    let named = |name: &str| pg.value("schema", &format!("SELECT count(*) FROM pg_constraint WHERE conname = '{name}' AND contype = 'u'"));
    assert_eq!(named(&key), "1");
    assert!(pg
        .psql(
            "schema",
            &format!("ALTER TABLE exa_records RENAME CONSTRAINT {key} TO exa_records_idem_key_key; UPDATE exa_meta SET value = '6' WHERE key = 'schema_version'")
        )
        .status
        .success());
    env.json::<Value>(&["finops", "carbon", "record", "SIX", "--gpu-hours", "1"]);
    assert_eq!(named(&key), "1");
    assert_eq!(
        pg.value("schema", "SELECT value FROM exa_meta WHERE key = 'schema_version'"),
        exa::store::postgres::SCHEMA_VERSION.to_string()
    );
    assert_eq!(pg.value("schema", "SELECT count(*) FROM exa_records"), "2");
    // A newer schema, as a newer exa's migration leaves it (its version in exa_meta and in the key's name):
    // refused, nothing written.
    assert!(pg
        .psql(
            "schema",
            &format!("UPDATE exa_meta SET value = '99' WHERE key = 'schema_version'; ALTER TABLE exa_records RENAME CONSTRAINT {key} TO exa_records_key_v99")
        )
        .status
        .success());
    let out = env.run(&["finops", "carbon", "record", "NEW", "--gpu-hours", "1"]);
    fails(&out, 2, "newer than this exa knows");
    assert_eq!(pg.value("schema", "SELECT count(*) FROM exa_records"), "2");
    let lite = Env::new();
    lite.json::<Value>(&["finops", "carbon", "record", "LOCAL", "--gpu-hours", "1"]);
    let local = lite.dir.path().join("data/examlops/records.sqlite3");
    fails(&lite.run(&["db", "copy", "--from", local.to_str().unwrap(), "--to", &url]), 2, "newer than this exa knows");
    assert_eq!(pg.value("schema", "SELECT count(*) FROM exa_records"), "2");
    // A database whose exa_records is someone else's table.
    pg.database("other");
    assert!(pg.psql("other", "CREATE TABLE exa_records (id int)").status.success());
    let out = Env::new().env("EXAMLOPS_DB", &pg.url("other")).run(&["finops", "carbon", "record", "M", "--gpu-hours", "1"]);
    fails(&out, 2, "not exa's");
}

#[test]
fn errors_name_what_failed_and_never_the_password() {
    let pg = PgServer::start();
    let url = pg.database("auth");
    Env::new().env("EXAMLOPS_DB", &url).json::<Value>(&["db", "migrate"]);
    let wrong = url.replace(PASSWORD, "not-the-password");
    let out = Env::new().env("EXAMLOPS_DB", &wrong).run(&["finops", "carbon", "record", "M", "--gpu-hours", "1"]);
    fails(&out, 1, "authentication failed for user 'exa'");
    assert!(!stderr(&out).contains("not-the-password"), "{}", stderr(&out));
    // The password from PGPASSWORD, then from a pgpass file.
    let bare = format!("postgres://exa@127.0.0.1:{}/auth?sslmode=disable", pg.port);
    let env = Env::new().env("EXAMLOPS_DB", &bare).env("PGPASSWORD", PASSWORD);
    assert!(env.run(&["finops", "carbon", "record", "M", "--gpu-hours", "1"]).status.success());
    let env = Env::new().env("EXAMLOPS_DB", &bare);
    env.file(".pgpass", &format!("# a comment\n127.0.0.1:{}:auth:exa:{PASSWORD}\n", pg.port));
    let out = env.run(&["finops", "carbon", "record", "M", "--gpu-hours", "1"]);
    assert!(out.status.success(), "{}\nthe server's log:\n{}", stderr(&out), pg.log_tail());
    // Nothing there: unreachable, named without the password.
    let gone = format!("postgres://exa:{PASSWORD}@127.0.0.1:9/auth?sslmode=disable");
    let out = Env::new().env("EXAMLOPS_DB", &gone).run(&["report"]);
    fails(&out, 1, "postgres://REDACTED@127.0.0.1:9/auth");
    assert!(!stderr(&out).contains(PASSWORD));
    // A role that may only read: a record is refused, saying so.
    assert!(pg
        .psql("auth", "CREATE ROLE reader LOGIN PASSWORD 'reader-pw-123'; GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader")
        .status
        .success());
    let ro = format!("postgres://reader:reader-pw-123@127.0.0.1:{}/auth?sslmode=disable", pg.port);
    let env = Env::new().env("EXAMLOPS_DB", &ro);
    assert_eq!(env.json::<Value>(&["report"])["totals"]["records"]["carbon"], 2, "a reader reports");
    fails(&env.run(&["finops", "carbon", "record", "M", "--gpu-hours", "1"]), 1, "may not write");
    // The MLflow outbox lives in PostgreSQL too: a log MLflow could not take waits there.
    let env = Env::new().env("EXAMLOPS_DB", &url).env("MLFLOW_TRACKING_URI", "http://127.0.0.1:9");
    let out = env.run(&["finops", "carbon", "record", "M", "--gpu-hours", "1", "--run-id", "r9"]);
    assert!(out.status.success() && stderr(&out).contains("waits in the outbox"), "{}", stderr(&out));
    let synced = env.json::<Value>(&["sync", "mlflow"]);
    assert_eq!((synced["sent"].as_u64(), synced["still_waiting"].as_u64()), (Some(0), Some(1)), "{synced}");
    assert_eq!(pg.value("auth", "SELECT attempts FROM exa_mlflow_outbox"), "2");
    // A bad URL is malformed input.
    fails(&Env::new().env("EXAMLOPS_DB", "postgres://exa@127.0.0.1/x?sslmode=sometimes").run(&["report"]), 2, "sslmode 'sometimes'");
}

#[test]
fn db_copy_moves_a_ledger_both_ways_and_twice_copies_nothing_twice() {
    let pg = PgServer::start();
    let url = pg.database("copy");
    let lite = crate::common::with_h100(Env::new()).env("FAKE_SMI_POWER", "300");
    record_mix(&lite);
    let sqlite = lite.dir.path().join("data/examlops/records.sqlite3");
    let sqlite = sqlite.to_str().unwrap();
    let c = lite.json::<Value>(&["db", "copy", "--from", sqlite, "--to", &url]);
    assert_eq!((c["read"].as_u64(), c["copied"].as_u64(), c["already_there"].as_u64()), (Some(12), Some(12), Some(0)));
    assert!(!c["to"].as_str().unwrap().contains(PASSWORD));
    let again = lite.json::<Value>(&["db", "copy", "--from", sqlite, "--to", &url]);
    assert_eq!((again["copied"].as_u64(), again["already_there"].as_u64()), (Some(0), Some(12)));
    let post = Env::new().env("EXAMLOPS_DB", &url);
    for by in ["model", "run", "day"] {
        same(&report(&lite, &["--by", by]), &report(&post, &["--by", by]), &format!("--by {by}: the same records, the same report"));
    }
    // And back: into a new SQLite file, then into the original, where everything is already.
    let back = lite.dir.path().join("back.sqlite3");
    let c = lite.json::<Value>(&["db", "copy", "--from", &url, "--to", back.to_str().unwrap()]);
    assert_eq!(c["copied"], 12);
    same(&report(&lite, &[]), &report(&Env::new().env("EXAMLOPS_DB", back.to_str().unwrap()), &[]), "copied back");
    let c = lite.json::<Value>(&["db", "copy", "--from", &url, "--to", sqlite]);
    assert_eq!((c["copied"].as_u64(), c["already_there"].as_u64()), (Some(0), Some(12)));
    fails(&lite.run(&["db", "copy", "--from", sqlite, "--to", sqlite]), 2, "the same database");
}

#[test]
fn an_import_of_thousands_of_runs_in_one_transaction_fits_the_servers_lock_table() {
    // A small lock table (10 locks a connection, 20 connections): one lock per run or per cell, held to
    // the end of the import's one transaction, would run out of it ("out of shared memory").
    let pg = PgServer::start_trusting();
    let url = pg.database("bulk");
    pg.restart_with("-c max_connections=20 -c max_locks_per_transaction=10");
    assert_eq!(pg.value("postgres", "SHOW max_locks_per_transaction"), "10");
    let env = Env::new().env("EXAMLOPS_DB", &url).env("TZ", "UTC");
    let sacct = env.dir.path().join("sacct.txt");
    let generator = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/sacct_gen.py");
    let out = std::process::Command::new("python3").arg(generator).arg("3000").output().unwrap();
    assert!(out.status.success());
    std::fs::write(&sacct, out.stdout).unwrap();
    let a = env.json::<Value>(&["import", "slurm", "--file", sacct.to_str().unwrap()]);
    let imported = a["imported"].as_u64().unwrap();
    assert!(imported > 2900, "{a}");
    assert_eq!(pg.value("bulk", "SELECT count(DISTINCT run_id) FROM exa_records"), imported.to_string());
    // Every job's carbon and cost record, counted in the cells as a scan of every record counts them.
    let cells = report(&env, &["--by", "user"]);
    let scan = report(&env, &["--by", "user", "--since", "1970-01-01T00:00:01Z"]);
    assert_eq!(cells["totals"]["runs"].as_u64(), Some(imported));
    for part in ["groups", "totals", "notes"] {
        same(&cells[part], &scan[part], &format!("cells against a scan: {part}"));
    }
}

/// A loopback proxy to the server that, on the first connection whose client sends exa's INSERT, passes
/// the statement on but never the server's answer: it cuts the connection once the answer comes (the
/// record committed, its writer not told). Every later connection passes through whole.
fn losing_the_first_answer(server_port: u16) -> u16 {
    use std::io::{Read, Write};
    use std::net::{TcpListener, TcpStream};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let lost = Arc::new(AtomicBool::new(false));
    std::thread::spawn(move || {
        for client in listener.incoming().flatten() {
            let server = TcpStream::connect(("127.0.0.1", server_port)).unwrap();
            let (mut c_in, mut s_out) = (client.try_clone().unwrap(), server.try_clone().unwrap());
            let (mut s_in, mut c_out) = (server, client);
            let sent_insert = Arc::new(AtomicBool::new(false));
            let (sent, lose) = (sent_insert.clone(), lost.clone());
            std::thread::spawn(move || {
                let mut buf = [0u8; 65536];
                while let Ok(n @ 1..) = c_in.read(&mut buf) {
                    if !lose.load(Ordering::SeqCst) && buf[..n].windows(23).any(|w| w == b"INSERT INTO exa_records") {
                        lose.store(true, Ordering::SeqCst);
                        sent.store(true, Ordering::SeqCst);
                    }
                    if s_out.write_all(&buf[..n]).is_err() {
                        break;
                    }
                }
                let _ = s_out.shutdown(std::net::Shutdown::Both);
            });
            std::thread::spawn(move || {
                let mut buf = [0u8; 65536];
                while let Ok(n @ 1..) = s_in.read(&mut buf) {
                    if sent_insert.load(Ordering::SeqCst) {
                        // The answer to the INSERT: the server has committed; the client never hears it.
                        break;
                    }
                    if c_out.write_all(&buf[..n]).is_err() {
                        break;
                    }
                }
                let _ = c_out.shutdown(std::net::Shutdown::Both);
                let _ = s_in.shutdown(std::net::Shutdown::Both);
            });
        }
    });
    port
}

#[test]
fn a_record_whose_answer_was_lost_is_sent_again_and_told_the_stored_id() {
    let pg = PgServer::start();
    let url = pg.database("lost");
    assert!(Env::new().env("EXAMLOPS_DB", &url).run(&["db", "migrate"]).status.success());
    let proxy = losing_the_first_answer(pg.port);
    let env = Env::new().env("EXAMLOPS_DB", &url.replace(&format!(":{}/", pg.port), &format!(":{proxy}/")));
    let told = env.json::<Value>(&["finops", "carbon", "record", "M", "--gpu-hours", "2", "--run-id", "lost-1"]);
    assert_eq!(pg.value("lost", "SELECT count(*) FROM exa_records"), "1", "written once, though sent twice");
    assert_eq!(told["id"].to_string(), pg.value("lost", "SELECT id FROM exa_records WHERE run_id = 'lost-1'"), "{told}");
    assert_eq!(pg.value("lost", "SELECT runs FROM exa_report_cells"), "1", "counted once in its cell");
}

#[test]
fn a_batch_counts_its_cells_at_its_end_as_a_scan_counts_them_while_single_writers_add_to_them() {
    let pg = PgServer::start_trusting();
    let url = pg.database("batch");
    let post = Env::new().env("EXAMLOPS_DB", &url);
    let rec = |env: &Env, args: &[&str]| {
        let out = env.run(args);
        assert!(out.status.success(), "exa {args:?}: {}", stderr(&out));
    };
    // Already in PostgreSQL: runs r1 and r2 in M1's cell, r3 in M2's.
    for (model, run) in [("M1", "r1"), ("M1", "r2"), ("M2", "r3")] {
        rec(&post, &["finops", "carbon", "record", model, "--gpu-hours", "2", "--run-id", run]);
    }
    // A SQLite ledger to copy in: r1 again in its cell (recorded again), r2 in another model's cell (the run
    // now in two cells: split out), r4 new in M2's cell, r5 in two parts, and 300 runs over four models.
    let lite = Env::new();
    for (model, run, part) in [("M1", "r1", false), ("M3", "r2", false), ("M2", "r4", false), ("M4", "r5", true), ("M4", "r5", true)] {
        let mut args = vec!["finops", "carbon", "record", model, "--gpu-hours", "3", "--run-id", run];
        if part {
            args.push("--part");
        }
        rec(&lite, &args);
    }
    let exa = env!("CARGO_BIN_EXE_exa");
    let script = format!(
        "i=0; while [ $i -lt 300 ]; do '{exa}' finops cost record M$((i % 4)) --gpu-hours 1 --run-id s$i >/dev/null || exit 1; i=$((i+1)); done"
    );
    assert!(lite.cmd_for("sh").args(["-c", &script]).status().unwrap().success());
    let sqlite = lite.dir.path().join("data/examlops/records.sqlite3");
    // While the copy runs, four writers add to the same cells, and to runs the copy brings too.
    let mut writers = Vec::new();
    for w in 0..4 {
        let script = format!(
            "i=0; while [ $i -lt 25 ]; do '{exa}' finops cost record M{w} --cpu-hours 2 --run-id s$((i * 4 + {w})) >/dev/null || exit 1; \
             '{exa}' finops carbon record M{w} --gpu-hours 1 --run-id c{w}-$i >/dev/null || exit 1; i=$((i+1)); done"
        );
        writers.push(post.cmd_for("sh").args(["-c", &script]).env("EXAMLOPS_DB", &url).spawn().unwrap());
    }
    let c = lite.json::<Value>(&["db", "copy", "--from", sqlite.to_str().unwrap(), "--to", &url]);
    assert_eq!(c["copied"].as_u64(), Some(305), "{c}");
    for mut w in writers {
        assert!(w.wait().unwrap().success(), "every writer recorded all of its records");
    }
    assert_eq!(pg.value("batch", "SELECT count(*) FROM exa_records"), "508");
    assert_eq!(pg.value("batch", "SELECT string_agg(run_id, ' ' ORDER BY run_id) FROM exa_split_runs"), "r2");
    // The cells the batch counted (and the writers added to) are what a scan of every record counts, and
    // what the cells made again from every record count.
    let kept = report(&post, &["--by", "model"]);
    let scan = report(&post, &["--by", "model", "--since", "1970-01-01T00:00:01Z"]);
    for part in ["groups", "totals", "notes"] {
        same(&kept[part], &scan[part], &format!("cells against a scan: {part}"));
    }
    let t = &kept["totals"];
    // r1..r5, s0..s299 and c0-0..c3-24: 405 runs; r1 and r5 counted once each, the s-runs' two records once each.
    assert_eq!(t["runs"].as_u64(), Some(405), "{t}");
    assert!(pg.psql("batch", "SELECT exa_cells_rebuild()").status.success());
    same(&kept, &report(&post, &["--by", "model"]), "kept against made again");
}

/// A small deterministic generator (no dependency for a test).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

const DAY0: i64 = 1_795_000_000 / 86_400 * 86_400;

/// One generated record: of one of 40 runs (or none), its parts, repeats, measurements and estimates
/// of both domains, a run split over days, models and users one time in eight.
fn generated(g: &mut Lcg, n: usize) -> exa::store::Line {
    use exa::store::columns::{Figure, FigureSet};
    let r = g.next(40);
    let run = (g.next(6) > 0).then(|| format!("run-{r}"));
    let stray = g.next(8) == 0;
    let of_run = |g: &mut Lcg, k: u64| if stray { g.next(k) } else { r % k };
    let (model, day, who) = (of_run(g, 3), of_run(g, 4), of_run(g, 3));
    let carbon = g.next(3) > 0;
    let measured = carbon && g.next(3) == 0;
    let some = |g: &mut Lcg, k: u64, d: f64| {
        let v = g.next(k) as f64 / d;
        (g.next(10) > 0).then_some(v)
    };
    let key = format!("gen-{n}");
    let model = ["A", "B", "C"][model as usize].into();
    let part = run.is_some() && g.next(5) == 0;
    let recorded_at = DAY0 + day as i64 * 86_400 + g.next(86_400) as i64;
    let domain = if carbon { "carbon" } else { "cost" }.into();
    let provider = if carbon { ["green-ai-default", "ccf-like"][g.next(2) as usize] } else { "flat-rate" }.into();
    // A measurement that holds no GPU-hours or no CPU-hours now and then: where its run's estimate holds them,
    // the estimate counts.
    let gpu_hours = if measured && g.next(5) == 0 { 0.0 } else { g.next(97) as f64 / 8.0 };
    let cpu_hours = if measured && g.next(3) == 0 { 0.0 } else { g.next(101) as f64 / 16.0 };
    // Drawn in the order the generator always drew them.
    let mut figures = FigureSet::default();
    figures.set(Figure::Kwh, if carbon { some(g, 1000, 7.0) } else { None });
    figures.set(Figure::Co2eG, if carbon { some(g, 100_000, 3.0) } else { None });
    figures.set(Figure::CostUsd, if carbon { None } else { some(g, 10_000, 9.0) });
    figures.set(Figure::Uncertainty, if carbon { some(g, 4, 10.0) } else { None });
    figures.set(Figure::DurationS, measured.then(|| g.next(3600) as f64));
    let device_count = measured.then(|| g.next(8) as i64 + 1);
    figures.set(Figure::MeasuredKwh, if measured { some(g, 1000, 11.0) } else { None });
    let mut labels = exa::model::Labels {
        user: ["ann", "bob"].get(who as usize).map(|u| exa::model::Word::from(*u)),
        account: Some("proj".into()),
        ..exa::model::Labels::default()
    };
    figures.set(Figure::EmbodiedCo2eG, if carbon { some(g, 1000, 13.0) } else { None });
    figures.set(Figure::WaterL, if carbon { some(g, 100, 7.0) } else { None });
    let work = exa::model::Work {
        tokens: some(g, 100_000, 1.0),
        prompt_tokens: some(g, 100_000, 1.0),
        requests: some(g, 1000, 1.0),
        unit: (g.next(4) == 0).then(|| (["images", "pages"][g.next(2) as usize].to_string(), g.next(500) as f64)),
    };
    // A pod's namespace and tags, mostly its run's: a key with a prefix and dots, a value with a quote.
    labels.namespace = ["research", "serving"].get(of_run(g, 3) as usize).map(|n| exa::model::Word::from(*n));
    labels.tags = [
        Some(r#"{"label:app.kubernetes.io/name":"trainer","label:team":"vision"}"#),
        Some(r#"{"annotation:cost-center":"cc-\"42\"","label:team":"nlp"}"#),
        None,
    ][of_run(g, 3) as usize]
        .map(Into::into);
    // The job's part of its node's energy, on a measured carbon record now and then; its remainder below zero now
    // and then (a meter slower than the counters).
    if measured && g.next(2) == 0 {
        let rest = g.next(200) as f64 / 17.0 - 2.0;
        figures.set(Figure::NodeKwh, Some(g.next(1000) as f64 / 9.0 + rest));
        figures.set(Figure::NodeRestKwh, Some(rest));
    }
    let node_policy = figures.get(Figure::NodeKwh).map(|_| ["by measured share", "by allocation"][g.next(2) as usize].into());
    exa::store::Line {
        key,
        model,
        part,
        run_id: run.map(Into::into),
        recorded_at,
        host: "h".into(),
        domain,
        provider,
        provider_kind: "builtin".into(),
        provider_digest: "d".into(),
        gpu_hours,
        cpu_hours,
        figures,
        measured,
        device_count,
        labels,
        work,
        node_policy,
        estimate: "{}".into(),
    }
}

/// The rule that decides which records of a run a report counts (parts summed, a repeat counted once,
/// a measurement over an estimate, each domain's hours kept, a run split over days, models or users)
/// is stated twice: in Rust for SQLite and in SQL for PostgreSQL (docs/records.md). Both stores must
/// count the same generated records alike, by every grouping and filter, written in batches and one by one.
#[test]
fn both_stores_count_generated_runs_alike() {
    use exa::store::report::{By, Filter, Per};
    let pg = PgServer::start();
    let dir = tempfile::tempdir().unwrap();
    let lite = exa::store::Db::Sqlite(dir.path().join("rule.sqlite3"));
    let post = exa::store::Db::parse(&pg.database("rule"), None, None, std::time::Duration::from_secs(30)).unwrap();
    let (mut a, mut b) = (exa::store::open(&lite).unwrap(), exa::store::open(&post).unwrap());
    for seed in [7_u64, 1_000_003] {
        let mut g = Lcg(seed);
        let lines: Vec<exa::store::Line> = (0..600).map(|i| generated(&mut g, seed as usize * 1000 + i)).collect();
        // Batches (an import), then single records (record and measure), each path with its own summary upkeep.
        for chunk in lines[..500].chunks(125) {
            a.write(chunk).unwrap();
            b.write(chunk).unwrap();
        }
        for one in &lines[500..] {
            a.write(std::slice::from_ref(one)).unwrap();
            b.write(std::slice::from_ref(one)).unwrap();
        }
        let filters = [
            Filter::default(),
            Filter { model: Some("B".into()), ..Filter::default() },
            Filter { since: Some(DAY0 + 86_400), until: Some(DAY0 + 3 * 86_400), ..Filter::default() },
            Filter { run: Some("run-3".into()), ..Filter::default() },
            Filter { trend: true, ..Filter::default() },
            // Per unit of work: only the records that count it (the cells cannot answer these).
            Filter { per: Some(Per::Token), ..Filter::default() },
            Filter { per: Some(Per::Unit("images".into())), model: Some("A".into()), ..Filter::default() },
        ];
        let tag = |k: &str| By::Tag(exa::model::tags::key(k).unwrap());
        let tags = [tag("label:team"), tag("label:app.kubernetes.io/name"), tag("annotation:cost-center")];
        for by in [By::Model, By::Run, By::Provider, By::Day, By::User, By::Account, By::Partition, By::Namespace].into_iter().chain(tags) {
            for f in &filters {
                let at = format!("seed {seed}, {by:?}, {f:?}");
                let json = |r: exa::store::report::Report| {
                    let mut v = serde_json::to_value(r).unwrap();
                    v.as_object_mut().unwrap().remove("db");
                    v
                };
                let (ra, rb) = (a.report(by, f.clone()).unwrap(), b.report(by, f.clone()).unwrap());
                // Units are in JSON only per unit (`--per`): compared here.
                let units = |r: &exa::store::report::Report| r.groups.iter().chain([&r.totals]).map(|g| g.units).collect::<Vec<_>>();
                let (ua, ub) = (units(&ra), units(&rb));
                assert!(
                    ua.iter().zip(&ub).all(|(x, y)| x.zip(*y).map_or(x.is_none() && y.is_none(), |(x, y)| (x - y).abs() < 1e-9)),
                    "{at}: units"
                );
                if by == tags[0] && f.model.is_none() && f.run.is_none() && f.per.is_none() {
                    let keys: Vec<&str> = ra.groups.iter().map(|g| g.key.as_str()).collect();
                    assert_eq!(keys, ["(none)", "nlp", "vision"], "{at}");
                }
                let (x, y) = (json(ra), json(rb));
                assert!(
                    x["totals"]["records"]["carbon"].as_u64().unwrap() + x["totals"]["records"]["cost"].as_u64().unwrap() > 0
                        || f.run.is_some(),
                    "{at}: the filter selects records"
                );
                same(&x, &y, &at);
            }
        }
    }
}
