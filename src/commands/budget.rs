//! `exa budget`: limits on a team's kWh, kgCO2e and dollars a period, kept in the ledger, watched (`status`, with
//! a forecast of when each runs out) and enforced where work starts (`check`, whose exit code a gate reads).
//!
//! What a scope used is what `exa report` counts for it over the period (`Ledger::report`): measured over
//! estimated, each run once. A budget's changes are appended to the ledger with who made them and when; the budget
//! in effect is a name's newest change.

use serde::Serialize;

use crate::error::Error;
use crate::model::budget::{self, Budget, Change, Period, Scope, Unit};
use crate::model::Domain;
use crate::num::tidy;
use crate::settings::Settings;
pub use crate::store::budget::{bounds, BudgetStatus, Kept, Pace, State, UnitStatus, COUNTING};
use crate::store::budget::{in_effect, index, parse, state_of, status_of, until, used};
use crate::store::{self, Ledger};
use crate::time::serialize_iso;

/// One change, as `list --history` shows it.
#[derive(Debug, Clone, Serialize)]
pub struct Changed {
    pub name: String,
    /// set, replaced or removed.
    pub action: &'static str,
    #[serde(serialize_with = "serialize_iso")]
    pub at: i64,
    pub by: String,
    /// The budget as set; null where it was removed.
    pub budget: Option<Budget>,
}

/// What `set` or `rm` did.
#[derive(Debug, Serialize)]
pub struct Done {
    #[serde(flatten)]
    pub change: Changed,
    pub db: String,
}

/// The budgets in effect, and with `--history` every change.
#[derive(Debug, Serialize)]
pub struct Listed {
    pub budgets: Vec<Kept>,
    /// Every change, oldest first, with --history; null without.
    pub changes: Option<Vec<Changed>>,
    pub db: String,
}

/// `budget status`: every budget's (or one's) use as of `at`.
#[derive(Debug, Serialize)]
pub struct Status {
    #[serde(serialize_with = "serialize_iso")]
    pub at: i64,
    pub budgets: Vec<BudgetStatus>,
    pub counting: &'static str,
    pub db: String,
}

/// Work a check adds: its hours, and what they come to priced as `estimate` prices them.
#[derive(Debug, Serialize)]
pub struct Added {
    pub gpu_hours: f64,
    pub cpu_hours: f64,
    pub kwh: f64,
    pub kgco2e: f64,
    pub usd: f64,
    pub carbon_provider: String,
    pub cost_provider: String,
}

/// One unit of a budget checked: what it used, what the work adds, and the state after it.
#[derive(Debug, Serialize)]
pub struct UnitCheck {
    pub unit: Unit,
    pub limit: f64,
    pub used: f64,
    pub added: f64,
    pub after: f64,
    /// after / limit, percent.
    pub percent: f64,
    pub state: State,
    pub line: Option<f64>,
}

/// A budget checked.
#[derive(Debug, Serialize)]
pub struct BudgetCheck {
    pub name: String,
    pub scope: Scope,
    pub period: Period,
    #[serde(serialize_with = "serialize_iso")]
    pub period_start: i64,
    #[serde(serialize_with = "serialize_iso")]
    pub period_end: i64,
    pub state: State,
    pub units: Vec<UnitCheck>,
}

/// `budget check`: the verdict on the scopes' budgets, with the work to add, and the one line a gate prints.
#[derive(Debug, Serialize)]
pub struct Checked {
    #[serde(serialize_with = "serialize_iso")]
    pub at: i64,
    pub scopes: Vec<Scope>,
    pub added: Option<Added>,
    /// within, warn or over.
    pub verdict: &'static str,
    /// The exit code: 0 within, 1 past a warn line, 3 over; 0 whatever the verdict with --advise-only.
    pub exit_code: u8,
    pub advise_only: bool,
    pub message: String,
    pub budgets: Vec<BudgetCheck>,
    pub db: String,
}

/// Who makes a change: the user (by the system's account, not the environment) and the host.
fn who() -> String {
    let mut pwd: libc::passwd = unsafe { std::mem::zeroed() };
    let mut buf = vec![0u8; 4096];
    let mut found: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: getpwuid_r writes into pwd and buf (of the length given), and sets found to &pwd or null.
    let rc = unsafe { libc::getpwuid_r(libc::getuid(), &mut pwd, buf.as_mut_ptr().cast(), buf.len(), &mut found) };
    let user = if rc == 0 && !found.is_null() && !pwd.pw_name.is_null() {
        // SAFETY: pw_name points into buf, NUL-terminated by getpwuid_r.
        unsafe { std::ffi::CStr::from_ptr(pwd.pw_name) }.to_string_lossy().into_owned()
    } else {
        // SAFETY: getuid cannot fail.
        format!("uid {}", unsafe { libc::getuid() })
    };
    crate::text::clean(&format!("{user}@{}", store::hostname()))
}

fn changed(c: &Change, before: bool) -> Result<Changed, Error> {
    let budget = c.budget.as_deref().map(|j| parse(&c.name, j)).transpose()?;
    let action = match (&budget, before) {
        (None, _) => "removed",
        (Some(_), true) => "replaced",
        (Some(_), false) => "set",
    };
    Ok(Changed { name: c.name.clone(), action, at: c.at, by: c.by.clone(), budget })
}

/// `budget set`: keeps a budget (a new one, or a name's new terms).
pub fn set(settings: &Settings, name: &str, b: Budget) -> Result<Done, Error> {
    budget::check_name(name).map_err(Error::Usage)?;
    b.check().map_err(Error::Usage)?;
    let mut ledger = store::open(&settings.db()?)?;
    let before = in_effect(&ledger.budget_changes()?)?.iter().any(|k| k.name == name);
    let json = serde_json::to_string(&b).map_err(|e| Error::Failed(format!("budget '{name}': {e}")))?;
    let change = Change { name: name.to_string(), at: crate::time::now_unix(), by: who(), budget: Some(json) };
    ledger.budget_change(&change)?;
    Ok(Done { change: changed(&change, before)?, db: ledger.location().0 })
}

/// `budget rm`: ends a budget (its changes are kept).
pub fn rm(settings: &Settings, name: &str) -> Result<Done, Error> {
    budget::check_name(name).map_err(Error::Usage)?;
    // Looked for by a reader first: a name not in effect migrates nothing.
    let Some(mut reader) = store::open_read(&settings.db()?)? else { return Err(no_budget(name)) };
    if !in_effect(&reader.budget_changes()?)?.iter().any(|k| k.name == name) {
        return Err(no_budget(name));
    }
    drop(reader);
    let mut ledger = store::open(&settings.db()?)?;
    let change = Change { name: name.to_string(), at: crate::time::now_unix(), by: who(), budget: None };
    ledger.budget_change(&change)?;
    Ok(Done { change: changed(&change, true)?, db: ledger.location().0 })
}

fn no_budget(name: &str) -> Error {
    Error::Refused(format!("no budget named '{}' is in effect (exa budget list shows them)", crate::text::clean(name)))
}

/// `budget list`: the budgets in effect, and with `history` every change, oldest first.
pub fn list(settings: &Settings, history: bool) -> Result<Listed, Error> {
    let db = settings.db()?;
    let Some(mut ledger) = store::open_read(&db)? else {
        return Ok(Listed { budgets: Vec::new(), changes: history.then(Vec::new), db: db.shown() });
    };
    let changes = ledger.budget_changes()?;
    let all = if history {
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::with_capacity(changes.len());
        for c in &changes {
            let before = if c.budget.is_some() { !seen.insert(c.name.as_str()) } else { seen.remove(c.name.as_str()) };
            out.push(changed(c, before)?);
        }
        Some(out)
    } else {
        None
    };
    Ok(Listed { budgets: in_effect(&changes)?, changes: all, db: ledger.location().0 })
}

/// `budget status`: each budget's use in its period as of `at` (now when not given), with both forecasts.
pub fn status(settings: &Settings, name: Option<&str>, at: Option<i64>) -> Result<Status, Error> {
    if let Some(n) = name {
        budget::check_name(n).map_err(Error::Usage)?;
    }
    let when = at.unwrap_or_else(crate::time::now_unix);
    let db = settings.db()?;
    let Some(mut ledger) = store::open_read(&db)? else {
        return match name {
            Some(n) => Err(no_budget(n)),
            None => Ok(Status { at: when, budgets: Vec::new(), counting: COUNTING, db: db.shown() }),
        };
    };
    let kept: Vec<Kept> = in_effect(&ledger.budget_changes()?)?.into_iter().filter(|k| name.is_none_or(|n| n == k.name)).collect();
    if let (Some(n), true) = (name, kept.is_empty()) {
        return Err(no_budget(n));
    }
    let budgets = kept.iter().map(|k| status_of(ledger.as_mut(), k, when, at)).collect::<Result<_, _>>()?;
    Ok(Status { at: when, budgets, counting: COUNTING, db: ledger.location().0 })
}

/// The most hours of work a check adds: a million GPUs for a thousand hours.
const MOST_HOURS: f64 = 1e9;

/// What a check asks: the budgets (by name, or by scope), the work to add, and as of when.
pub struct Ask<'a> {
    pub name: Option<&'a str>,
    pub scopes: Vec<Scope>,
    pub gpu_hours: f64,
    pub cpu_hours: f64,
    pub at: Option<i64>,
    pub advise_only: bool,
}

/// The work to add, priced by the carbon and cost providers in effect, as `estimate` would price it.
fn added(settings: &Settings, gpu_hours: f64, cpu_hours: f64) -> Result<Added, Error> {
    let carbon = crate::pricing::Pricer::new(settings, Domain::Carbon, None)?;
    let cost = crate::pricing::Pricer::new(settings, Domain::Cost, None)?;
    let c = carbon.price(gpu_hours, cpu_hours, None)?;
    let d = cost.price(gpu_hours, cpu_hours, None)?;
    let out = |e: &crate::model::Estimate, k: &str| e.outputs.get(k).copied().unwrap_or(0.0);
    Ok(Added {
        gpu_hours,
        cpu_hours,
        kwh: out(&c, "kwh"),
        kgco2e: tidy(out(&c, "co2e_g") / 1000.0),
        usd: out(&d, "cost_usd"),
        carbon_provider: carbon.name().to_string(),
        cost_provider: cost.name().to_string(),
    })
}

fn check_one(ledger: &mut dyn Ledger, k: &Kept, at: i64, asked_at: Option<i64>, add: Option<&Added>) -> Result<BudgetCheck, Error> {
    let b = &k.budget;
    let (start, end) = bounds(b.period, at);
    let (now, _) = used(ledger, &b.scope, start, until(asked_at))?;
    let extra = add.map_or([0.0; 3], |a| [a.kwh, a.kgco2e, a.usd]);
    let units: Vec<UnitCheck> = Unit::ALL
        .into_iter()
        .filter_map(|unit| {
            let limit = b.limit(unit)?;
            let (used, added) = (now[index(unit)], extra[index(unit)]);
            let (state, line) = state_of(used + added, limit, &b.warn);
            let (used, added, after) = (tidy(used), tidy(added), tidy(used + added));
            Some(UnitCheck { unit, limit, used, added, after, percent: tidy(crate::store::budget::percent(after, limit)), state, line })
        })
        .collect();
    let state = units.iter().map(|u| u.state).max().unwrap_or(State::Ok);
    Ok(BudgetCheck { name: k.name.clone(), scope: b.scope.clone(), period: b.period, period_start: start, period_end: end, state, units })
}

/// The one line a check prints: the worst unit of the worst budget, and by how much.
fn message(budgets: &[BudgetCheck], scopes: &[Scope]) -> String {
    let worst = budgets.iter().flat_map(|b| b.units.iter().map(move |u| (b, u))).max_by(|x, y| x.1.percent.total_cmp(&y.1.percent));
    let Some((b, u)) = worst else {
        let names: Vec<String> = scopes.iter().map(ToString::to_string).collect();
        return format!("within: no budget covers {}", names.join(", "));
    };
    let unit = u.unit.label();
    let of = format!(
        "budget '{}' ({}, {}) at {} of {} {unit}, {:.0} %",
        b.name,
        b.scope,
        b.period.name(),
        num(u.after),
        num(u.limit),
        u.percent
    );
    match u.state {
        State::Over => format!("over: {of}: {} {unit} over", num(u.after - u.limit)),
        State::Warn => format!("warn: {of}, past its {} % line: {} {unit} left", num(u.line.unwrap_or(0.0)), num(u.limit - u.after)),
        State::Ok => format!("within: {of}: {} {unit} left", num(u.limit - u.after)),
    }
}

/// `budget check`: whether the scopes' budgets (or the one named) hold, with the work to add; the verdict is the
/// worst budget's.
pub fn check(settings: &Settings, ask: &Ask<'_>) -> Result<Checked, Error> {
    if let Some(n) = ask.name {
        budget::check_name(n).map_err(Error::Usage)?;
    }
    for (hours, flag) in [(ask.gpu_hours, "--add-gpu-hours"), (ask.cpu_hours, "--add-cpu-hours")] {
        if hours > MOST_HOURS {
            return Err(Error::Usage(format!("{flag} {hours:e} is more work than a check adds: at most {MOST_HOURS:e} hours")));
        }
    }
    let add = if ask.gpu_hours > 0.0 || ask.cpu_hours > 0.0 { Some(added(settings, ask.gpu_hours, ask.cpu_hours)?) } else { None };
    let when = ask.at.unwrap_or_else(crate::time::now_unix);
    let db = settings.db()?;
    let (budgets, location) = match store::open_read(&db)? {
        // No ledger is not "no budget": a gate that asked the wrong place must hear it.
        None => {
            return Err(Error::Refused(format!(
                "{}: no ledger there, so no budget to check (--db, EXAMLOPS_DB or db.url names the ledger)",
                db.shown()
            )))
        }
        Some(mut ledger) => {
            let kept: Vec<Kept> = in_effect(&ledger.budget_changes()?)?
                .into_iter()
                .filter(|k| ask.name.is_some_and(|n| n == k.name) || ask.scopes.contains(&k.budget.scope))
                .collect();
            if let (Some(n), false) = (ask.name, kept.iter().any(|k| Some(k.name.as_str()) == ask.name)) {
                return Err(no_budget(n));
            }
            let checked: Vec<BudgetCheck> =
                kept.iter().map(|k| check_one(ledger.as_mut(), k, when, ask.at, add.as_ref())).collect::<Result<_, _>>()?;
            (checked, ledger.location().0)
        }
    };
    let worst = budgets.iter().map(|b: &BudgetCheck| b.state).max().unwrap_or(State::Ok);
    let (verdict, code) = match worst {
        State::Ok => ("within", 0),
        State::Warn => ("warn", 1),
        State::Over => ("over", 3),
    };
    let mut scopes = ask.scopes.clone();
    scopes.extend(budgets.iter().filter(|b| !ask.scopes.contains(&b.scope)).map(|b| b.scope.clone()));
    Ok(Checked {
        at: when,
        message: message(&budgets, &scopes),
        scopes,
        added: add,
        verdict,
        exit_code: if ask.advise_only { 0 } else { code },
        advise_only: ask.advise_only,
        budgets,
        db: location,
    })
}

/// A time as `--at` takes it (ISO 8601, or a date: its start), for a status or check as of then.
pub fn at(s: &str) -> Result<i64, Error> {
    crate::time::parse_utc(s).map_err(|e| Error::Usage(format!("--at: {e}")))
}

/// A number as a person reads it: at most 4 decimals, no trailing zeros.
fn num(v: f64) -> String {
    let s = format!("{v:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.into()
    }
}

/// One event `notify` kept, sent or could not send.
#[derive(Debug, Serialize)]
pub struct Event {
    /// Where it goes, the budget, its period's start, the unit and the line: sent once.
    pub key: String,
    pub destination: &'static str,
    /// sent; failed (kept: the next notify sends it); or passed (a lower line crossed with a higher one at once,
    /// never sent).
    pub outcome: &'static str,
    pub error: Option<String>,
}

/// `budget notify`: the crossings kept and sent.
#[derive(Debug, Serialize)]
pub struct Notified {
    #[serde(serialize_with = "serialize_iso")]
    pub at: i64,
    pub destinations: Vec<&'static str>,
    pub events: Vec<Event>,
    pub sent: u64,
    pub failed: u64,
    pub db: String,
}

/// A configured destination of the crossings.
enum Destination {
    /// A webhook: the URL, the key that signs each body, the deadline.
    Webhook(String, Vec<u8>, std::time::Duration),
    /// An Alertmanager's alerts API, and the deadline.
    Alertmanager(String, std::time::Duration),
}

impl Destination {
    fn name(&self) -> &'static str {
        match self {
            Destination::Webhook(..) => "webhook",
            Destination::Alertmanager(..) => "alertmanager",
        }
    }
}

/// The most bytes of a destination's answer read (it is only looked at for its status).
const ANSWER_CAP: u64 = 64 * 1024;

fn deadline(s: Option<f64>, key: &str) -> Result<std::time::Duration, Error> {
    match s.unwrap_or(10.0) {
        v if (0.1..=300.0).contains(&v) => Ok(std::time::Duration::from_secs_f64(v)),
        v => Err(Error::Config(format!("finops.budgets.{key}.timeout_s {v} is not a deadline: 0.1 to 300 seconds"))),
    }
}

/// The destinations the config names; a webhook's key read from its variable, which must be set.
fn destinations(settings: &Settings) -> Result<Vec<Destination>, Error> {
    let cfg = &settings.config.finops.budgets;
    let mut out = Vec::new();
    if let Some(w) = &cfg.webhook {
        let key = settings.webhook_key(&w.secret_env)?;
        out.push(Destination::Webhook(w.url.clone(), key, deadline(w.timeout_s, "webhook")?));
    }
    if let Some(Destination::Webhook(url, ..)) = out.first() {
        reqwest::Url::parse(url)
            .map_err(|e| Error::Config(format!("finops.budgets.webhook.url '{}' is not a URL ({e})", crate::text::redact_url(url))))?;
    }
    if let Some(a) = &cfg.alertmanager {
        let url = crate::sources::http::with_path(&a.url, &["api", "v2", "alerts"])
            .map_err(|e| Error::Config(format!("finops.budgets.alertmanager.url: {e}")))?;
        out.push(Destination::Alertmanager(url, deadline(a.timeout_s, "alertmanager")?));
    }
    if out.is_empty() {
        return Err(Error::Config(
            "exa budget notify: no destination is configured (finops.budgets.webhook or finops.budgets.alertmanager)".into(),
        ));
    }
    Ok(out)
}

/// A crossing as a destination is sent it: the webhook's JSON body, or one Alertmanager alert.
fn payload(d: &Destination, key: &str, b: &BudgetStatus, u: &UnitStatus, line: f64, at: i64) -> String {
    let summary = format!(
        "budget '{}' ({}, {}) at {:.1} % of its {} {}: past its {} % line",
        b.name,
        b.scope,
        b.period.name(),
        u.percent,
        num(u.limit),
        u.unit.label(),
        num(line)
    );
    let body = match d {
        Destination::Webhook(..) => serde_json::json!({
            "event": "exa.budget.crossed", "id": key, "budget": b.name, "scope": b.scope, "period": b.period,
            "period_start": crate::time::iso8601(b.period_start), "period_end": crate::time::iso8601(b.period_end),
            "unit": u.unit, "line": line, "limit": u.limit, "used": u.used, "percent": u.percent, "state": u.state,
            "at": crate::time::iso8601(at), "summary": summary,
        }),
        Destination::Alertmanager(..) => serde_json::json!([{
            "labels": {
                "alertname": "ExaBudgetCrossed", "budget": b.name, "scope": b.scope.to_string(), "unit": u.unit,
                "line": num(line), "severity": if line >= 100.0 { "critical" } else { "warning" },
            },
            "annotations": {"summary": summary},
            "startsAt": crate::time::iso8601(at),
            "endsAt": crate::time::iso8601(b.period_end),
        }]),
    };
    body.to_string()
}

/// Sends one kept event; an answer other than 2xx, or none within the deadline, is an error.
fn deliver(d: &Destination, key: &str, payload: &str) -> Result<(), String> {
    use crate::sources::http;
    let req = match d {
        Destination::Webhook(url, secret, deadline) => {
            let tag = ring::hmac::sign(&ring::hmac::Key::new(ring::hmac::HMAC_SHA256, secret), payload.as_bytes());
            let hex: String = tag.as_ref().iter().map(|b| format!("{b:02x}")).collect();
            let mut r = http::Request::new(url.clone(), *deadline, ANSWER_CAP);
            r.headers = vec![("X-Exa-Signature-256", format!("sha256={hex}")), ("X-Exa-Event-Id", key.to_string())];
            r.json = Some(payload.to_string());
            r
        }
        Destination::Alertmanager(url, deadline) => {
            let mut r = http::Request::new(url.clone(), *deadline, ANSWER_CAP);
            r.json = Some(payload.to_string());
            r
        }
    };
    match http::send(req) {
        Ok(a) if (200..300).contains(&a.status) => Ok(()),
        Ok(a) => Err(format!("{} answered HTTP {}", d.name(), a.status)),
        Err(e) => Err(format!("{}: {e}", d.name())),
    }
}

/// The lines a unit has crossed (its warn lines and 100 %), lowest first.
/// By `state_of`'s rule: a warn line at a use of that percent or more, 100 % past the limit.
fn crossed(warn: &[f64], used: f64, limit: f64) -> Vec<f64> {
    let percent = crate::store::budget::percent(used, limit);
    warn.iter().copied().filter(|l| percent >= *l).chain((used > limit).then_some(100.0)).collect()
}

/// How long a run's claim on an event holds another run off: past the longest delivery's deadline (300 s),
/// so a run that died while sending leaves its events to the next.
const CLAIM_HOLDS_S: i64 = 600;

/// `budget notify`: keeps an event for each line each budget has crossed this period (its warn lines, and 100 %)
/// and each destination, once; then sends every event not yet sent, those a past run could not send among them.
/// A line crossed with a higher one at once is kept as passed, never sent: one message says where it stands.
pub fn notify(settings: &Settings, at: Option<i64>) -> Result<Notified, Error> {
    let dests = destinations(settings)?;
    let when = at.unwrap_or_else(crate::time::now_unix);
    let mut ledger = store::open(&settings.db()?)?;
    let mut events = Vec::new();
    for k in in_effect(&ledger.budget_changes()?)? {
        let st = status_of(ledger.as_mut(), &k, when, at)?;
        for u in &st.units {
            let lines = crossed(&k.budget.warn, u.used, u.limit);
            let Some(top) = lines.last().copied() else { continue };
            for line in &lines {
                for d in &dests {
                    // Its scope in the key: a name given to another scope is another budget. Its line exactly (a
                    // line of 99.99999 % is not the limit's).
                    let period = crate::time::iso8601(st.period_start);
                    let key = format!("{}|{}|{}|{period}|{}|{line}", d.name(), k.name, k.budget.scope, u.unit.label());
                    let passed = *line < top;
                    if ledger.budget_event_add(&key, &payload(d, &key, &st, u, *line, when), when, passed)? && passed {
                        events.push(Event { key, destination: d.name(), outcome: "passed", error: None });
                    }
                }
            }
        }
    }
    let (mut sent, mut failed) = (0, 0);
    let names: Vec<&str> = dests.iter().map(Destination::name).collect();
    for (id, key, body) in ledger.budget_events_pending(&names, 10_000)? {
        let Some(d) = dests.iter().find(|d| key.starts_with(&format!("{}|", d.name()))) else { continue };
        let now = crate::time::now_unix();
        if !ledger.budget_event_claim(id, now, now - CLAIM_HOLDS_S)? {
            continue;
        }
        let done = deliver(d, &key, &body);
        ledger.budget_event_mark(id, done.as_ref().err().map(String::as_str), crate::time::now_unix())?;
        match done {
            Ok(()) => sent += 1,
            Err(_) => failed += 1,
        }
        let (outcome, error) = match done {
            Ok(()) => ("sent", None),
            Err(e) => ("failed", Some(e)),
        };
        events.push(Event { key, destination: d.name(), outcome, error });
    }
    Ok(Notified { at: when, destinations: dests.iter().map(Destination::name).collect(), events, sent, failed, db: ledger.location().0 })
}
