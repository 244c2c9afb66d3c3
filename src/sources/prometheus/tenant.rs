//! Scoping to the tenant: every expression sent to a cluster's Prometheus carries the
//! cluster's label matchers on every vector and matrix selector, so that
//! in a Prometheus shared by several tenants an answer is this cluster's
//! and nothing else. The expression is parsed by a real PromQL parser
//! (`promql-parser`) and printed back, never edited as text.

use crate::model::IndexMap;
use promql_parser::label::{MatchOp, Matcher, Matchers};
use promql_parser::parser::{self, Expr, VectorSelector};

use super::Refusal;

/// `expr` with `labels` (name = value) required on every selector. An
/// expression that cannot be scoped is refused as `bad-request`, with why.
pub fn scope(expr: &str, labels: &IndexMap<String, String>) -> Result<String, Refusal> {
    let mut ast = parser::parse(expr)
        .map_err(|e| Refusal::bad_request(format!("the query is not PromQL (parse error: {})", crate::text::clean(&e))))?;
    if labels.is_empty() {
        return Ok(expr.to_string());
    }
    walk(&mut ast, labels)?;
    Ok(ast.to_string())
}

fn walk(e: &mut Expr, labels: &IndexMap<String, String>) -> Result<(), Refusal> {
    match e {
        Expr::Aggregate(a) => {
            walk(&mut a.expr, labels)?;
            if let Some(p) = a.param.as_mut() {
                walk(p, labels)?;
            }
            Ok(())
        }
        Expr::Unary(u) => walk(&mut u.expr, labels),
        Expr::Binary(b) => {
            walk(&mut b.lhs, labels)?;
            walk(&mut b.rhs, labels)
        }
        Expr::Paren(p) => walk(&mut p.expr, labels),
        Expr::Subquery(s) => walk(&mut s.expr, labels),
        Expr::NumberLiteral(_) | Expr::StringLiteral(_) => Ok(()),
        Expr::VectorSelector(v) => selector(v, labels),
        Expr::MatrixSelector(m) => selector(&mut m.vs, labels),
        Expr::Call(c) => c.args.args.iter_mut().try_for_each(|a| walk(a, labels)),
        Expr::Extension(_) => Err(Refusal::bad_request("the query uses an extension exa cannot scope to the cluster".into())),
    }
}

/// Adds each scope matcher to the selector (to every `or` group of it); a
/// selector that already matches a scope label any other way is refused.
fn selector(v: &mut VectorSelector, labels: &IndexMap<String, String>) -> Result<(), Refusal> {
    for (name, value) in labels {
        let groups = std::iter::once(&v.matchers.matchers).chain(v.matchers.or_matchers.iter());
        for m in groups.flatten().filter(|m| &m.name == name) {
            if !(matches!(m.op, MatchOp::Equal) && &m.value == value) {
                return Err(Refusal::bad_request(format!(
                    "the query matches the label {name} itself ({m}); exa scopes every selector to {name}=\"{}\" for this cluster",
                    crate::text::clean(value)
                )));
            }
        }
    }
    let add = |group: &mut Vec<Matcher>| {
        for (name, value) in labels {
            if !group.iter().any(|m| &m.name == name) {
                group.push(Matcher::new(MatchOp::Equal, name, value));
            }
        }
    };
    if v.matchers.or_matchers.is_empty() {
        add(&mut v.matchers.matchers);
    } else {
        // `{a="1" or b="2"}`: each alternative is scoped on its own.
        let Matchers { matchers, or_matchers } = &mut v.matchers;
        for group in or_matchers.iter_mut() {
            group.extend(matchers.iter().cloned());
            add(group);
        }
        matchers.clear();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scoped(q: &str) -> Result<String, String> {
        let labels: IndexMap<String, String> = [("cluster".to_string(), "aurora".to_string())].into_iter().collect();
        scope(q, &labels).map_err(|r| r.message)
    }

    #[test]
    fn every_selector_is_scoped() {
        assert_eq!(scoped("count(DCGM_FI_DEV_GPU_TEMP)").unwrap(), r#"count(DCGM_FI_DEV_GPU_TEMP{cluster="aurora"})"#);
        let q = scoped(r#"sum by (Hostname) (rate(DCGM_FI_DEV_XID_ERRORS{gpu="0"}[5m])) / on (Hostname) max(up)"#).unwrap();
        assert_eq!(q.matches(r#"cluster="aurora""#).count(), 2, "{q}");
        let q = scoped(r#"max_over_time(DCGM_FI_DEV_GPU_TEMP[1h:5m]) or vector(1)"#).unwrap();
        assert!(q.contains(r#"DCGM_FI_DEV_GPU_TEMP{cluster="aurora"}"#), "{q}");
        assert_eq!(scoped(r#"up{cluster="aurora"}"#).unwrap(), r#"up{cluster="aurora"}"#, "already scoped: left as it is");
        let q = scoped(r#"{__name__="up" or job="x"}"#).unwrap();
        assert_eq!(q.matches(r#"cluster="aurora""#).count(), 2, "each alternative: {q}");
    }

    #[test]
    fn what_cannot_be_scoped_is_refused() {
        assert!(scoped(r#"up{cluster="other"}"#).unwrap_err().contains("matches the label cluster itself"));
        assert!(scoped(r#"up{cluster=~".+"}"#).is_err());
        assert!(scoped("up{").unwrap_err().contains("not PromQL"));
        assert_eq!(scope("up", &IndexMap::default()).unwrap(), "up", "a cluster without labels is not rewritten");
    }
}
