//! The formula engine against Python itself: formulas generated over the
//! documented grammar are evaluated by exa and by Python (the reference
//! evaluated them as Python expressions), and every difference fails.
//!
//! Where the two must differ, the rule is written once, here:
//! - Python turns a float overflow into `inf` (or raises OverflowError);
//!   exa refuses it. exa refusing where Python gave a non-finite number is
//!   agreement.
//! - Python's integers are exact and unbounded; exa computes in f64. A
//!   formula whose Python value changes when its integer literals are
//!   written as floats depends on that exactness and is not compared.
//! - A negative number to a fractional power is complex in Python; exa
//!   refuses it. Both are "not a real number".
//! - `sum(a, b, ...)` adds its arguments in exa; Python's `sum` wants a
//!   list, which a formula cannot write, so `sum` is not generated.

use std::io::Write;
use std::process::{Command, Stdio};

use exa::formula::{compile, Machine};
use serde_json::Value;

const NAMES: &[(&str, f64)] = &[("a", 12.0), ("b", 0.5), ("c", -3.25), ("d", 0.001), ("e", 7.0)];

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len() as u64) as usize]
    }
}

const LITERALS: &[&str] = &[
    "0", "1", "2", "3", "7", "10", "100", "1000", "0.5", "2.5", "2.675", "0.125", "1e-5", "0.5e-5", "3.5e2", "1_000", "1e17", "1e300",
    "4e-320", "1e-300", ".5", "5.", "0.0", "00", "007", "0_7", "1__0", "1_", "1e1_0", "2.5_0",
];

fn expr(r: &mut Rng, depth: u32) -> String {
    if depth == 0 || r.below(10) < 3 {
        return match r.below(3) {
            0 => r.pick(&["a", "b", "c", "d", "e"]).to_string(),
            _ => r.pick(LITERALS).to_string(),
        };
    }
    match r.below(9) {
        0 => format!("({})", expr(r, depth - 1)),
        1 => format!("-{}", expr(r, depth - 1)),
        2..=4 => {
            let op = r.pick(&["+", "-", "*", "/", "%", "**"]);
            format!("{} {op} {}", expr(r, depth - 1), expr(r, depth - 1))
        }
        5 => format!("round({}, {})", expr(r, depth - 1), r.pick(&["-2", "-1", "0", "1", "2", "3", "5", "400", "-400"])),
        6 => {
            let f = r.pick(&["abs", "round", "log", "log10", "log2", "exp", "sqrt", "floor", "ceil"]);
            format!("{f}({})", expr(r, depth - 1))
        }
        7 => {
            let f = r.pick(&["min", "max", "pow", "log"]);
            format!("{f}({}, {})", expr(r, depth - 1), expr(r, depth - 1))
        }
        _ => format!("{} % {}", expr(r, depth - 1), r.pick(&["3", "1e-300", "4e-320", "-2.5", "1e17"])),
    }
}

const PYTHON: &str = r#"
import ast, json, math, sys
env = {"__builtins__": {}, "min": min, "max": max, "abs": abs, "round": round, "pow": pow,
       "log": math.log, "log10": math.log10, "log2": math.log2, "exp": math.exp, "sqrt": math.sqrt,
       "floor": math.floor, "ceil": math.ceil}
names = json.loads(sys.argv[1])
def run(src):
    try:
        v = eval(compile(src, "<formula>", "eval"), dict(env), dict(names))
        if isinstance(v, complex):
            return {"err": "complex"}
        v = float(v)
        if math.isinf(v) or math.isnan(v):
            return {"err": "nonfinite"}
        return {"ok": repr(v)}
    except SyntaxError:
        return {"err": "syntax"}
    except Exception as e:
        return {"err": type(e).__name__}
class Floated(ast.NodeTransformer):
    """Every integer literal as a float, except round's digits."""
    def visit_Call(self, node):
        if getattr(node.func, "id", "") == "round" and len(node.args) == 2:
            node.args[0] = self.visit(node.args[0])
            return node
        return self.generic_visit(node)
    def visit_Constant(self, node):
        return ast.copy_location(ast.Constant(float(node.value)), node) if type(node.value) is int else node
def run_floated(src):
    try:
        tree = ast.fix_missing_locations(Floated().visit(ast.parse(src, mode="eval")))
    except SyntaxError:
        return {"err": "syntax"}
    return run(tree)
for line in sys.stdin:
    src = json.loads(line)
    a = run(src)
    # The same formula with every integer literal a float: a different answer means integer exactness.
    b = run_floated(src)
    print(json.dumps({"py": a, "exact_ints_matter": a != b}), flush=True)
"#;

fn exa_eval(src: &str) -> Result<f64, String> {
    let names: Vec<String> = NAMES.iter().map(|(n, _)| (*n).to_string()).collect();
    let values: Vec<f64> = NAMES.iter().map(|(_, v)| *v).collect();
    let p = compile(src, &names).map_err(|e| e.to_string())?;
    Machine::default().eval(&p, &values).map_err(|e| e.to_string())
}

#[test]
fn exa_agrees_with_python_on_generated_formulas() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let formulas: Vec<String> = (0..3000).map(|_| expr(&mut rng, 4)).collect();
    let names =
        serde_json::to_string(&NAMES.iter().map(|(n, v)| (n.to_string(), *v)).collect::<std::collections::BTreeMap<_, _>>()).unwrap();
    let mut py = Command::new("python3")
        .args(["-c", PYTHON, &names])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs (the CI installs it)");
    let mut input = String::new();
    for f in &formulas {
        input.push_str(&serde_json::to_string(f).unwrap());
        input.push('\n');
    }
    let mut stdin = py.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = py.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success(), "python3 failed");
    let answers: Vec<Value> = String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(answers.len(), formulas.len());
    let (mut compared, mut refused_both, mut skipped) = (0, 0, 0);
    let mut diffs = Vec::new();
    for (src, ans) in formulas.iter().zip(&answers) {
        let mine = exa_eval(src);
        let py = &ans["py"];
        if ans["exact_ints_matter"] == true {
            skipped += 1;
            if std::env::var("DUMP").is_ok() {
                eprintln!("SKIP {src} :: {}", ans);
            }
            continue;
        }
        match (py.get("ok").and_then(Value::as_str), &mine) {
            (Some(v), Ok(x)) => {
                let want: f64 = v.parse().unwrap();
                if want == *x || (want.is_nan() && x.is_nan()) {
                    compared += 1;
                } else {
                    diffs.push(format!("{src}: python {v}, exa {x:?}"));
                }
            }
            (Some(v), Err(e)) => diffs.push(format!("{src}: python {v}, exa refused ({e})")),
            (None, Ok(x)) => diffs.push(format!("{src}: python {}, exa {x:?}", py["err"])),
            (None, Err(_)) => refused_both += 1,
        }
    }
    assert!(
        diffs.is_empty(),
        "{} of {} formulas differ:\n{}",
        diffs.len(),
        formulas.len(),
        diffs.iter().take(40).cloned().collect::<Vec<_>>().join("\n")
    );
    eprintln!("formulas: {} compared equal, {refused_both} refused by both, {skipped} depend on integer exactness", compared);
    assert!(compared > 800, "too few formulas gave numbers to compare: {compared} (refused by both {refused_both}, skipped {skipped})");
}

#[test]
fn the_documented_cases() {
    assert_eq!(exa_eval("1e17 % 3"), Ok(1.0));
    assert_eq!(exa_eval("-7 % 3"), Ok(2.0));
    assert_eq!(exa_eval("7 % -3"), Ok(-2.0));
    assert!(exa_eval("3 % 1e-300").unwrap() >= 0.0);
    assert!(exa_eval("2 % 4e-320").is_ok());
    assert_eq!(exa_eval("round(2.675, 2)"), Ok(2.67));
    assert_eq!(exa_eval("round(0.5e-5, 5)"), Ok(1e-5));
    assert_eq!(exa_eval("round(0.125, 2)"), Ok(0.12));
    assert_eq!(exa_eval("round(1234.5, -2)"), Ok(1200.0));
    assert_eq!(exa_eval("round(2.5, 400)"), Ok(2.5));
    assert!(exa_eval("round(2.5, 1.5)").unwrap_err().contains("whole number"));
    for bad in ["007", "0_7", "1__0", "1_", "1_.5", "1._5"] {
        assert!(exa_eval(bad).unwrap_err().contains("malformed number"), "{bad}");
    }
    for good in ["00", "0_0", "1_000", "007.5", "007e1", "1e1_0", ".5", "5."] {
        assert!(exa_eval(good).is_ok(), "{good}");
    }
    let nest = |n: usize| format!("{}1{}", "(".repeat(n), ")".repeat(n));
    assert!(exa_eval(&nest(64)).is_ok(), "64 levels are allowed, as documented");
    assert!(exa_eval(&nest(65)).unwrap_err().contains("deeper than the limit of 64"));
    assert!(exa_eval(&format!("1 + 2 * {}", nest(63))).is_ok(), "precedence levels are not nesting");
}
