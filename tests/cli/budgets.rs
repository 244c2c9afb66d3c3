//! Budgets: kept in the ledger with who and when, their use counted as `report` counts it, forecast by hand, and
//! checked with the exit codes a gate reads (0 within, 1 past a warn line, 3 over, 2 malformed).

use crate::common::{fails, stdout, Env};
use crate::contract::{self, BudgetCheck, BudgetDone, BudgetList, BudgetStatus};

/// Five jobs by the default providers (400 W a GPU, PUE 1.5, 300 gCO2e/kWh; 2.5 USD a GPU-hour): 10 GPU-hours are
/// 6 kWh, 1.8 kgCO2e and 25 USD.
/// 1 ann/ml 40 GPU-h ending 11-02; 2 bob/ml 40 GPU-h ending 11-09; 3 cy/bio 80 GPU-h ending 11-10;
/// 4 ann/ml 10 GPU-h ending 11-12; 5 ann/ml 10 GPU-h ending 10-30 (the month before, the same quarter).
pub const SACCT: &str = "JobID|JobIDRaw|JobName|User|Account|Partition|State|Start|End|ElapsedRaw|CPUTimeRAW|AllocTRES
1|1|a|ann|ml|gpu|COMPLETED|2026-11-02T00:00:00|2026-11-02T10:00:00|36000|0|gres/gpu=4
2|2|b|bob|ml|gpu|COMPLETED|2026-11-09T00:00:00|2026-11-09T10:00:00|36000|0|gres/gpu=4
3|3|c|cy|bio|gpu|COMPLETED|2026-11-10T00:00:00|2026-11-10T10:00:00|36000|0|gres/gpu=8
4|4|d|ann|ml|gpu|COMPLETED|2026-11-12T00:00:00|2026-11-12T05:00:00|18000|0|gres/gpu=2
5|5|e|ann|ml|gpu|COMPLETED|2026-10-30T00:00:00|2026-10-30T05:00:00|18000|0|gres/gpu=2
";

/// The jobs imported and three budgets set, in the env's ledger.
pub fn ledger(env: &Env) {
    let file = env.file("sacct.txt", SACCT);
    let imported: serde_json::Value = env.json(&["import", "slurm", "--file", file.to_str().unwrap(), "--cluster", "c1"]);
    assert_eq!(imported["imported"], 5, "{imported}");
    for args in [
        &["ml-month", "--scope", "account=ml", "--period", "month", "--kwh", "80", "--usd", "1000", "--warn", "50,90"][..],
        &["ann-week", "--scope", "user=ann", "--period", "week", "--kgco2e", "5"],
        &["all-q", "--scope", "all", "--period", "quarter", "--kgco2e", "100"],
    ] {
        let done: BudgetDone = env.json(&[&["budget", "set"], args].concat());
        assert_eq!(done.action, "set");
    }
}

fn status(env: &Env, at: &str) -> BudgetStatus {
    env.json(&["budget", "status", "--at", at])
}

/// Runs `budget check` (whatever it exits), checks its answer against the contract, and gives it with the exit code.
fn check(env: &Env, args: &[&str]) -> (BudgetCheck, i32) {
    let all = [&["-o", "json", "budget", "check"], args].concat();
    let out = env.run(&all);
    contract::check(&all, &out.stdout);
    (serde_json::from_slice(&out.stdout).unwrap(), out.status.code().unwrap())
}

#[test]
fn budgets_are_kept_replaced_and_removed_with_who_and_when() {
    let env = Env::new();
    ledger(&env);
    let done: BudgetDone = env.json(&["budget", "set", "ml-month", "--scope", "account=ml", "--period", "month", "--kwh", "90"]);
    assert_eq!((done.action.as_str(), done.budget.as_ref().and_then(|b| b.kwh)), ("replaced", Some(90.0)));
    assert_eq!(done.budget.as_ref().map(|b| b.warn.clone()), Some(vec![80.0, 95.0]), "the default warn lines");
    assert!(done.by.contains('@'), "who made it: user@host, {}", done.by);
    let removed: BudgetDone = env.json(&["budget", "rm", "ann-week"]);
    assert_eq!((removed.action.as_str(), removed.budget), ("removed", None));
    let list: BudgetList = env.json(&["budget", "list"]);
    let names: Vec<&str> = list.budgets.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["all-q", "ml-month"]);
    assert_eq!((list.budgets[1].kwh, list.budgets[1].usd), (Some(90.0), None), "the newest terms, whole");
    assert!(list.changes.is_none());
    // Every change stays, in order, with who and when.
    let history: BudgetList = env.json(&["budget", "list", "--history"]);
    let changes: Vec<(String, String)> = history.changes.unwrap().into_iter().map(|c| (c.name, c.action)).collect();
    let want = [("ml-month", "set"), ("ann-week", "set"), ("all-q", "set"), ("ml-month", "replaced"), ("ann-week", "removed")];
    assert_eq!(changes, want.map(|(n, a)| (n.to_string(), a.to_string())));
    // The ledger refuses to change or forget a change, whoever asks.
    let db = rusqlite::Connection::open(env.dir.path().join("data/examlops/records.sqlite3")).unwrap();
    for sql in ["UPDATE budget_changes SET budget = NULL", "DELETE FROM budget_changes"] {
        assert!(db.execute(sql, []).unwrap_err().to_string().contains("append-only"), "{sql}");
    }
    // A table says the same.
    assert!(stdout(&env.run(&["budget", "list"])).contains("90.00 kWh"), "{}", stdout(&env.run(&["budget", "list"])));
}

#[test]
fn malformed_budgets_exit_2_and_unknown_names_1_with_nothing_written() {
    let env = Env::new();
    let set = |args: &[&str]| env.run(&[&["budget", "set", "b"], args].concat());
    let month = ["--scope", "account=ml", "--period", "month"];
    fails(&set(&month), 2, "a budget needs a limit: --kwh, --kgco2e or --usd");
    fails(&set(&[&month[..], &["--kwh", "0"]].concat()), 2, "--kwh 0 is not a limit");
    fails(&set(&[&month[..], &["--kwh", "-5"]].concat()), 2, "--kwh");
    fails(&set(&[&month[..], &["--kwh", "1e300"]].concat()), 2, "--kwh 1e300 is not a limit");
    fails(&set(&[&month[..], &["--kwh", "5e-324"]].concat()), 2, "--kwh 5e-324 is not a limit: a number from 1e-9");
    fails(&env.run(&["budget", "check", "--scope", "all", "--add-gpu-hours", "1e308"]), 2, "more work than a check adds");
    fails(&set(&[&month[..], &["--kwh", "1", "--warn", "100"]].concat()), 2, "below 100");
    fails(&set(&[&month[..], &["--kwh", "1", "--warn", "90,80"]].concat()), 2, "must ascend");
    fails(&set(&["--scope", "acct=ml", "--period", "month", "--kwh", "1"]), 2, "'acct' is not a kind of scope");
    fails(&set(&["--scope", "label:te'am=x", "--period", "month", "--kwh", "1"]), 2, "not a Kubernetes label key");
    fails(&set(&["--scope", "all", "--period", "fortnight", "--kwh", "1"]), 2, "fortnight");
    fails(&env.run(&["budget", "set", "a b", "--scope", "all", "--period", "day", "--kwh", "1"]), 2, "'a b' is not a budget name");
    fails(&env.run(&["budget", "check"]), 2, "<NAME|--scope <SCOPE>>");
    fails(&env.run(&["budget", "check", "--scope", "all", "--add-gpu-hours", "-1"]), 2, "--add-gpu-hours");
    fails(&env.run(&["budget", "status", "--at", "yesterday"]), 2, "--at");
    fails(&env.run(&["budget", "rm", "nope"]), 1, "no budget named 'nope'");
    fails(&env.run(&["budget", "status", "nope"]), 1, "no budget named 'nope'");
    fails(&env.run(&["budget", "check", "nope"]), 1, "no ledger there, so no budget to check");
    let list: BudgetList = env.json(&["budget", "list", "--history"]);
    assert!(list.budgets.is_empty() && list.changes.unwrap().is_empty(), "nothing was written");
}

/// Used, left and percent as `report` counts them; each forecast by hand; a new period starts from nothing.
#[test]
fn status_counts_as_report_counts_and_forecasts_both_paces() {
    let env = Env::new();
    ledger(&env);
    let s = status(&env, "2026-11-15T00:00:00Z");
    let names: Vec<&str> = s.budgets.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["all-q", "ann-week", "ml-month"]);
    let ml = &s.budgets[2];
    assert_eq!((ml.period_start.as_str(), ml.period_end.as_str(), ml.runs), ("2026-11-01T00:00:00Z", "2026-12-01T00:00:00Z", 3));
    let (kwh, usd) = (&ml.units[0], &ml.units[1]);
    // Jobs 1, 2 and 4: 90 GPU-hours, 54 kWh and 225 USD; job 3 is another account's, job 5 October's.
    assert_eq!((kwh.unit.as_str(), kwh.used, kwh.left, kwh.percent), ("kwh", 54.0, 26.0, 67.5));
    assert_eq!((kwh.state.as_str(), kwh.line), ("warn", Some(50.0)));
    assert_eq!((usd.used, usd.percent, usd.state.as_str()), (225.0, 22.5, "ok"));
    assert_eq!(ml.state, "warn");
    // The period's pace: 54 kWh over 14 days; 16 days left; 26 kWh last 6.74 days, to 11-21 17:46:40.
    let p = kwh.period_pace.as_ref().unwrap();
    crate::common::close(p.per_day, 54.0 / 14.0);
    crate::common::close(p.at_period_end, 54.0 + 54.0 / 14.0 * 16.0);
    assert_eq!(p.runs_out.as_deref(), Some("2026-11-21T17:46:40Z"));
    // The last 7 days' (from 11-08): jobs 2 and 4, 30 kWh, 30/7 a day; 26 kWh last 6 d 1 h 36 min.
    let w = kwh.last_7_days_pace.as_ref().unwrap();
    crate::common::close(w.per_day, 30.0 / 7.0);
    assert_eq!(w.runs_out.as_deref(), Some("2026-11-21T01:36:00Z"));
    assert_eq!(usd.period_pace.as_ref().unwrap().runs_out, None, "USD lasts the month at its pace");
    // The same figure `report` gives for the account over the same time.
    let report: serde_json::Value = env.json(&["report", "--by", "account", "--since", "2026-11-01", "--until", "2026-11-14"]);
    let group = report["groups"].as_array().unwrap().iter().find(|g| g["key"] == "ml").unwrap().clone();
    assert_eq!((group["kwh"].as_f64(), group["cost_usd"].as_f64()), (Some(54.0), Some(225.0)));
    // ann's week (from Monday 11-09): job 4 alone, 1.8 of 5 kg; the quarter: every job, 32.4 kg.
    assert_eq!((s.budgets[1].period_start.as_str(), s.budgets[1].units[0].used), ("2026-11-09T00:00:00Z", 1.8));
    assert_eq!(s.budgets[0].units[0].used, 32.4);
    // The month's last hour, then December's first: a new allowance; the last 7 days' pace still sees November.
    assert_eq!(status(&env, "2026-11-30T23:00:00Z").budgets[2].units[0].used, 54.0);
    let dec = status(&env, "2026-12-01T01:00:00Z");
    assert_eq!((dec.budgets[2].units[0].used, dec.budgets[2].state.as_str()), (0.0, "ok"));
    assert_eq!(dec.budgets[2].period_start, "2026-12-01T00:00:00Z");
    // One budget by name, and a table that says the state.
    let one: BudgetStatus = env.json(&["budget", "status", "ml-month", "--at", "2026-11-15T00:00:00Z"]);
    assert_eq!(one.budgets, s.budgets[2..]);
    let table = stdout(&env.run(&["budget", "status", "ml-month", "--at", "2026-11-15T00:00:00Z"]));
    assert!(table.contains("warn") && table.contains("54.000") && table.contains("2026-11-21"), "{table}");
}

#[test]
fn check_exits_0_within_1_past_a_line_3_over_and_says_by_how_much() {
    let env = Env::new();
    ledger(&env);
    let at = ["--at", "2026-11-15T00:00:00Z"];
    let ml = |more: &[&str]| check(&env, &[&["--scope", "account=ml"], &at[..], more].concat());
    let (c, code) = ml(&[]);
    assert_eq!((c.verdict.as_str(), code, c.exit_code), ("warn", 1, 1));
    assert_eq!(c.message, "warn: budget 'ml-month' (account=ml, month) at 54 of 80 kWh, 68 %, past its 50 % line: 26 kWh left");
    // 10 GPU-hours more: 6 kWh, 1.8 kg, 25 USD by the default providers; still past 50 %, not over.
    let (c, code) = ml(&["--add-gpu-hours", "10"]);
    let added = c.added.unwrap();
    assert_eq!((added.kwh, added.kgco2e, added.usd, added.carbon_provider.as_str()), (6.0, 1.8, 25.0, "green-ai-default"));
    assert_eq!((c.budgets[0].units[0].after, code), (60.0, 1));
    // 50 more: 84 of 80 kWh.
    let (c, code) = ml(&["--add-gpu-hours", "50"]);
    assert_eq!((c.verdict.as_str(), code), ("over", 3));
    assert_eq!(c.message, "over: budget 'ml-month' (account=ml, month) at 84 of 80 kWh, 105 %: 4 kWh over");
    assert_eq!((c.budgets[0].units[1].unit.as_str(), c.budgets[0].units[1].state.as_str()), ("usd", "ok"));
    // Advice only: the same verdict, exit 0.
    let (c, code) = ml(&["--add-gpu-hours", "50", "--advise-only"]);
    assert_eq!((c.verdict.as_str(), c.exit_code, code), ("over", 0, 0));
    // A job's account and user: both budgets, the worse verdict; by name, the one.
    let (c, code) = check(&env, &[&["--scope", "account=ml", "--scope", "user=ann"], &at[..]].concat());
    assert_eq!((c.budgets.len(), code), (2, 1));
    let (c, code) = check(&env, &[&["ann-week"], &at[..]].concat());
    assert_eq!((c.budgets.len(), c.verdict.as_str(), code), (1, "within", 0));
    // No budget covers the scope: nothing holds it back.
    let (c, code) = check(&env, &["--scope", "account=bio"]);
    assert_eq!((c.message.as_str(), code), ("within: no budget covers account=bio", 0));
    // A table prints the one line.
    let out = env.run(&[&["budget", "check", "--scope", "account=ml", "--add-gpu-hours", "50"], &at[..]].concat());
    assert_eq!(out.status.code(), Some(3));
    assert!(stdout(&out).starts_with("over: budget 'ml-month'"), "{}", stdout(&out));
}

/// The same budgets in a PostgreSQL ledger answer as in SQLite: status, check and the history.
#[test]
fn budgets_in_postgresql_answer_as_in_sqlite() {
    let pg = crate::pg::PgServer::start();
    let lite = Env::new();
    let post = Env::new().env("EXAMLOPS_DB", &pg.database("budgets"));
    for env in [&lite, &post] {
        ledger(env);
        let _: BudgetDone = env.json(&["budget", "set", "ann-week", "--scope", "user=ann", "--period", "week", "--kgco2e", "1"]);
        let _: BudgetDone = env.json(&["budget", "rm", "all-q"]);
    }
    for at in ["2026-11-03T12:00:00Z", "2026-11-15T00:00:00Z", "2026-12-01T01:00:00Z"] {
        assert_eq!(status(&lite, at).budgets, status(&post, at).budgets, "status at {at}");
        for scope in ["account=ml", "user=ann"] {
            let args = ["--scope", scope, "--at", at, "--add-gpu-hours", "4"];
            let ((a, x), (b, y)) = (check(&lite, &args), check(&post, &args));
            assert_eq!((a.budgets, a.message, x), (b.budgets, b.message, y), "check {scope} at {at}");
        }
    }
    let terms = |env: &Env| {
        let l: BudgetList = env.json(&["budget", "list", "--history"]);
        let changes: Vec<(String, String)> = l.changes.unwrap().into_iter().map(|c| (c.name, c.action)).collect();
        (l.budgets.into_iter().map(|b| (b.name, b.scope, b.kwh, b.kgco2e, b.usd, b.warn)).collect::<Vec<_>>(), changes)
    };
    assert_eq!(terms(&lite), terms(&post));
    // Over in both: ann's week at 11-15 has 1.8 kg of 1.
    assert_eq!(check(&post, &["ann-week", "--at", "2026-11-15T00:00:00Z"]).1, 3);
    // Events kept in PostgreSQL as in SQLite: ml's 50 % line and ann's 100 % sent (her 80 and 95 % passed over), once.
    let hook = crate::http::Server::start(crate::http::json("{}".into()));
    for env in [&lite, &post] {
        env.config(&format!("finops:\n  budgets:\n    webhook: {{url: '{}', secret_env: EXA_HMAC}}\n", hook.url("/")));
        let notify = || -> crate::contract::BudgetNotified {
            let out =
                env.cmd().env("EXA_HMAC", "k").args(["-o", "json", "budget", "notify", "--at", "2026-11-15T00:00:00Z"]).output().unwrap();
            assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
            serde_json::from_slice(&out.stdout).unwrap()
        };
        let first = notify();
        let mut outcomes: Vec<&str> = first.events.iter().map(|e| e.outcome.as_str()).collect();
        outcomes.sort_unstable();
        assert_eq!((first.sent, outcomes), (2, vec!["passed", "passed", "sent", "sent"]));
        assert_eq!((notify().sent, notify().events.len()), (0, 0));
    }
    assert_eq!(hook.bodies().len(), 4);
}

/// An agent reads the budgets as the CLI shows them; it cannot name a path for one.
#[test]
fn finops_budget_status_answers_as_the_cli() {
    let env = Env::new();
    ledger(&env);
    let calls = serde_json::json!([
        {"name": "finops_budget_status", "arguments": {"at": "2026-11-15T00:00:00Z"}},
        {"name": "finops_budget_status", "arguments": {"name": "ml-month", "at": "2026-11-15"}},
        {"name": "finops_budget_status", "arguments": {"name": "../etc/passwd"}},
        {"name": "finops_budget_status", "arguments": {"name": "nope"}}
    ]);
    let out = crate::mcp::stdio(&env, calls);
    let r = out["results"].as_array().unwrap();
    let cli: serde_json::Value = env.json(&["budget", "status", "--at", "2026-11-15T00:00:00Z"]);
    assert_eq!(r[0]["structured"], cli, "{}", r[0]);
    assert_eq!(r[1]["structured"]["budgets"], serde_json::json!([cli["budgets"][2]]));
    assert!(r[0]["text"].as_str().unwrap().contains("ml-month"), "{}", r[0]["text"]);
    for (i, code) in [(2, "bad-request"), (3, "refused")] {
        assert_eq!((r[i]["is_error"].as_bool(), r[i]["structured"]["error"]["code"].as_str()), (Some(true), Some(code)), "{}", r[i]);
    }
    let tool = out["tools"].as_array().unwrap().iter().find(|t| t["name"] == "finops_budget_status").unwrap().clone();
    assert_eq!(tool["annotations"]["readOnlyHint"], true);
}

/// A real Alertmanager on loopback, stopped when dropped (or when the test process ends).
struct Alertmanager {
    child: std::process::Child,
    addr: String,
    _dir: tempfile::TempDir,
}

impl Alertmanager {
    fn start() -> Alertmanager {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("am.yml");
        std::fs::write(&config, "route: {receiver: none}\nreceivers: [{name: none}]\n").unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let addr = format!("127.0.0.1:{port}");
        let script = format!(
            "timeout 600 prometheus-alertmanager --config.file={} --storage.path={} --web.listen-address={addr} \
             --cluster.listen-address= & p=$!; \
             while kill -0 {parent} 2>/dev/null && kill -0 $p 2>/dev/null; do sleep 1; done; kill $p 2>/dev/null; wait $p",
            config.display(),
            dir.path().join("data").display(),
            parent = std::process::id()
        );
        let child = std::process::Command::new("sh")
            .args(["-c", &script])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("sh runs");
        let am = Alertmanager { child, addr, _dir: dir };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while am.get("/-/ready").is_none_or(|r| !r.contains("OK")) {
            assert!(std::time::Instant::now() < deadline, "the Alertmanager did not start");
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        am
    }

    fn get(&self, path: &str) -> Option<String> {
        use std::io::{Read, Write};
        let mut c = std::net::TcpStream::connect(&self.addr).ok()?;
        write!(c, "GET {path} HTTP/1.0\r\nHost: {}\r\n\r\n", self.addr).ok()?;
        let mut s = String::new();
        c.read_to_string(&mut s).ok()?;
        Some(s)
    }

    /// The alerts it holds, as its API gives them.
    fn alerts(&self) -> serde_json::Value {
        let answer = self.get("/api/v2/alerts").unwrap();
        serde_json::from_str(answer.split_once("\r\n\r\n").unwrap().1).unwrap()
    }
}

impl Drop for Alertmanager {
    fn drop(&mut self) {
        let _ = std::process::Command::new("pkill").args(["-f", &format!("web.listen-address={}", self.addr)]).status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The HMAC-SHA256 of `body` under `key`, as the header carries it.
fn signature(key: &[u8], body: &[u8]) -> String {
    let tag = ring::hmac::sign(&ring::hmac::Key::new(ring::hmac::HMAC_SHA256, key), body);
    format!("sha256={}", tag.as_ref().iter().map(|b| format!("{b:02x}")).collect::<String>())
}

/// sacct lines of jobs of GPU-hours that ended at `end` (seconds since the epoch), each `(id, user, account, gpus,
/// hours)`.
fn jobs(end: i64, list: &[(u32, &str, &str, u32, i64)]) -> String {
    let t = |s: i64| exa::time::iso8601(s).trim_end_matches('Z').to_string();
    let mut text = "JobID|JobIDRaw|JobName|User|Account|Partition|State|Start|End|ElapsedRaw|CPUTimeRAW|AllocTRES\n".to_string();
    for (id, user, account, gpus, hours) in list {
        let start = end - hours * 3600;
        text += &format!("{id}|{id}|j|{user}|{account}|gpu|COMPLETED|{}|{}|{}|0|gres/gpu={gpus}\n", t(start), t(end), hours * 3600);
    }
    text
}

/// Each line crossed is sent once to each destination, the webhook's body signed; one that could not be sent is kept
/// and sent by the next run, once; a line crossed with a higher one at once is passed over. This month's, so the
/// Alertmanager holds its alerts (each ends with its period).
#[test]
fn notify_sends_each_crossing_once_signed_and_keeps_what_it_could_not_send() {
    let am = Alertmanager::start();
    let hook = crate::http::Server::start(crate::http::Answer::Body(503, "text/plain", "down".into()));
    let env = Env::new().env("EXA_BUDGET_HMAC", "k3y");
    env.config(&format!(
        "finops:\n  budgets:\n    webhook: {{url: '{}', secret_env: EXA_BUDGET_HMAC, timeout_s: 2}}\n    alertmanager: {{url: 'http://{}'}}\n",
        hook.url("/exa"),
        am.addr
    ));
    // Jobs that ended in this month's first minute (or now, in that minute): 40 GPU-hours are 24 kWh.
    let now = exa::time::now_unix();
    let (month, next) = exa::time::month(now);
    let end = (month + 60).min(now);
    let import = |name: &str, list: &[(u32, &str, &str, u32, i64)]| {
        let file = env.file(name, &jobs(end, list));
        let _: serde_json::Value = env.json(&["import", "slurm", "--file", file.to_str().unwrap(), "--cluster", "c1"]);
    };
    import("a.txt", &[(1, "bob", "ml", 4, 10), (2, "ann", "nlp", 2, 10)]);
    for args in [
        &["ml-month", "--scope", "account=ml", "--period", "month", "--kwh", "40", "--warn", "50,90"][..],
        &["ann-month", "--scope", "user=ann", "--period", "month", "--kgco2e", "5"],
    ] {
        let _: BudgetDone = env.json(&[&["budget", "set"], args].concat());
    }
    let notify = || {
        let all = ["-o", "json", "budget", "notify"];
        let out = env.run(&all);
        contract::check(&all, &out.stdout);
        (serde_json::from_slice::<crate::contract::BudgetNotified>(&out.stdout).unwrap(), out.status.code().unwrap())
    };
    // ml-month at 24 of 40 kWh, 60 %: past its 50 % line (ann's 3.6 of 5 kg is below her 80 %). The webhook is down:
    // the Alertmanager has it, the webhook's event is kept, and the run exits 1.
    let (n, code) = notify();
    assert_eq!((n.sent, n.failed, code), (1, 1, 1), "{:?}", n.events);
    let failed = n.events.iter().find(|e| e.outcome == "failed").unwrap();
    assert_eq!(failed.key, format!("webhook|ml-month|account=ml|{}|kWh|50", exa::time::iso8601(month)));
    assert!(failed.error.as_deref().unwrap().contains("HTTP 503"), "{failed:?}");
    let alerts = am.alerts();
    assert_eq!(alerts.as_array().unwrap().len(), 1, "{alerts}");
    assert_eq!(alerts[0]["labels"]["budget"], "ml-month");
    assert_eq!((alerts[0]["labels"]["line"].as_str(), alerts[0]["labels"]["severity"].as_str()), (Some("50"), Some("warning")));
    assert_eq!(alerts[0]["endsAt"].as_str().unwrap(), exa::time::iso8601(next).replace('Z', ".000Z"));
    // The webhook back up: the kept event is sent, signed; nothing is sent twice to either.
    hook.set(crate::http::json("{}".into()));
    let (n, code) = notify();
    assert_eq!((n.sent, n.failed, code), (1, 0, 0), "{:?}", n.events);
    let (n, code) = notify();
    assert_eq!((n.sent, n.events.len(), code), (0, 0, 0), "a crossing is sent once: {:?}", n.events);
    let (bodies, heads) = (hook.bodies(), hook.requests());
    assert_eq!(bodies.len(), 2, "tried twice, delivered once");
    let sent = serde_json::from_slice::<serde_json::Value>(&bodies[1]).unwrap();
    assert_eq!((sent["budget"].as_str(), sent["line"].as_f64(), sent["percent"].as_f64()), (Some("ml-month"), Some(50.0), Some(60.0)));
    assert!(heads[1].contains(&format!("x-exa-signature-256: {}", signature(b"k3y", &bodies[1]))), "{}", heads[1]);
    assert!(!heads[1].contains(&signature(b"other", &bodies[1])));
    // 10 GPU-hours more for ann: 3.6 + 1.8 = 5.4 of 5 kg, past 80 %, 95 % and 100 % at once: one message each, at
    // 100 %; the lower lines are passed over, never sent.
    import("b.txt", &[(3, "ann", "nlp", 1, 10)]);
    let (n, code) = notify();
    let outcomes: Vec<(String, &str)> =
        n.events.iter().map(|e| (e.key.replace(&exa::time::iso8601(month), "M"), e.outcome.as_str())).collect();
    assert!(outcomes.contains(&("webhook|ann-month|user=ann|M|kgCO2e|100".into(), "sent")), "{outcomes:?}");
    assert!(outcomes.contains(&("alertmanager|ann-month|user=ann|M|kgCO2e|80".into(), "passed")), "{outcomes:?}");
    assert_eq!((n.sent, code), (2, 0), "{outcomes:?}");
    let critical: Vec<serde_json::Value> =
        am.alerts().as_array().unwrap().iter().filter(|a| a["labels"]["severity"] == "critical").cloned().collect();
    assert_eq!((critical.len(), critical[0]["labels"]["budget"].as_str()), (1, Some("ann-month")));
    // A receiver that never answers: the deadline (2 s) ends the try, the event is kept, and sent once when it
    // answers again. 20 GPU-hours more for ml: 36 of 40 kWh, its 90 % line.
    hook.set(crate::http::Answer::Silence);
    import("c.txt", &[(4, "bob", "ml", 2, 10)]);
    let (n, code) = notify();
    assert_eq!((n.sent, n.failed, code), (1, 1, 1), "{:?}", n.events);
    assert!(n.events.iter().any(|e| e.error.as_deref().is_some_and(|e| e.contains("no answer within 2.0 s"))), "{:?}", n.events);
    hook.set(crate::http::json("{}".into()));
    let (n, code) = notify();
    assert_eq!((n.sent, n.failed, code, n.events[0].key.ends_with("kWh|90")), (1, 0, 0, true), "{:?}", n.events);
    // The name given to another scope is another budget: its crossings are sent again. (nlp's 5.4 kg, over.)
    let _: BudgetDone = env.json(&["budget", "set", "ann-month", "--scope", "account=nlp", "--period", "month", "--kgco2e", "5"]);
    let (n, code) = notify();
    assert_eq!((n.sent, code), (2, 0), "{:?}", n.events);
    // The key's variable not set: exit 2, naming it, nothing sent.
    let unset = env.cmd().env("EXA_BUDGET_HMAC", "").args(["budget", "notify"]).output().unwrap();
    fails(&unset, 2, "EXA_BUDGET_HMAC, which is not set");
    assert_eq!(hook.bodies().len(), 6, "ml's 50 % twice (503, then sent), ann's 100 %, ml's 90 % twice (silence, then sent), nlp's");
}

/// `exa gpu serve --budgets` serves each budget's limit, use and forecasts as gauges a Prometheus lints clean,
/// the same figures `budget status` gives.
#[test]
fn the_exporter_serves_the_budgets_as_gauges() {
    let env = crate::common::with_h100(Env::new());
    let now = exa::time::now_unix();
    let (month, next) = exa::time::month(now);
    let file = env.file("jobs.txt", &jobs((month + 60).min(now), &[(1, "bob", "ml", 4, 10)]));
    let _: serde_json::Value = env.json(&["import", "slurm", "--file", file.to_str().unwrap(), "--cluster", "c1"]);
    let _: BudgetDone =
        env.json(&["budget", "set", "ml-month", "--scope", "account=ml", "--period", "month", "--kwh", "40", "--usd", "1000"]);
    let mut exa = crate::telemetry::Running::start(&env, &["gpu", "serve", "--listen", "127.0.0.1:0", "--budgets"]);
    let text = crate::prometheus::http_get(&exa.address(), "/metrics");
    let labels = r#"budget="ml-month",scope="account=ml",period="month""#;
    for line in [
        format!("exa_budget_limit{{{labels},unit=\"kwh\"}} 40.0"),
        format!("exa_budget_used{{{labels},unit=\"kwh\"}} 24.0"),
        format!("exa_budget_used{{{labels},unit=\"usd\"}} 100.0"),
        format!("exa_budget_period_end_seconds{{{labels}}} {next}.0"),
    ] {
        assert!(text.lines().any(|l| l == line), "{line} not in:\n{text}");
    }
    assert!(text.contains(&format!("exa_budget_forecast{{{labels},unit=\"kwh\",pace=\"7d\"}}")), "{text}");
    let lints = crate::telemetry::promtool_lints(&text);
    assert!(lints.iter().all(|l| !l.contains("exa_budget")), "{lints:?}");
    let (code, _, _) = exa.stop();
    assert_eq!(code, 0);
    // A ledger that cannot be read refuses to start: no gauge is ever made up.
    let bad = env.file("not-a-ledger.sqlite3", "text");
    let out = env.run(&["--db", bad.to_str().unwrap(), "gpu", "serve", "--listen", "127.0.0.1:0", "--budgets"]);
    assert_eq!(out.status.code(), Some(2), "{}", crate::common::stderr(&out));
    assert!(crate::common::stderr(&out).contains("is not an exa database"));
    // Nor one that is not there: its budgets are not known to be none.
    let out = env.run(&["--db", "/nonexistent/ledger.sqlite3", "gpu", "serve", "--listen", "127.0.0.1:0", "--budgets"]);
    assert_eq!(out.status.code(), Some(1), "{}", crate::common::stderr(&out));
    assert!(crate::common::stderr(&out).contains("no ledger there"), "{}", crate::common::stderr(&out));
}

/// Two `notify` at once, a slow webhook: each event is sent by one of them, once.
#[test]
fn two_notify_at_once_send_each_event_once() {
    let hook = crate::http::Server::start(crate::http::Answer::Slow(1500, "{}".into()));
    let env = Env::new().env("EXA_HMAC", "k");
    env.config(&format!("finops:\n  budgets:\n    webhook: {{url: '{}', secret_env: EXA_HMAC, timeout_s: 20}}\n", hook.url("/")));
    ledger(&env);
    let run = || {
        let mut c = env.cmd();
        c.args(["-o", "json", "budget", "notify", "--at", "2026-11-15T00:00:00Z"]);
        c.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap()
    };
    let (a, b) = (run(), run());
    for child in [a, b] {
        assert_eq!(child.wait_with_output().unwrap().status.code(), Some(0));
    }
    // ml-month's 50 % line, and ann's week (1.8 of 5 kg) crosses none.
    let bodies = hook.bodies();
    assert_eq!(bodies.len(), 1, "{:?}", bodies.iter().map(|b| String::from_utf8_lossy(b).into_owned()).collect::<Vec<_>>());
}
