//! UTC timestamps as ISO 8601 text, durations like `10m`, and the local times
//! schedulers print (through libc), without a calendar crate.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// The calendar month (UTC) holding `unix`: its first second, and the first second of the next month.
pub fn month(unix: i64) -> (i64, i64) {
    let (y, m, _) = civil_from_days(unix.div_euclid(86_400));
    let (ny, nm) = if m == 12 { (y + 1, 1) } else { (y, m + 1) };
    (days_from_civil(y, m, 1) * 86_400, days_from_civil(ny, nm, 1) * 86_400)
}

/// The calendar quarter (UTC) holding `unix`: its first second, and the first second of the next quarter.
pub fn quarter(unix: i64) -> (i64, i64) {
    let (y, m, _) = civil_from_days(unix.div_euclid(86_400));
    let first = (m - 1) / 3 * 3 + 1;
    let (ny, nm) = if first == 10 { (y + 1, 1) } else { (y, first + 3) };
    (days_from_civil(y, first, 1) * 86_400, days_from_civil(ny, nm, 1) * 86_400)
}

/// The ISO week (UTC, from Monday) holding `unix`: its first second, and the first second of the next week.
pub fn week(unix: i64) -> (i64, i64) {
    let day = unix.div_euclid(86_400);
    // 1970-01-01 was a Thursday: days since a Monday are (day + 3) mod 7.
    let monday = day - (day + 3).rem_euclid(7);
    (monday * 86_400, (monday + 7) * 86_400)
}

/// Seconds since the epoch as `2026-11-30T05:17:12Z`.
pub fn iso8601(unix: i64) -> String {
    let (days, secs) = (unix.div_euclid(86_400), unix.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", secs / 3600, secs % 3600 / 60, secs % 60)
}

/// `2026-11-30T07:45:00` in the local time zone (`TZ`): how `sacct` and `flux` print and read times.
pub fn local_iso(t: i64) -> String {
    // SAFETY: tm is plain data; localtime_r fills it from a valid time_t.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    let tt: libc::time_t = t;
    if unsafe { libc::localtime_r(&tt, &mut tm) }.is_null() {
        return iso8601(t).trim_end_matches('Z').to_string();
    }
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        i64::from(tm.tm_year) + 1900,
        tm.tm_mon + 1,
        tm.tm_mday,
        tm.tm_hour,
        tm.tm_min,
        tm.tm_sec
    )
}

/// The wall-clock fields of `as_utc` (parsed as if UTC) read as a local time instead, as mktime reads them.
///
/// mktime reads the time zone again on every call (glibc's tzset stats /etc/localtime each time),
/// which an import of a million jobs pays two million times. The zone's offset is found once per
/// wall-clock hour and kept: an hour whose two ends give the same offset has one offset
/// throughout; an hour a transition falls inside is asked of mktime every time.
pub fn from_local(as_utc: i64) -> Option<i64> {
    use std::cell::RefCell;
    use std::collections::HashMap;
    thread_local! {
        static OFFSETS: RefCell<HashMap<i64, Option<i64>>> = RefCell::new(HashMap::new());
    }
    let hour = as_utc.div_euclid(3600) * 3600;
    let offset = OFFSETS.with(|o| {
        let mut o = o.borrow_mut();
        if let Some(off) = o.get(&hour) {
            return *off;
        }
        let start = mktime_of(hour);
        let end = mktime_of(hour + 3599);
        let off = match (start, end) {
            (Some(s), Some(e)) if e - s == 3599 => Some(s - hour),
            _ => None,
        };
        if o.len() > 1 << 16 {
            o.clear();
        }
        o.insert(hour, off);
        off
    });
    match offset {
        Some(off) => as_utc.checked_add(off),
        None => mktime_of(as_utc),
    }
}

/// mktime of the wall-clock fields of `as_utc`.
fn mktime_of(as_utc: i64) -> Option<i64> {
    let days = as_utc.div_euclid(86_400);
    let secs = as_utc.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    // SAFETY: tm is plain data, zeroed then filled; mktime reads and normalises it.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    tm.tm_year = i32::try_from(y - 1900).ok()?;
    tm.tm_mon = i32::try_from(m - 1).ok()?;
    tm.tm_mday = i32::try_from(d).ok()?;
    tm.tm_hour = i32::try_from(secs / 3600).ok()?;
    tm.tm_min = i32::try_from(secs % 3600 / 60).ok()?;
    tm.tm_sec = i32::try_from(secs % 60).ok()?;
    tm.tm_isdst = -1;
    // SAFETY: tm is a valid struct tm.
    let t = unsafe { libc::mktime(&mut tm) };
    (t != -1).then_some(t)
}

pub fn now_unix() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

/// Serialises seconds since the epoch as ISO 8601 text (`#[serde(serialize_with = "...")]`).
pub fn serialize_iso<S: serde::Serializer>(t: &i64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&iso8601(*t))
}

/// The same for an optional time: null when absent.
pub fn serialize_iso_opt<S: serde::Serializer>(t: &Option<i64>, s: S) -> Result<S::Ok, S::Error> {
    match t {
        Some(t) => s.serialize_str(&iso8601(*t)),
        None => s.serialize_none(),
    }
}

/// Parses `2026-11-01`, `2026-11-01T12:00:00Z` or `2026-11-01 12:00` (UTC) to seconds since the epoch.
pub fn parse_utc(s: &str) -> Result<i64, String> {
    exact_time(s.as_bytes()).map_or_else(|| split_utc(s), Ok)
}

/// `parse_utc` of any form it reads, its parts split apart.
fn split_utc(s: &str) -> Result<i64, String> {
    let bad = || format!("'{s}' is not a UTC date or time like 2026-11-01 or 2026-11-01T12:00:00Z");
    let t = s.trim().trim_end_matches('Z');
    let (date, time) = match t.split_once(['T', ' ']) {
        Some((d, t)) => (d, Some(t)),
        None => (t, None),
    };
    let mut dp = date.split('-');
    let (y, m, d) = (dp.next().ok_or_else(bad)?, dp.next().ok_or_else(bad)?, dp.next().ok_or_else(bad)?);
    if dp.next().is_some() {
        return Err(bad());
    }
    let (y, m, d): (i64, i64, i64) = (y.parse().map_err(|_| bad())?, m.parse().map_err(|_| bad())?, d.parse().map_err(|_| bad())?);
    if !(1970..=9999).contains(&y) {
        return Err(format!("'{s}': the year {y} is outside 1970 to 9999"));
    }
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) || civil_from_days(days_from_civil(y, m, d)) != (y, m, d) {
        return Err(bad());
    }
    let mut secs = 0;
    if let Some(time) = time {
        let parts: Vec<&str> = time.split(':').collect();
        if parts.is_empty() || parts.len() > 3 {
            return Err(bad());
        }
        let nums: Vec<i64> =
            parts.iter().map(|p| p.split('.').next().unwrap_or("").parse::<i64>().map_err(|_| bad())).collect::<Result<_, _>>()?;
        let (h, mi, se) = (nums[0], *nums.get(1).unwrap_or(&0), *nums.get(2).unwrap_or(&0));
        if !(0..24).contains(&h) || !(0..60).contains(&mi) || !(0..61).contains(&se) {
            return Err(bad());
        }
        secs = h * 3600 + mi * 60 + se;
    }
    Ok(days_from_civil(y, m, d) * 86_400 + secs)
}

/// `YYYY-MM-DDTHH:MM:SS` (or with a space for the `T`), the form schedulers print, read without splitting:
/// the time `parse_utc` reads from it when it is a valid one, else `None` (and `parse_utc` says why).
fn exact_time(b: &[u8]) -> Option<i64> {
    let digits = |from: usize, to: usize| -> Option<i64> {
        b[from..to].iter().try_fold(0i64, |n, &c| c.is_ascii_digit().then(|| n * 10 + i64::from(c - b'0')))
    };
    if b.len() != 19 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b' ') || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (y, m, d) = (digits(0, 4)?, digits(5, 7)?, digits(8, 10)?);
    let (h, mi, se) = (digits(11, 13)?, digits(14, 16)?, digits(17, 19)?);
    let valid = (1970..=9999).contains(&y)
        && (1..=12).contains(&m)
        && (1..=31).contains(&d)
        && civil_from_days(days_from_civil(y, m, d)) == (y, m, d)
        && h < 24
        && mi < 60
        && se < 61;
    valid.then(|| days_from_civil(y, m, d) * 86_400 + h * 3600 + mi * 60 + se)
}

/// Parses an RFC 3339 time as APIs write it (`2026-12-02T15:00Z`, `2026-12-02T15:00:00.000Z`,
/// `2026-12-02T15:00:00+01:00`) to seconds since the epoch.
pub fn parse_rfc3339(s: &str) -> Result<i64, String> {
    let t = s.trim();
    let bad = || format!("'{}' is not a time like 2026-12-02T15:00:00Z", crate::text::clean(t));
    if let Some(date_time) = t.strip_suffix('Z').or_else(|| t.strip_suffix('z')) {
        return parse_utc(date_time).map_err(|_| bad());
    }
    // An offset: the last '+' or '-' after the 'T'.
    let at = t.find(['T', 't', ' ']).ok_or_else(bad)?;
    let sign_at = t[at..].rfind(['+', '-']).map(|i| at + i).ok_or_else(bad)?;
    let (local, offset) = t.split_at(sign_at);
    let (h, m) = offset[1..].split_once(':').unwrap_or((&offset[1..], "0"));
    let (h, m): (i64, i64) = (h.parse().map_err(|_| bad())?, m.parse().map_err(|_| bad())?);
    if h > 23 || m > 59 {
        return Err(bad());
    }
    let secs = (h * 3600 + m * 60) * if offset.starts_with('-') { -1 } else { 1 };
    Ok(parse_utc(local).map_err(|_| bad())? - secs)
}

/// True when `s` names a whole day (`2026-11-30`, `2026-11-30Z`), not a moment.
pub fn is_date_only(s: &str) -> bool {
    let t = s.trim().trim_end_matches('Z');
    !t.contains(['T', ' ', ':']) && parse_utc(t).is_ok()
}

/// `90`, `90s`, `10m`, `1.5h`, `2d` as a duration.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let (num, unit) = t.find(|c: char| c.is_ascii_alphabetic()).map_or((t, "s"), |i| (&t[..i], &t[i..]));
    let scale = match unit {
        "s" | "sec" => 1.0,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        "d" => 86_400.0,
        _ => return Err(format!("'{s}' has an unknown unit '{unit}' (use s, m, h or d)")),
    };
    let v: f64 = num.trim().parse().map_err(|_| format!("'{s}' is not a duration like 90s, 10m or 1.5h"))?;
    if !v.is_finite() || v <= 0.0 || v * scale > 1e9 {
        return Err(format!("'{s}' is not a positive duration"));
    }
    Ok(Duration::from_secs_f64(v * scale))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scheduler_time_read_whole_is_the_time_its_parts_give() {
        let mut cases = vec![
            "2026-10-01T00:00:00",
            "2026-10-01 23:59:59",
            "2024-02-29T12:00:00",
            "2023-02-29T12:00:00",
            "2026-04-31T00:00:00",
            "2026-13-01T00:00:00",
            "2026-00-10T00:00:00",
            "1969-12-31T23:59:59",
            "1970-01-01T00:00:00",
            "9999-12-31T23:59:60",
            "2026-10-01T24:00:00",
            "2026-10-01T10:60:00",
            "2026-10-01T10:00:61",
            "2026-10-01X10:00:00",
            "2026-1a-01T10:00:00",
            "+026-10-01T10:00:00",
            "2026-10-01T10:00:0\u{e9}",
        ]
        .into_iter()
        .map(String::from)
        .collect::<Vec<_>>();
        // Every day of a leap year and of the next, at a time that moves through the day.
        for day in days_from_civil(2024, 1, 1)..days_from_civil(2026, 1, 1) {
            let (y, m, d) = civil_from_days(day);
            let s = day.rem_euclid(86_400);
            cases.push(format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}", s % 24, s % 60, (s * 7) % 61));
        }
        for c in &cases {
            assert_eq!(parse_utc(c).ok(), split_utc(c).ok(), "{c}");
            assert_eq!(parse_utc(c).is_err(), split_utc(c).is_err(), "{c}");
        }
        assert_eq!(parse_utc("2026-10-01T00:00:00"), Ok(1_790_812_800));
        assert!(exact_time(b"2026-10-01T00:00:00").is_some());
    }

    #[test]
    fn rfc3339_times_with_zones_and_offsets() {
        let t = parse_utc("2026-12-02T15:00:00Z").unwrap();
        for s in [
            "2026-12-02T15:00Z",
            "2026-12-02T15:00:00.000Z",
            "2026-12-02T16:00:00+01:00",
            "2026-12-02T10:30:00-04:30",
            "2026-12-02T15:00:00+00:00",
        ] {
            assert_eq!(parse_rfc3339(s), Ok(t), "{s}");
        }
        for s in ["2026-12-02", "2026-12-02T15:00:00", "2026-12-02T15:00:00+25:00", "soon"] {
            assert!(parse_rfc3339(s).is_err(), "{s}");
        }
    }

    #[test]
    fn months_end_where_the_next_begins() {
        let t = parse_utc("2026-12-31T23:59:59Z").unwrap();
        assert_eq!(month(t), (parse_utc("2026-12-01").unwrap(), parse_utc("2027-01-01").unwrap()));
        assert_eq!(month(parse_utc("2024-02-29").unwrap()).1, parse_utc("2024-03-01").unwrap());
    }

    #[test]
    fn round_trips() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00Z");
        assert_eq!(iso8601(1_795_929_432), "2026-11-29T05:17:12Z");
        assert_eq!(parse_utc("2026-11-29T05:17:12Z"), Ok(1_795_929_432));
        assert_eq!(parse_utc("2026-11-01"), Ok(parse_utc("2026-11-01T00:00:00Z").unwrap()));
        assert_eq!(parse_utc("2024-02-29").map(iso8601).as_deref(), Ok("2024-02-29T00:00:00Z"));
        assert!(parse_utc("2026-02-30").is_err());
        assert!(parse_utc("yesterday").is_err());
        assert!(parse_utc("300000000000-01-01").unwrap_err().contains("outside 1970 to 9999"));
        assert!(parse_utc("1969-12-31").is_err());
        assert!(is_date_only("2026-11-30Z") && is_date_only("2026-11-30") && !is_date_only("2026-11-30T00:00Z"));
        assert_eq!(parse_duration("10m"), Ok(Duration::from_secs(600)));
        assert_eq!(parse_duration("1.5h"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_duration("90"), Ok(Duration::from_secs(90)));
        assert!(parse_duration("-1s").is_err());
        assert!(parse_duration("3w").is_err());
    }
}
