//! The PostgreSQL ledger: a stalled server, passwords never shown, writers through a restart.

use crate::common::{fails, stderr, stdout, Env};
use crate::pg::{PgServer, PASSWORD};
use serde_json::Value;
use std::net::TcpListener;
use std::process::{Child, Stdio};
use std::time::Duration;

use crate::support::doors::{stalling_proxy, walk, within};

#[test]
fn a_postgres_server_that_stalls_costs_a_deadline_never_a_hang() {
    let pg = PgServer::start();
    pg.database("stall");
    let proxy = stalling_proxy(pg.port);
    let url = format!("postgres://exa:{PASSWORD}@127.0.0.1:{proxy}/stall?sslmode=disable");
    let env = Env::new().env("EXAMLOPS_DB", &url).env("EXAMLOPS_DB_TIMEOUT", "1");
    for args in [&["report"][..], &["finops", "carbon", "record", "M", "--gpu-hours", "1"]] {
        let mut c = env.cmd();
        c.args(args);
        let out = within(c, Duration::from_secs(30));
        fails(&out, 1, &format!("127.0.0.1:{proxy}/stall"));
        assert!(stderr(&out).contains("did not answer within 1 s"), "{args:?}: {}", stderr(&out));
        assert!(!stderr(&out).contains(PASSWORD));
    }
    // measure --record: the job ran, its report is written, the failure is said, and nothing hangs.
    let report = env.dir.path().join("m.json");
    let mut c = env.cmd();
    let args = ["-o", "json", "finops", "measure", "--report", report.to_str().unwrap(), "--record", "M", "--", "true"];
    c.args(args);
    let out = within(c, Duration::from_secs(40));
    let r: Value = crate::common::checked(&args, &std::fs::read(&report).unwrap());
    assert!(r["record_error"].as_str().unwrap_or("").contains("did not answer"), "{r}\n{}", stderr(&out));
    // A server that accepts and never speaks: the connection's own deadline (libpq's connect_timeout).
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let dead = format!("postgres://exa@127.0.0.1:{}/x?sslmode=disable&connect_timeout=1", silent.local_addr().unwrap().port());
    let bare = Env::new().env("EXAMLOPS_DB", &dead);
    let mut c = bare.cmd();
    c.arg("report");
    let out = within(c, Duration::from_secs(20));
    fails(&out, 1, "did not let exa connect within 1 s");
    drop(silent);
}

#[test]
fn ledger_passwords_are_never_shown_and_never_file_names() {
    let env = Env::new();
    let secrets = ["q-secret-1", "at@secret-2", "kw-secret-3", "upper-secret-4", "slash/secret?5"];
    let locations = [
        "postgres://exa@127.0.0.1:9/x?sslmode=disable&password=q-secret-1".to_string(),
        "postgres://exa:at@secret-2@127.0.0.1:9/x?sslmode=disable".to_string(),
        "host=127.0.0.1 port=9 dbname=x user=exa password=kw-secret-3 sslmode=disable".to_string(),
        "POSTGRES://exa:upper-secret-4@127.0.0.1:9/x?sslmode=disable".to_string(),
        "postgresql://exa:slash/secret?5@127.0.0.1:9/x?sslmode=disable".to_string(),
    ];
    for (i, db) in locations.iter().enumerate() {
        // A writer waits a moment for a server that refuses (it may be restarting): one writer is enough here.
        let record: &[&str] = if i == 0 { &["finops", "carbon", "record", "M", "--gpu-hours", "1"] } else { &["report"] };
        for args in [&["report"][..], &["-o", "json", "report"], record] {
            let out = env.cmd().args(args).env("EXAMLOPS_DB", db).output().unwrap();
            let all = format!("{}{}", stdout(&out), stderr(&out));
            assert_eq!(out.status.code(), Some(1), "{db} {args:?}: {all}");
            for s in secrets {
                assert!(!all.contains(s), "{s} shown for {db}: {all}");
            }
            assert!(all.contains("127.0.0.1"), "{db}: the server is named: {all}");
        }
    }
    // Nothing was taken for a SQLite file: no file named after any of them, anywhere under the home.
    let made: Vec<String> =
        walk(env.dir.path()).into_iter().filter(|p| secrets.iter().any(|s| p.contains(s.split('/').next().unwrap()))).collect();
    assert!(made.is_empty(), "files made from a database location: {made:?}");
    // Another scheme is refused, never a file.
    let out = env.cmd().args(["report"]).env("EXAMLOPS_DB", "mysql://u:p@h/db").output().unwrap();
    fails(&out, 2, "not a ledger");
    // A real server: what record and report say of it carries no password, from the query or the user info.
    let pg = PgServer::start();
    pg.database("shown");
    let url = format!("postgres://exa@127.0.0.1:{}/shown?sslmode=disable&password={PASSWORD}", pg.port);
    let env = Env::new().env("EXAMLOPS_DB", &url);
    let out = env.run(&["finops", "carbon", "record", "M", "--gpu-hours", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report = env.run(&["-o", "json", "report"]);
    for o in [&out, &report] {
        let all = format!("{}{}", stdout(o), stderr(o));
        assert!(!all.contains(PASSWORD) && all.contains("password=REDACTED"), "{all}");
    }
    let kw = format!("host=127.0.0.1 port={} dbname=shown user=exa password={PASSWORD} sslmode=disable", pg.port);
    let args = ["-o", "json", "report"];
    let out = Env::new().env("EXAMLOPS_DB", &kw).run(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let db: Value = crate::common::answer(&args, &out);
    assert_eq!(db["db"], format!("host=127.0.0.1 port={} dbname=shown user=exa", pg.port));
    assert_eq!(db["totals"]["runs"], 1);
}

#[test]
fn writers_during_a_postgres_restart_wait_for_it() {
    let pg = PgServer::start_trusting();
    let url = pg.database("restart");
    let env = Env::new().env("EXAMLOPS_DB", &url);
    env.json::<Value>(&["db", "migrate"]);
    // Writers start every 40 ms while the server restarts beside them (pg_ctl restart: a fast stop, a start).
    let writers: Vec<Child> = std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(Duration::from_millis(150));
            pg.restart();
        });
        (0..24)
            .map(|i| {
                std::thread::sleep(Duration::from_millis(40));
                env.cmd()
                    .args(["finops", "carbon", "record", "M", "--gpu-hours", "1", "--run-id", &format!("w{i}")])
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect()
    });
    for w in writers {
        let out = w.wait_with_output().unwrap();
        assert!(out.status.success(), "a writer during the restart: {}", String::from_utf8_lossy(&out.stderr));
    }
    assert_eq!(pg.value("restart", "SELECT count(*) FROM exa_records"), "24");
}
