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

/// A count of work of the user's own unit (`--unit`): a number from 0 to `MAX_WORK`, none so small that a
/// figure per unit would not fit a number (below a millionth).
pub fn count(s: &str) -> Result<f64, String> {
    let v = amount(s)?;
    if v > crate::model::MAX_WORK {
        return Err(format!("'{s}' is more than {:e}: not one run's work", crate::model::MAX_WORK));
    }
    if v > 0.0 && v < 1e-6 {
        return Err(format!("'{s}' is less than a millionth: not a count of work"));
    }
    Ok(v)
}

/// Tokens or requests (`--tokens`, `--prompt-tokens`, `--requests`): a whole number from 0 to `MAX_WORK`.
pub fn whole(s: &str) -> Result<f64, String> {
    let v = count(s)?;
    if v.fract() != 0.0 {
        return Err(format!("'{s}' is not a whole number: tokens and requests are counted one by one"));
    }
    Ok(v)
}

/// A number of CPUs held (`measure --cpus`): above 0, at most a million.
pub fn cpus(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(n) if n.is_finite() && n > 0.0 && n <= 1e6 => Ok(n),
        _ => Err(format!("'{}' is not a number of CPUs: a number above 0, at most 1000000", crate::text::clean(s))),
    }
}

/// A CPU model's CPUs a socket (`--cpu-cores`): a whole number from 1 to 4096.
pub fn socket_cpus(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(n) if (1.0..=4096.0).contains(&n) && n.fract() == 0.0 => Ok(n),
        _ => Err(format!("'{}' is not a number of CPUs a socket: a whole number from 1 to 4096", crate::text::clean(s))),
    }
}

/// A Slurm job id (`SLURM_JOB_ID`: digits), as a number: `0012` is job 12, as its control group is read.
pub fn job_id(s: &str) -> Result<String, String> {
    let t = s.trim();
    if !t.is_empty() && t.len() <= 20 && t.bytes().all(|b| b.is_ascii_digit()) {
        let n = t.trim_start_matches('0');
        Ok(if n.is_empty() { "0".to_string() } else { n.to_string() })
    } else {
        Err(format!("'{}' is not a Slurm job id (SLURM_JOB_ID: digits)", crate::text::clean(&s.chars().take(40).collect::<String>())))
    }
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

/// Units `report --per` knows by their own names; a unit of the owner's naming takes none of them.
pub const WORK_UNITS: [&str; 3] = ["token", "request", "run"];

/// A unit's name: a lowercase word (letters, digits, `_`, `-`), not one `--per` already knows.
pub fn unit_name(name: &str) -> Result<String, String> {
    let ok = name.len() <= 40
        && name.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-');
    if !ok {
        return Err(format!(
            "unit '{}' must be a lowercase word of 1 to 40 letters, digits, '_' or '-' (images, pages)",
            name.escape_default()
        ));
    }
    let singular = name.strip_suffix('s').unwrap_or(name);
    if WORK_UNITS.contains(&singular) {
        return Err(format!("unit '{name}' is counted by its own flag (--tokens, --requests; runs are counted by themselves)"));
    }
    Ok(name.to_string())
}

/// The unit of `report --per`: token, request or run (either number), else a unit name as `--unit` takes it.
pub fn per_unit(s: &str) -> Result<String, String> {
    let singular = s.strip_suffix('s').unwrap_or(s);
    if WORK_UNITS.contains(&singular) {
        return Ok(singular.to_string());
    }
    unit_name(s).map_err(|e| format!("{e}; or token, request, run"))
}

/// `NAME=N` for `--unit`: work counted in a unit of the owner's naming.
pub fn unit_count(s: &str) -> Result<(String, f64), String> {
    let (name, value) = s.split_once('=').ok_or_else(|| format!("'{}' is not NAME=N (images=5000)", s.escape_default()))?;
    let name = unit_name(name.trim())?;
    let n = count(value).map_err(|e| format!("{name}: {e}"))?;
    Ok((name, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_whole_and_units_never_vanishing() {
        assert_eq!(whole("1000"), Ok(1000.0));
        assert!(whole("5e-324").unwrap_err().contains("less than a millionth"));
        assert!(whole("2.5").unwrap_err().contains("not a whole number"));
        assert_eq!(count("0.5"), Ok(0.5));
        assert_eq!(count("0"), Ok(0.0));
    }

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

    #[test]
    fn units_of_work() {
        assert_eq!(unit_count("images=5000"), Ok(("images".into(), 5000.0)));
        assert!(unit_count("tokens=5").unwrap_err().contains("--tokens"));
        assert!(unit_count("Images=5").unwrap_err().contains("lowercase"));
        assert!(unit_count("pages=-1").unwrap_err().contains("negative"));
        assert!(unit_count("pages=1e16").unwrap_err().contains("not one run's work"));
        assert_eq!(count("1e15"), Ok(1e15));
        assert!(unit_count("pages").is_err());
        assert!(unit_count("\u{1b}[31m=1").unwrap_err().contains("\\u{1b}"));
    }
}
