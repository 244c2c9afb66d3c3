//! Parsers for single command-line values.

/// A finite, non-negative number: hours, watts, a ratio, a price.
pub fn amount(s: &str) -> Result<f64, String> {
    let v: f64 = s.trim().parse().map_err(|_| format!("'{s}' is not a number"))?;
    if !v.is_finite() {
        return Err(format!("'{s}' is not a finite number"));
    }
    if v < 0.0 {
        return Err(format!("'{s}' is negative; it must be 0 or more"));
    }
    Ok(v)
}

/// A duration like `90s`, `10m` or `1.5h`.
pub fn duration(s: &str) -> Result<std::time::Duration, String> {
    crate::time::parse_duration(s)
}

/// `NAME=VALUE` for `--set`.
#[derive(Debug, Clone, PartialEq)]
pub struct Assignment {
    pub name: String,
    pub value: f64,
}

pub fn assignment(s: &str) -> Result<Assignment, String> {
    let (name, value) = s.split_once('=').ok_or_else(|| format!("'{s}' is not NAME=VALUE"))?;
    let name = name.trim();
    if name.is_empty() {
        return Err(format!("'{s}' has no name before '='"));
    }
    let value = amount(value).map_err(|e| format!("{name}: {e}"))?;
    Ok(Assignment { name: name.to_string(), value })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts() {
        assert_eq!(amount("12"), Ok(12.0));
        assert_eq!(amount("1e3"), Ok(1000.0));
        assert!(amount("-1").unwrap_err().contains("negative"));
        assert!(amount("NaN").unwrap_err().contains("finite"));
        assert!(amount("inf").unwrap_err().contains("finite"));
        assert!(amount("twelve").unwrap_err().contains("not a number"));
        assert_eq!(assignment("ram_gb=64"), Ok(Assignment { name: "ram_gb".into(), value: 64.0 }));
        assert!(assignment("ram_gb").is_err());
        assert!(assignment("=3").is_err());
    }
}
