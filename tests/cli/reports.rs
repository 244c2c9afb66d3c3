//! Reports people read and tools ingest: FOCUS 1.2 rows, checked column by
//! column against the specification's rules, and the HTML page, opened in
//! a real headless Chromium.

use std::collections::BTreeMap;
use std::process::Command;

use serde_json::Value;

use crate::common::{fails, stderr, stdout, Env};

/// A CSV document: quoted fields may hold commas, quotes ("") and newlines.
fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let (mut row, mut field, mut quoted, mut chars) = (Vec::new(), String::new(), false, text.chars().peekable());
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') => quoted = true,
            (false, ',') => row.push(std::mem::take(&mut field)),
            (false, '\n') => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
            }
            (false, c) => field.push(c),
        }
    }
    rows
}

/// The rows as maps from column to value ("" is FOCUS's null in CSV).
fn focus_csv(env: &Env, args: &[&str]) -> (Vec<String>, Vec<BTreeMap<String, String>>) {
    let out = env.run(&[&["report", "--format", "focus"][..], args].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    let mut rows = parse_csv(&stdout(&out));
    let header = rows.remove(0);
    let maps = rows.into_iter().map(|r| header.iter().cloned().zip(r).collect()).collect();
    (header, maps)
}

/// FOCUS 1.2's mandatory columns.
const MANDATORY: &[&str] = &[
    "BilledCost",
    "BillingAccountId",
    "BillingAccountName",
    "BillingCurrency",
    "BillingPeriodEnd",
    "BillingPeriodStart",
    "ChargeCategory",
    "ChargeClass",
    "ChargeDescription",
    "ChargePeriodEnd",
    "ChargePeriodStart",
    "ContractedCost",
    "EffectiveCost",
    "InvoiceIssuerName",
    "ListCost",
    "PricingQuantity",
    "PricingUnit",
    "ProviderName",
    "PublisherName",
    "ServiceCategory",
    "ServiceName",
];

/// The columns that may not be null on a regular usage row.
const NOT_NULL: &[&str] = &[
    "BilledCost",
    "BillingAccountId",
    "BillingCurrency",
    "BillingPeriodEnd",
    "BillingPeriodStart",
    "ChargeCategory",
    "ChargePeriodEnd",
    "ChargePeriodStart",
    "ContractedCost",
    "EffectiveCost",
    "InvoiceIssuerName",
    "ListCost",
    "PricingQuantity",
    "PricingUnit",
    "ProviderName",
    "PublisherName",
    "ServiceCategory",
    "ServiceName",
    "ChargeDescription",
    "ConsumedQuantity",
    "ConsumedUnit",
];

/// FOCUS's date/time format: extended ISO 8601 in UTC, seconds, and Z.
fn is_focus_time(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 20
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            10 => *c == b'T',
            13 | 16 => *c == b':',
            19 => *c == b'Z',
            _ => c.is_ascii_digit(),
        })
}

fn f(row: &BTreeMap<String, String>, col: &str) -> f64 {
    row[col].parse().unwrap_or_else(|e| panic!("{col} = {:?}: {e}", row[col]))
}

fn sum(rows: &[BTreeMap<String, String>], col: &str) -> f64 {
    rows.iter().filter(|r| !r[col].is_empty()).map(|r| f(r, col)).sum()
}

#[track_caller]
fn near(a: f64, b: f64) {
    assert!((a - b).abs() <= 1e-9 * b.abs().max(1.0), "{a} != {b}");
}

fn record(env: &Env, domain: &str, model: &str, args: &[&str]) {
    env.json::<Value>(&[&["finops", domain, "record", model][..], args].concat());
}

#[test]
fn focus_rows_follow_the_specifications_rules_column_by_column() {
    let env = Env::new();
    record(&env, "carbon", "JPCP", &["--gpu-hours", "12", "--run-id", "r1"]);
    record(&env, "cost", "JPCP", &["--gpu-hours", "12", "--cpu-hours", "32", "--run-id", "r1"]);
    record(&env, "cost", "GPT", &["--cpu-hours", "5"]);
    record(&env, "cost", "BIG", &["--provider", "tiered-example", "--gpu-hours", "150", "--run-id", "r3"]);
    let (header, rows) = focus_csv(&env, &[]);
    for col in MANDATORY {
        assert!(header.iter().any(|h| h == col), "mandatory column {col} is missing: {header:?}");
    }
    let own: Vec<&String> = header.iter().filter(|h| !MANDATORY.contains(&h.as_str())).collect();
    let focus_optional = [
        "ChargeFrequency",
        "ConsumedQuantity",
        "ConsumedUnit",
        "ContractedUnitPrice",
        "InvoiceId",
        "ListUnitPrice",
        "PricingCategory",
        "ResourceId",
        "ResourceName",
        "ResourceType",
        "ServiceSubcategory",
        "Tags",
    ];
    for h in own {
        assert!(
            focus_optional.contains(&h.as_str()) || h.starts_with("x_"),
            "{h}: a column FOCUS does not define must carry the x_ prefix"
        );
    }
    // r1 splits into a GPU-hours and a CPU-hours row; GPT is CPU only; BIG is GPU only.
    assert_eq!(rows.len(), 4, "{rows:#?}");
    for r in &rows {
        for col in NOT_NULL {
            assert!(!r[*col].is_empty(), "{col} is null in {r:#?}");
        }
        assert_eq!(r["ChargeClass"], "", "a regular charge has a null ChargeClass");
        assert_eq!(r["ChargeCategory"], "Usage");
        assert_eq!(r["ChargeFrequency"], "Usage-Based");
        assert_eq!(r["ServiceCategory"], "AI and Machine Learning");
        assert_eq!(r["BillingCurrency"], "USD");
        for col in ["BillingPeriodStart", "BillingPeriodEnd", "ChargePeriodStart", "ChargePeriodEnd"] {
            assert!(is_focus_time(&r[col]), "{col} = {:?} is not YYYY-MM-DDTHH:mm:ssZ", r[col]);
        }
        // Same-length UTC stamps order as strings.
        assert!(r["ChargePeriodStart"] < r["ChargePeriodEnd"], "{r:#?}");
        assert!(r["BillingPeriodStart"] <= r["ChargePeriodStart"] && r["ChargePeriodEnd"] <= r["BillingPeriodEnd"], "{r:#?}");
        assert!(r["BillingPeriodStart"].ends_with("-01T00:00:00Z"), "a billing period is a calendar month");
        assert!(["GPU-Hours", "CPU-Hours"].contains(&r["PricingUnit"].as_str()), "{}", r["PricingUnit"]);
        assert_eq!(r["PricingUnit"], r["ConsumedUnit"]);
        // Unit prices times quantities are the list and contracted costs.
        if !r["ListUnitPrice"].is_empty() {
            near(f(r, "ListCost"), f(r, "ListUnitPrice") * f(r, "PricingQuantity"));
            near(f(r, "ContractedCost"), f(r, "ContractedUnitPrice") * f(r, "PricingQuantity"));
        }
        assert!(f(r, "EffectiveCost") <= f(r, "ListCost") + 1e-9);
        near(f(r, "BilledCost"), f(r, "EffectiveCost"));
        let tags: Value = serde_json::from_str(&r["Tags"]).expect("Tags is a JSON object");
        assert_eq!(tags["model"].as_str(), Some(r["ResourceName"].as_str()));
    }
    // The run's GPU row carries its carbon; its CPU row does not, so a sum counts the run once.
    let r1: Vec<_> = rows.iter().filter(|r| r["ResourceId"] == "r1").collect();
    assert_eq!(r1.iter().map(|r| r["PricingUnit"].as_str()).collect::<Vec<_>>(), ["GPU-Hours", "CPU-Hours"]);
    assert_eq!((f(r1[0], "PricingQuantity"), f(r1[1], "PricingQuantity")), (12.0, 32.0));
    near(f(r1[0], "BilledCost"), 30.0);
    near(f(r1[1], "BilledCost"), 1.6);
    assert!(!r1[0]["x_Co2eGrams"].is_empty() && r1[1]["x_Co2eGrams"].is_empty());
    // The tiered card: 100 GPU-hours at the list rate, 50 at 20% off; the list cost says what it would be without.
    let big = rows.iter().find(|r| r["ResourceName"] == "BIG").unwrap();
    near(f(big, "ListCost"), 375.0);
    near(f(big, "EffectiveCost"), 350.0);
    // The rows add up to the report's totals.
    let totals = env.json::<Value>(&["report"])["totals"].clone();
    near(sum(&rows, "BilledCost"), totals["cost_usd"].as_f64().unwrap());
    near(sum(&rows, "x_Co2eGrams"), totals["co2e_g"].as_f64().unwrap());
    let gpu: f64 = rows.iter().filter(|r| r["ConsumedUnit"] == "GPU-Hours").map(|r| f(r, "ConsumedQuantity")).sum();
    near(gpu, totals["gpu_hours"].as_f64().unwrap());
}

#[test]
fn focus_rows_count_a_run_once_and_say_what_they_left_out() {
    let env = crate::common::with_h100(Env::new()).env("FAKE_SMI_POWER", "300");
    // An estimate of r1, then its measurement (carbon and cost): the rows are the measurement's.
    record(&env, "cost", "M", &["--gpu-hours", "50", "--run-id", "r1"]);
    let m = env.run(&["finops", "measure", "--interval", "0.1", "--record", "M", "--run-id", "r1", "--", "sleep", "0.3"]);
    assert!(m.status.success(), "{}", stderr(&m));
    // The same cost recorded twice: one charge.
    record(&env, "cost", "M", &["--gpu-hours", "2", "--run-id", "r2"]);
    record(&env, "cost", "M", &["--gpu-hours", "2", "--run-id", "r2"]);
    // Carbon alone is no charge: left out, and stderr says so.
    record(&env, "carbon", "M", &["--gpu-hours", "2", "--run-id", "r3"]);
    let out = env.run(&["report", "--format", "focus"]);
    assert!(stderr(&out).contains("1 run(s) have no cost record"), "{}", stderr(&out));
    let (_, rows) = focus_csv(&env, &[]);
    let r1: Vec<_> = rows.iter().filter(|r| r["ResourceId"] == "r1").collect();
    assert!(r1.iter().all(|r| r["x_Measured"] == "true"), "{r1:#?}");
    assert_eq!(r1[0]["PricingUnit"], "GPU-Hours");
    assert!(f(r1[0], "PricingQuantity") < 1.0, "the measured GPU-hours, not the estimate's 50: {}", r1[0]["PricingQuantity"]);
    assert!(!r1[0]["x_EnergyKwh"].is_empty(), "the measured energy rides on the row");
    let r2: Vec<_> = rows.iter().filter(|r| r["ResourceId"] == "r2").collect();
    assert_eq!(r2.len(), 1);
    near(f(r2[0], "BilledCost"), 5.0);
    assert!(!rows.iter().any(|r| r["ResourceId"] == "r3"));
    // JSON lines: the same rows, one object per line, nulls as null.
    let args = ["-o", "json", "report", "--format", "focus"];
    let lines: Vec<Value> = crate::common::answer_lines(&args, &env.run(&args));
    assert_eq!(lines.len(), rows.len());
    for (j, c) in lines.iter().zip(&rows) {
        assert_eq!(j["BilledCost"].as_f64().unwrap(), f(c, "BilledCost"));
        assert_eq!(j.get("ChargeClass"), Some(&Value::Null));
        assert_eq!(j["ResourceId"].as_str(), Some(c["ResourceId"].as_str()));
    }
}

#[test]
fn focus_names_come_from_the_config_and_an_empty_ledger_is_a_header() {
    let env = Env::new();
    let (header, rows) = focus_csv(&env, &[]);
    assert!(rows.is_empty() && header.contains(&"BilledCost".to_string()));
    env.config("finops:\n  focus:\n    billing_account_id: team-vision\n    billing_account_name: Vision\n    provider_name: HPC Centre\n");
    record(&env, "cost", "M", &["--gpu-hours", "1", "--run-id", "=cmd()"]);
    let (_, rows) = focus_csv(&env, &[]);
    assert_eq!((rows[0]["BillingAccountId"].as_str(), rows[0]["ProviderName"].as_str()), ("team-vision", "HPC Centre"));
    // The publisher and the invoice issuer follow the provider: a provider unlike the issuer reads as a marketplace charge.
    assert_eq!((rows[0]["InvoiceIssuerName"].as_str(), rows[0]["PublisherName"].as_str()), ("HPC Centre", "HPC Centre"));
    assert_eq!(rows[0]["ServiceName"], "ExaMLOps compute", "unset names keep their default");
    assert_eq!(rows[0]["ResourceId"], "'=cmd()", "a value a spreadsheet would run as a formula is neutralised");
    env.config("finops:\n  focus:\n    billing_acount_id: x\n");
    let out = env.run(&["report", "--format", "focus"]);
    assert!(stderr(&out).contains("billing_account_id"), "a misspelt key names the right one: {}", stderr(&out));
    fails(&env.run(&["report", "--format", "csv"]), 2, "focus");
    fails(&env.run(&["report", "--format", "focus", "--by", "day"]), 2, "--format focus writes one row per run");
}

/// The FinOps Foundation's focus-validator (`cargo xtask test` installs it in a Python 3.12 of its own).
fn focus_validator() -> std::path::PathBuf {
    let p = std::env::var_os("EXA_TEST_FOCUS_VALIDATOR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/focus-python/bin/focus-validator"));
    assert!(p.exists(), "the FOCUS tests need focus-validator: run `cargo xtask test`, which installs it ({} is missing)", p.display());
    p
}

/// What focus-validator says of a CSV file: (its summary line, the rules that failed).
pub(crate) fn validate_focus(csv: &std::path::Path) -> (String, Vec<String>) {
    let program = focus_validator();
    // It opens its currency list relative to the working directory: run it from its own package's folder.
    let venv = program.parent().unwrap().parent().unwrap();
    let lib = std::fs::read_dir(venv.join("lib")).unwrap().flatten().map(|e| e.path().join("site-packages")).find(|p| p.is_dir()).unwrap();
    let out = Command::new(&program)
        .args(["--data-file", csv.to_str().unwrap(), "--validate-version", "1.2", "--block-download", "--output-type", "console"])
        .current_dir(&lib)
        .output()
        .expect("focus-validator runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let summary =
        text.lines().find(|l| l.starts_with("Total: ")).unwrap_or_else(|| panic!("focus-validator gave no summary: {text}")).to_string();
    // Each rule's verdict: "❌ InvoiceId-C-005-C: FAIL  (...)".
    let verdict = |l: &str| -> Option<(String, String)> {
        let (id, rest) = l.split_once(' ')?.1.split_once(": ")?;
        Some((id.to_string(), rest.split_whitespace().next()?.to_string()))
    };
    let verdicts: BTreeMap<String, String> = text.lines().filter_map(verdict).collect();
    // A rule that is one branch of an OR its rule set passed is not a failure of the data: FOCUS's
    // "null when not on an invoice, else not null" is two rules, one of which fails on every dataset.
    let model = std::fs::read_dir(lib.join("focus_validator/rules"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("model-1.2")))
        .expect("the validator's FOCUS 1.2 rule set");
    let model: Value = serde_json::from_str(&std::fs::read_to_string(model).unwrap()).unwrap();
    let mut or_branches: Vec<(String, Vec<String>)> = Vec::new();
    collect_ors(&model, &mut or_branches);
    let excused =
        |id: &str| or_branches.iter().any(|(or, items)| items.iter().any(|i| i == id) && verdicts.get(or).is_some_and(|v| v == "PASS"));
    let failed = verdicts.iter().filter(|(id, v)| *v == "FAIL" && !excused(id)).map(|(id, _)| id.clone()).collect();
    (summary, failed)
}

/// Every rule of the rule set whose requirement is an OR of other rules: (its id, those rules' ids).
fn collect_ors(v: &Value, out: &mut Vec<(String, Vec<String>)>) {
    match v {
        Value::Object(m) => {
            for (k, rule) in m {
                let req = &rule["ValidationCriteria"]["Requirement"];
                if req["CheckFunction"] == "OR" {
                    let items = req["Items"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|i| i["ModelRuleId"].as_str().map(str::to_string))
                        .collect();
                    out.push((k.clone(), items));
                }
                collect_ors(rule, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| collect_ors(x, out)),
        _ => {}
    }
}

#[test]
fn the_focus_validator_finds_nothing_to_fail() {
    let env = Env::new();
    // Only the provider named: the other two names follow it.
    env.config("finops:\n  focus:\n    billing_account_id: team-vision\n    provider_name: HPC Centre\n");
    record(&env, "carbon", "JPCP", &["--gpu-hours", "12", "--run-id", "r1"]);
    record(&env, "cost", "JPCP", &["--gpu-hours", "12", "--cpu-hours", "32", "--run-id", "r1"]);
    record(&env, "cost", "GPT", &["--cpu-hours", "5"]);
    record(&env, "cost", "BIG", &["--provider", "tiered-example", "--gpu-hours", "150", "--run-id", "r3"]);
    // A charge small enough that a float's shortest form is an exponent.
    record(&env, "cost", "TINY", &["--gpu-hours", "0.0000001163", "--run-id", "r4"]);
    record(&env, "cost", "PARTS", &["--gpu-hours", "2", "--run-id", "r5", "--part"]);
    record(&env, "cost", "PARTS", &["--gpu-hours", "3", "--run-id", "r5", "--part"]);
    let out = env.run(&["report", "--format", "focus"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let exponent = |c: &String| c.parse::<f64>().is_ok() && c.contains(['e', 'E']) && !c.contains("inf");
    assert!(!parse_csv(&text).iter().flatten().any(exponent), "decimal numbers, never an exponent: {text}");
    let csv = env.dir.path().join("focus.csv");
    std::fs::write(&csv, &text).unwrap();
    let (summary, failed) = validate_focus(&csv);
    assert!(failed.is_empty(), "{summary}; failed: {failed:#?}");
    let passed: u32 = summary.split("Pass: ").nth(1).and_then(|r| r.split(' ').next()?.parse().ok()).unwrap_or(0);
    assert!(passed >= 100, "the validator checked the rows: {summary}");
    let (header, rows) = focus_csv(&env, &[]);
    // The JSON-lines form carries the same columns, in the same order.
    let jsonl = ["-o", "json", "report", "--format", "focus"];
    let first: serde_json::Map<String, Value> = crate::common::answer_lines(&jsonl, &env.run(&jsonl)).into_iter().next().expect("a row");
    assert_eq!(first.keys().cloned().collect::<Vec<_>>(), header);
    let tiny = rows.iter().find(|r| r["ResourceName"] == "TINY").unwrap();
    assert_eq!(tiny["ConsumedQuantity"], "0.0000001163");
    assert_eq!(tiny["InvoiceId"], "", "a chargeback row is on no invoice: null");
    assert!(rows.iter().all(|r| r["ServiceSubcategory"] == "Machine Learning"));
    assert!(header.contains(&"InvoiceId".to_string()) && header.contains(&"ServiceSubcategory".to_string()));
}

#[test]
fn a_focus_name_that_is_not_ascii_is_refused_at_config_load_naming_its_key() {
    let env = Env::new();
    record(&env, "cost", "M", &["--gpu-hours", "1", "--run-id", "r1"]);
    env.config("finops:\n  focus:\n    provider_name: Zürich HPC\n");
    let out = env.run(&["report", "--format", "focus"]);
    fails(&out, 2, "finops.focus.provider_name");
    assert!(stderr(&out).contains("ASCII"), "{}", stderr(&out));
    assert!(stdout(&out).is_empty(), "nothing half-written: {}", stdout(&out));
    env.config("finops:\n  focus:\n    invoice_issuer_name: \"Line\\x1bbreak\"\n");
    fails(&env.run(&["report", "--format", "focus"]), 2, "finops.focus.invoice_issuer_name");
}

/// Runs headless Chromium on a page; its stdout and stderr.
pub fn chromium(args: &[&str]) -> (String, String) {
    let out = Command::new("timeout")
        .args(["60", "chromium", "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0"])
        .args(args)
        .env("HOME", std::env::temp_dir())
        .output()
        .expect("chromium runs (cargo xtask test installs it)");
    assert!(out.status.success(), "chromium {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// The console messages Chromium logged for the page: errors, refused loads, uncaught exceptions.
fn console(log: &str) -> Vec<&str> {
    log.lines().filter(|l| l.contains(":CONSOLE")).collect()
}

/// `data-value` of the element with `data-key="key"` (a row or bar) and field, in a dumped DOM.
fn dom_value(dom: &str, anchor: &str, field: &str) -> String {
    let at = dom.find(anchor).unwrap_or_else(|| panic!("{anchor} not in the page"));
    let rest = &dom[at..];
    let f = rest.find(&format!("data-field=\"{field}\" data-value=\"")).unwrap_or_else(|| panic!("{field} not after {anchor}"));
    let v = &rest[f + format!("data-field=\"{field}\" data-value=\"").len()..];
    v[..v.find('"').unwrap()].to_string()
}

#[test]
fn the_html_page_opens_in_a_real_browser_with_the_json_figures() {
    let env = Env::new();
    record(&env, "carbon", "JPCP", &["--gpu-hours", "12", "--run-id", "r1"]);
    record(&env, "cost", "JPCP", &["--gpu-hours", "12", "--cpu-hours", "32", "--run-id", "r1"]);
    record(&env, "carbon", "<b>GPT</b>", &["--gpu-hours", "2.5"]);
    record(&env, "cost", "CPUONLY", &["--cpu-hours", "7"]);
    let page = env.dir.path().join("out/report.html");
    let out = env.run(&["report", "--html", page.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("JPCP"), "the report still goes to stdout");
    let html = std::fs::read_to_string(&page).unwrap();
    // Self-contained: nothing fetched from anywhere.
    for needle in ["http://", "https://", "src=", "<link"] {
        assert!(!html.contains(needle), "the page refers outside itself: {needle}");
    }
    assert!(!html.contains("<b>GPT</b>") && html.contains("&lt;b&gt;GPT&lt;/b&gt;"), "a model name is text, never markup");
    let url = format!("file://{}", page.display());
    let (dom, log) = chromium(&["--dump-dom", &url]);
    assert!(console(&log).is_empty(), "console messages: {:?}", console(&log));
    // The control: a page that breaks the rules does log, so the check above can fail.
    let bad = env.file("bad.html", "<html><head><meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'\"></head><body><img src=\"http://x.invalid/a.png\"></body></html>");
    assert!(!console(&chromium(&["--dump-dom", &format!("file://{}", bad.display())]).1).is_empty());
    // Figures read from the page's DOM are the JSON's.
    let json = env.json::<Value>(&["report"]);
    for g in json["groups"].as_array().unwrap().iter().chain([&json["totals"]]) {
        let key = g["key"].as_str().unwrap();
        let shown = key.replace('<', "&lt;").replace('>', "&gt;");
        let anchor = format!("<tr data-key=\"{shown}\"");
        for field in ["kwh", "co2e_g", "cost_usd", "gpu_hours", "cpu_hours"] {
            let v = dom_value(&dom, &anchor, field);
            let want = &g[field];
            if want.is_null() {
                assert_eq!(v, "null", "{key} {field}");
            } else {
                assert_eq!(v.parse::<f64>().unwrap(), want.as_f64().unwrap(), "{key} {field}");
            }
        }
    }
    // The charts' bars carry the same numbers.
    let jpcp = json["groups"].as_array().unwrap().iter().find(|g| g["key"] == "JPCP").unwrap();
    let chart = &dom[dom.find("data-chart=\"model-co2e_g\"").unwrap()..];
    let bar = &chart[chart.find("data-key=\"JPCP\" data-value=\"").unwrap() + "data-key=\"JPCP\" data-value=\"".len()..];
    assert_eq!(bar[..bar.find('"').unwrap()].parse::<f64>().unwrap(), jpcp["co2e_g"].as_f64().unwrap());
    // A screenshot that is not blank: many pixels differ from the background.
    let shot = env.dir.path().join("shot.png");
    chromium(&[&format!("--screenshot={}", shot.display()), "--window-size=1200,1400", &url]);
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&shot).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let px = info.color_type.samples();
    let pixels: Vec<&[u8]> = buf[..info.buffer_size()].chunks(px).collect();
    let background = pixels[0];
    let differing = pixels.iter().filter(|p| p[..3] != background[..3]).count();
    assert!(differing * 50 > pixels.len(), "the screenshot is almost blank: {differing} of {} pixels differ", pixels.len());
    // An HTML path that cannot be written fails with its name, and writes nothing half-way.
    let out = env.run(&["report", "--html", env.dir.path().to_str().unwrap()]);
    fails(&out, 1, "--html");
}

#[test]
fn at_a_terminal_a_report_draws_a_daily_sparkline_and_pipes_stay_plain() {
    let env = Env::new();
    record(&env, "carbon", "M", &["--gpu-hours", "4", "--run-id", "a"]);
    // N's record: a copy of M's, two days earlier, so the line spans three days (written by SQL, as a
    // record exa did not write: the report still counts it).
    let db = env.dir.path().join("data/examlops/records.sqlite3");
    let py = format!(
        "import sqlite3\nc = sqlite3.connect('{}')\n\
         cols = [r[1] for r in c.execute('pragma table_info(records)') if r[1] not in ('id', 'idem_key')]\n\
         new = {{'model': \"'N'\", 'run_id': \"'b'\", 'recorded_at': 'recorded_at - 2 * 86400'}}\n\
         c.execute(f\"insert into records ({{', '.join(cols)}}, idem_key) select {{', '.join(new.get(x, x) for x in cols)}}, 'copy' from records where id = 1\")\n\
         c.commit()",
        db.display()
    );
    assert!(env.cmd_for("python3").args(["-c", &py]).status().unwrap().success());
    let exa = env!("CARGO_BIN_EXE_exa");
    let out = env.cmd_for("script").args(["-qec", &format!("stty cols 160; {exa} report"), "/dev/null"]).output().unwrap();
    let text = stdout(&out);
    assert!(text.contains("Daily"), "{text}");
    let line = |key: &str| text.lines().find(|l| l.contains(&format!(" {key} "))).unwrap_or_else(|| panic!("{key}: {text}")).to_string();
    assert!(line("M").contains("  █"), "M's CO2e is all on the last day: {}", line("M"));
    assert!(line("N").contains("█  "), "N's is two days earlier: {}", line("N"));
    // Piped, the table has no sparkline and JSON none at all.
    assert!(!stdout(&env.run(&["report"])).contains("Daily"));
    assert!(env.json::<Value>(&["report"])["groups"][0].get("trend").is_none());
}
