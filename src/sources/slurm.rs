//! Slurm's accounting: `sacct` run here, and its two output shapes read
//! (`sacct -P`, with a header line, and `sacct --json`).
//!
//! Times in `-P` output are the local time of whoever ran `sacct`: exa reads
//! them in its own time zone (`TZ`), the one the `sacct` it runs inherits,
//! and gives `sacct` its window in that zone too. A file saved elsewhere is
//! read in the zone of the import (`TZ=... exa import slurm --file ...`).

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use super::child;
use crate::model::{BadLine, Job, Jobs, Word};

/// The columns exa asks `sacct` for.
pub const FIELDS: &str =
    "JobID,JobIDRaw,JobName,User,Account,Partition,WCKey,Comment,Cluster,State,Start,End,ElapsedRaw,NCPUS,CPUTimeRAW,AllocTRES,ConsumedEnergyRaw";

/// The columns a job is read from, in the order `Cols` keeps their positions.
const USED: [&str; 18] = [
    "JobID",
    "JobIDRaw",
    "State",
    "ElapsedRaw",
    "Elapsed",
    "CPUTimeRAW",
    "NCPUS",
    "AllocTRES",
    "ConsumedEnergyRaw",
    "Cluster",
    "JobName",
    "User",
    "Account",
    "Partition",
    "WCKey",
    "Comment",
    "Start",
    "End",
];

/// Where each of `USED` is in a line, found once from the header (a job's fields are then read by
/// position, not looked up by name on every line).
type Cols = [Option<usize>; USED.len()];

/// The place of a column in `USED`, at compile time.
const fn at(name: &str) -> usize {
    let mut i = 0;
    while i < USED.len() {
        let (a, b) = (USED[i].as_bytes(), name.as_bytes());
        if a.len() == b.len() {
            let mut j = 0;
            while j < a.len() && a[j] == b[j] {
                j += 1;
            }
            if j == a.len() {
                return i;
            }
        }
        i += 1;
    }
    panic!("a column exa does not read")
}

/// The field separator exa asks `sacct` for: a character a job name or comment seldom holds (ASCII unit
/// separator), followed by a token of `TOKEN_LEN` random hex digits made for each listing (`sacct`). A user can put
/// the unit separator and a line break in a job's name or comment, and so write what reads as a line of another
/// job's (another user's, another account's); never the token, made after the job was named. A line whose fields
/// do not each follow the separator and this listing's token is not sacct's own: a bad line.
const SEP: &str = "\u{1f}";
/// The length of a listing's token.
const TOKEN_LEN: usize = 16;
/// The same separator, as a `char` to split by.
const SEP_CHAR: char = '\u{1f}';

/// Runs `sacct` for the allocations active in `[since, until)` (seconds since the epoch), every run of a
/// requeued job, all users; `cluster` selects one of several in the database.
/// Its output is left in an unlinked file (`child::output_file`), for the importer to read a line at a time.
pub fn sacct(program: &Path, since: i64, until: i64, cluster: Option<&str>, timeout: Duration) -> Result<std::fs::File, String> {
    let (s, u) = (crate::time::local_iso(since), crate::time::local_iso(until));
    let token = uuid::Uuid::new_v4().simple().to_string();
    let delimiter = format!("{SEP}{}", &token[..TOKEN_LEN]);
    let mut args = vec!["-a", "-P", "-X", "-D", "--delimiter", &delimiter, "--format", FIELDS, "-S", &s, "-E", &u];
    if let Some(c) = cluster {
        args.extend(["-M", c]);
    }
    child::output_file(program, &args, timeout)
}

/// The cluster `scontrol` says this machine belongs to.
pub fn local_cluster(scontrol: &Path, timeout: Duration) -> Result<String, String> {
    let out = child::output(scontrol, &["show", "config"], timeout)?;
    String::from_utf8_lossy(&out)
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once('=')?;
            (k.trim() == "ClusterName").then(|| v.trim().to_string())
        })
        .filter(|c| !c.is_empty())
        .ok_or_else(|| "`scontrol show config` names no ClusterName".into())
}

/// Reads `sacct -P` output (its header line first); `Err` when the input as a whole cannot be read.
pub fn parse_parsable(text: &str) -> Result<Jobs, String> {
    parse_parsable_from(text.as_bytes(), text.len() as u64).map_err(|e| e.to_string())
}

/// The longest line read, its line ending aside: `sacct` prints about 150 bytes a job; a comment or
/// name may be long, a megabyte is not a job. A longer line is a bad line, its rest never held.
const MAX_LINE: usize = 1 << 20;

/// Why an input could not be read: the reading failed (a device's error), or it is not text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unread {
    /// The reading failed: the device's own words.
    Io(String),
    /// The input is not what it should be.
    Input(String),
}

impl std::fmt::Display for Unread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unread::Io(m) => write!(f, "cannot be read: {m}"),
            Unread::Input(m) => f.write_str(m),
        }
    }
}

/// A line `Lines` read: its number (1-based), and whether it was too long to keep.
enum Got {
    Line(usize),
    TooLong(usize),
    /// A line that is not UTF-8 (a job's name in another encoding): its number, and the byte where the text stops.
    NotText(usize, usize),
}

/// The lines of `input` with their numbers (1-based), read one at a time into one buffer, so a file of
/// millions of jobs is never in memory whole; blank lines skipped. A line that is not UTF-8 ends the
/// reading with the byte where it stops being text, counted from the input's start.
struct Lines<R> {
    input: R,
    text: String,
    number: usize,
    offset: usize,
    /// The byte the lines end before: the input's end (`usize::MAX`), or where another reader's begin.
    stop: usize,
}

impl<R: std::io::BufRead> Lines<R> {
    /// The next line that is not blank (the line itself in `line()`), or one too long to keep; none from byte
    /// `stop` on (the lines from there are another's).
    fn advance(&mut self) -> Option<Result<Got, Unread>> {
        use std::io::{BufRead, Read};
        let io = |e: std::io::Error| Some(Err(Unread::Io(e.to_string())));
        loop {
            if self.offset >= self.stop {
                return None;
            }
            let mut buf = std::mem::take(&mut self.text).into_bytes();
            buf.clear();
            // Room for the longest line and its "\r\n": one byte more is a line too long.
            let n = match (&mut self.input).take(MAX_LINE as u64 + 3).read_until(b'\n', &mut buf) {
                Ok(0) => return None,
                Ok(n) => n,
                Err(e) => return io(e),
            };
            self.number += 1;
            let at = self.offset;
            self.offset += n;
            let ended = buf.last() == Some(&b'\n');
            let content = buf.len() - usize::from(ended) - usize::from(ended && buf.len() > 1 && buf[buf.len() - 2] == b'\r');
            if content > MAX_LINE {
                if !ended {
                    match self.input.skip_until(b'\n') {
                        Ok(rest) => self.offset += rest,
                        Err(e) => return io(e),
                    }
                }
                return Some(Ok(Got::TooLong(self.number)));
            }
            match String::from_utf8(buf) {
                Ok(t) => self.text = t,
                // One job's line, never the listing: a bad line like any other.
                Err(e) => return Some(Ok(Got::NotText(self.number, at + e.utf8_error().valid_up_to()))),
            }
            if !self.text.trim().is_empty() {
                return Some(Ok(Got::Line(self.number)));
            }
        }
    }

    fn line(&self) -> &str {
        self.text.strip_suffix('\n').unwrap_or(&self.text)
    }
}

/// The bytes a `sacct -P` listing takes for each allocation, about: its line and its steps' (about 400 bytes
/// with `.batch` and `.extern`, 140 without): the room made for its jobs before reading them.
const BYTES_PER_JOB: u64 = 256;

/// The most jobs that room is made for before reading (a size that is not the listing's cannot ask for more);
/// a longer listing's list grows from there as it is read.
const MOST_RESERVED: usize = 2 << 20;

/// `parse_parsable` over a reader, a line at a time; `size` the input's bytes where known (0 where not).
pub fn parse_parsable_from(input: impl std::io::BufRead, size: u64) -> Result<Jobs, Unread> {
    parse_parsable_halves(input, size, None, SPLIT_MIN)
}

/// A second reader of the same input from a byte of it on: a file opened again and sought there.
pub type Reopen<'a> = &'a (dyn Fn(u64) -> std::io::Result<Box<dyn std::io::BufRead + Send>> + Sync);

/// A listing this long, whose input can be opened again (`Reopen`), is parsed in two halves at once: its
/// second half on a thread of its own, from the first line that starts in it (a step is counted, never
/// attached to its allocation, so any line may start a half). Parsing, not reading, is most of a listing's
/// time, and a million jobs' listing takes it on one core otherwise.
pub const SPLIT_MIN: u64 = 16 << 20;

/// `parse_parsable_from`, in two halves where the input is at least `split_min` bytes and can be opened again:
/// the same jobs, steps and bad lines, in the same order and with the same line numbers.
pub fn parse_parsable_halves(input: impl std::io::BufRead, size: u64, reopen: Option<Reopen>, split_min: u64) -> Result<Jobs, Unread> {
    let mut lines = Lines { input, text: String::new(), number: 0, offset: 0, stop: usize::MAX };
    let header = match lines.advance().transpose()? {
        None => return Ok(Jobs::default()),
        Some(Got::TooLong(n)) => return Err(Unread::Input(format!("line {n}, the header, is longer than {MAX_LINE} bytes"))),
        Some(Got::NotText(_, byte)) => return Err(Unread::Input(format!("not UTF-8 text (byte {byte})"))),
        Some(Got::Line(_)) => lines.line().to_string(),
    };
    let header = header.as_str();
    let header = header.trim_end_matches('\r');
    let sep = if header.contains(SEP) { SEP_CHAR } else { '|' };
    let token = token_of(header, sep);
    let names: Vec<&str> =
        header.trim_end_matches(sep).split(sep).enumerate().map(|(i, n)| if i == 0 { n } else { &n[token.len()..] }.trim()).collect();
    let col: HashMap<&str, usize> = names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    if !col.contains_key("JobID") && !col.contains_key("JobIDRaw") {
        return Err(Unread::Input(format!(
            "the first line is not a `sacct -P` header (no JobID or JobIDRaw column): '{}'; save it without -n/--noheader",
            crate::text::clean(&header.chars().take(80).collect::<String>())
        )));
    }
    let need = |any: &[&str], why: &str| -> Result<(), Unread> {
        if any.iter().any(|n| col.contains_key(n)) {
            Ok(())
        } else {
            Err(Unread::Input(format!("no {} column ({why}); save with --format={FIELDS}", any.join(" or "))))
        }
    };
    need(&["State"], "which jobs finished")?;
    need(&["ElapsedRaw", "Elapsed"], "how long each ran")?;
    need(&["CPUTimeRAW", "NCPUS"], "the core-hours")?;
    need(&["AllocTRES"], "the GPUs allocated")?;
    let mut cols: Cols = [None; USED.len()];
    for (slot, name) in cols.iter_mut().zip(USED) {
        *slot = col.get(name).copied();
    }
    let names = names.len();
    let mid = reopen.filter(|_| size >= split_min.max(2)).map(|r| (r, size / 2));
    let Some((reopen, mid)) = mid else {
        return body(&mut lines, &cols, (sep, token), names, size, None);
    };
    std::thread::scope(|s| {
        let second = s.spawn(move || -> Result<Jobs, Unread> {
            let io = |e: std::io::Error| Unread::Io(e.to_string());
            // From the byte before the half: the rest of the line that holds it is the first half's.
            let mut input = reopen(mid - 1).map_err(io)?;
            let skipped = input.skip_until(b'\n').map_err(io)?;
            let offset = usize::try_from(mid - 1).unwrap_or(usize::MAX) + skipped;
            let mut lines = Lines { input, text: String::new(), number: 0, offset, stop: usize::MAX };
            body(&mut lines, &cols, (sep, token), names, size - mid, None)
        });
        let first = body(&mut lines, &cols, (sep, token), names, mid, Some(usize::try_from(mid).unwrap_or(usize::MAX)));
        let second = second.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        let (mut out, mut more) = (first?, second?);
        // The second half's lines are numbered from the first line after the first half's; its jobs stay in their
        // own list (`Jobs::later`).
        let before = lines.number;
        for j in &mut more.jobs {
            j.line += before;
        }
        out.later = more.jobs;
        out.steps += more.steps;
        out.bad.extend(more.bad.into_iter().map(|mut b| {
            b.line += before;
            b
        }));
        Ok(out)
    })
}

/// The jobs of the lines `lines` reads after the header, up to the first that starts at byte `stop` or after
/// (to the end without one); room made for those of `size` bytes.
fn body<R: std::io::BufRead>(
    lines: &mut Lines<R>,
    cols: &Cols,
    (sep, token): (char, &str),
    names: usize,
    size: u64,
    stop: Option<usize>,
) -> Result<Jobs, Unread> {
    let mut out = Jobs::default();
    // Room for the jobs a listing of `size` bytes holds, made once: grown a doubling at a time, a million jobs'
    // list is copied again and again, and every copy lands in pages the kernel must first zero.
    // Only room: a reservation the machine refuses is not an error, and the list grows as it would have.
    let _ = out.jobs.try_reserve(usize::try_from(size / BYTES_PER_JOB).unwrap_or(0).min(MOST_RESERVED));
    // One buffer of fields for every line, emptied and handed back after each (`recycle`).
    let mut spare: Vec<&'static str> = Vec::with_capacity(names + 1);
    lines.stop = stop.unwrap_or(usize::MAX);
    while let Some(next) = lines.advance() {
        let n = match next? {
            Got::Line(n) => n,
            Got::TooLong(n) => {
                out.bad.push(BadLine { line: n, field: String::new(), why: format!("longer than {MAX_LINE} bytes: not a job's line") });
                continue;
            }
            Got::NotText(n, byte) => {
                out.bad.push(BadLine { line: n, field: String::new(), why: format!("not UTF-8 text (byte {byte})") });
                continue;
            }
        };
        let line = lines.line().trim_end_matches('\r');
        let mut fields = recycle(std::mem::take(&mut spare));
        split_at(line, sep, &mut fields);
        // Each field after the first follows the separator and this listing's token; a line that does not is not
        // sacct's own (a job's name or comment holding a line break and separators).
        if !token.is_empty() && !strip_token(&mut fields, token) {
            out.bad.push(BadLine {
                line: n,
                field: String::new(),
                why: "a field without this listing's separator: not sacct's own line".into(),
            });
            spare = recycle(fields);
            continue;
        }
        // `sacct -p` ends every line with the separator too.
        if fields.len() == names + 1 && fields.last() == Some(&"") {
            fields.pop();
        }
        if fields.len() == names {
            match job(cols, &fields, n).and_then(super::jobs::checked) {
                Ok(j) => out.add(j),
                Err(b) => out.bad.push(b),
            }
        } else {
            out.bad.push(BadLine { line: n, field: String::new(), why: format!("{} fields where the header has {names}", fields.len()) });
        }
        spare = recycle(fields);
    }
    Ok(out)
}

/// The token after each separator of a header exa asked for (`sacct`): the `TOKEN_LEN` hex digits after its first
/// separator, where every separator is followed by them; empty for any other header (a saved `sacct -P`).
fn token_of(header: &str, sep: char) -> &str {
    let Some(at) = header.find(sep).map(|i| i + sep.len_utf8()) else { return "" };
    let Some(token) = header.get(at..at + TOKEN_LEN).filter(|t| t.bytes().all(|b| b.is_ascii_hexdigit())) else { return "" };
    let every = header.trim_end_matches(sep).split(sep).skip(1).all(|f| f.starts_with(token));
    if sep == SEP_CHAR && every {
        token
    } else {
        ""
    }
}

/// Takes the token from the start of every field after the first; false when one lacks it.
fn strip_token(fields: &mut [&str], token: &str) -> bool {
    for f in fields.iter_mut().skip(1) {
        match f.strip_prefix(token) {
            Some(rest) => *f = rest,
            None => return false,
        }
    }
    true
}

/// Appends the fields of `line` between the ASCII separator `sep`, a byte at a time: the fields are short,
/// and a search call for each (`str::split`) costs more than the bytes it looks at.
fn split_at<'a>(line: &'a str, sep: char, fields: &mut Vec<&'a str>) {
    let Some(byte) = u8::try_from(sep).ok().filter(u8::is_ascii) else {
        fields.extend(line.split(sep));
        return;
    };
    let mut start = 0;
    for (i, b) in line.bytes().enumerate() {
        if b == byte {
            // An ASCII byte is never inside a character: both ends are on character boundaries.
            fields.push(&line[start..i]);
            start = i + 1;
        }
    }
    fields.push(&line[start..]);
}

/// An emptied buffer of fields, its borrow of the line it held released: the allocation is reused
/// (collecting in place), nothing is copied.
fn recycle<'b>(mut v: Vec<&str>) -> Vec<&'b str> {
    v.clear();
    v.into_iter().map(|_| "").collect()
}

fn job(cols: &Cols, f: &[&str], line: usize) -> Result<Job, BadLine> {
    let get = |i: usize| cols[i].map(|c| f[c].trim()).filter(|v| !v.is_empty());
    let bad = |field: &str, why: String| BadLine { line, field: field.to_string(), why };
    let id = get(const { at("JobID") }).or_else(|| get(const { at("JobIDRaw") })).ok_or_else(|| bad("JobID", "empty".into()))?;
    let raw = get(const { at("JobIDRaw") }).unwrap_or(id);
    check_id(id).map_err(|w| bad("JobID", w))?;
    let step = id.contains('.') || raw.contains('.');
    // A step is checked as a job is, then counted and dropped (`Jobs::add`): its words are never kept, so
    // they are not copied out of the line.
    let text = |i: usize| if step { None } else { get(i).map(crate::text::clean_word) };
    let owned = |v: &str| if step { Word::default() } else { Word::from(v) };
    let state = get(const { at("State") }).ok_or_else(|| bad("State", "empty".into()))?;
    let state = if step { Word::default() } else { upper(state.split_whitespace().next().unwrap_or("").trim_end_matches('+')) };
    let elapsed = match (get(const { at("ElapsedRaw") }), get(const { at("Elapsed") })) {
        (Some(v), _) => whole(v).map_err(|w| bad("ElapsedRaw", w))?,
        (None, Some(v)) => clock(v).map_err(|w| bad("Elapsed", w))?,
        (None, None) => 0.0,
    };
    let cpu_hours = match (get(const { at("CPUTimeRAW") }), get(const { at("NCPUS") })) {
        (Some(v), _) => whole(v).map_err(|w| bad("CPUTimeRAW", w))? / 3600.0,
        (None, Some(v)) => whole(v).map_err(|w| bad("NCPUS", w))? * elapsed / 3600.0,
        (None, None) => 0.0,
    };
    let gpus = get(const { at("AllocTRES") }).map_or(Ok(0.0), gpus_of).map_err(|w| bad("AllocTRES", w))?;
    let gpu_type = get(const { at("AllocTRES") }).and_then(gpu_type_of);
    let energy_j = match get(const { at("ConsumedEnergyRaw") }) {
        Some(v) => Some(whole(v).map_err(|w| bad("ConsumedEnergyRaw", w))?),
        None => None,
    };
    let time = |name: &'static str, i: usize| -> Result<Option<i64>, BadLine> {
        match get(i) {
            None | Some("Unknown" | "None" | "N/A") => Ok(None),
            Some(v) => when(v).map(Some).map_err(|w| bad(name, w)),
        }
    };
    Ok(Job {
        line,
        id: owned(id),
        raw_id: owned(raw),
        step,
        cluster: text(const { at("Cluster") }),
        name: text(const { at("JobName") }),
        user: text(const { at("User") }),
        account: text(const { at("Account") }),
        partition: text(const { at("Partition") }),
        wckey: text(const { at("WCKey") }),
        comment: text(const { at("Comment") }),
        state,
        start: time("Start", const { at("Start") })?,
        end: time("End", const { at("End") })?,
        elapsed_s: elapsed,
        gpus,
        gpu_type,
        cpu_hours,
        energy_j,
    })
}

/// The GPUs' type in an AllocTRES list (`gres/gpu:h100=4`), where its typed items name one type.
pub fn gpu_type_of(tres: &str) -> Option<Word> {
    let mut types = tres.split(',').filter_map(|i| i.split_once('=')?.0.strip_prefix("gres/gpu:"));
    let first = types.next()?;
    types.all(|t| t == first).then(|| Word::from(crate::text::clean(first)))
}

/// The GPUs' type in `sacct --json`'s allocated TRES (`{"type": "gres", "name": "gpu:h100"}`), where one type
/// names them all.
fn json_gpu_type(tres: &[Value]) -> Option<Word> {
    let mut types = tres
        .iter()
        .filter(|t| t.get("type").and_then(Value::as_str) == Some("gres"))
        .filter_map(|t| t.get("name").and_then(Value::as_str)?.strip_prefix("gpu:"));
    let first = types.next()?;
    types.all(|t| t == first).then(|| Word::from(crate::text::clean(first)))
}

/// A state word in upper case, made in place.
fn upper(s: &str) -> Word {
    let mut w = Word::from(s);
    w.make_ascii_uppercase();
    w
}

/// A job id: digits, with an array task (`_3`, `_[1-5]`), a component (`+1`) or a step (`.batch`).
fn check_id(id: &str) -> Result<(), String> {
    let ok = id.chars().next().is_some_and(|c| c.is_ascii_digit())
        && id.len() <= 64
        && id.chars().all(|c| c.is_ascii_alphanumeric() || "_+.[]-,%:".contains(c));
    if ok {
        Ok(())
    } else {
        Err(format!("'{}' is not a Slurm job id", crate::text::clean(&id.chars().take(40).collect::<String>())))
    }
}

/// A whole, non-negative number (sacct's RAW fields).
fn whole(v: &str) -> Result<f64, String> {
    match v.parse::<u64>() {
        Ok(n) => Ok(n as f64),
        Err(_) => Err(format!("'{}' is not a whole number", crate::text::clean(&v.chars().take(40).collect::<String>()))),
    }
}

/// `[D-]HH:MM:SS`, `MM:SS` or `MM:SS.mmm` as seconds.
fn clock(v: &str) -> Result<f64, String> {
    let bad = || format!("'{}' is not a duration like 1-02:03:04", crate::text::clean(v));
    let (days, rest) = match v.split_once('-') {
        Some((d, r)) => (d.parse::<u64>().map_err(|_| bad())?, r),
        None => (0, v),
    };
    let parts: Vec<f64> = rest.split(':').map(|p| p.parse::<f64>().map_err(|_| bad())).collect::<Result<_, _>>()?;
    let secs = match parts[..] {
        [h, m, s] => h * 3600.0 + m * 60.0 + s,
        [m, s] => m * 60.0 + s,
        _ => return Err(bad()),
    };
    if !secs.is_finite() || secs < 0.0 {
        return Err(bad());
    }
    Ok(days as f64 * 86_400.0 + secs)
}

/// The GPUs in an AllocTRES list: `gres/gpu=N` when present, else the sum of typed `gres/gpu:TYPE=N`.
pub fn gpus_of(tres: &str) -> Result<f64, String> {
    let mut plain = None;
    let mut typed = 0.0;
    // Only `gres/gpu` items are read: a list without one (a step's `cpu=2,mem=0,node=1`) holds no GPU.
    if !tres.contains("gres/gpu") {
        return Ok(0.0);
    }
    for item in tres.split(',') {
        let Some((k, v)) = item.split_once('=') else { continue };
        let count = || v.parse::<u64>().map(|n| n as f64).map_err(|_| format!("{k}={} is not a whole number", crate::text::clean(v)));
        if k == "gres/gpu" {
            plain = Some(count()?);
        } else if k.starts_with("gres/gpu:") {
            typed += count()?;
        }
    }
    Ok(plain.unwrap_or(typed))
}

/// `2026-11-30T07:45:00`, a local time, as seconds since the epoch.
fn when(v: &str) -> Result<i64, String> {
    let fields = crate::time::parse_utc(v).map_err(|_| format!("'{}' is not a time like 2026-11-30T07:45:00", crate::text::clean(v)))?;
    crate::time::from_local(fields).ok_or_else(|| format!("'{}' is not a time in the local time zone", crate::text::clean(v)))
}

/// Reads `sacct --json` output (data_parser v0.0.38 and later shapes); `Err` when it is not that.
pub fn parse_json(text: &str) -> Result<Jobs, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("not `sacct --json` output: {e}"))?;
    let list = v.get("jobs").and_then(Value::as_array).ok_or("not `sacct --json` output: no \"jobs\" list")?;
    let mut out = Jobs::default();
    for (i, j) in list.iter().enumerate() {
        match json_job(j, i + 1).and_then(super::jobs::checked) {
            Ok(job) => out.add(job),
            Err(b) => out.bad.push(b),
        }
    }
    Ok(out)
}

/// A number, or the `{"set": true, "number": N}` object later Slurm versions use.
fn num(v: Option<&Value>) -> Option<f64> {
    match v? {
        Value::Number(n) => n.as_f64(),
        Value::Object(o) if o.get("set").and_then(Value::as_bool) != Some(false) && o.get("infinite") != Some(&Value::Bool(true)) => {
            o.get("number").and_then(Value::as_f64)
        }
        _ => None,
    }
}

/// An id as Slurm holds it (a whole number below 2^32): -1, 1.5 or 1e30 is a bad line, never coerced.
fn whole_id(line: usize, field: &str, v: Option<f64>) -> Result<Option<u64>, BadLine> {
    match v {
        None => Ok(None),
        Some(x) if x.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&x) => Ok(Some(x as u64)),
        Some(x) => Err(BadLine { line, field: field.into(), why: format!("{x} is not a Slurm job id (a whole number below 2^32)") }),
    }
}

fn json_job(j: &Value, line: usize) -> Result<Job, BadLine> {
    let bad = |field: &str, why: &str| BadLine { line, field: field.into(), why: why.into() };
    let s = |v: Option<&Value>| v.and_then(Value::as_str).filter(|s| !s.is_empty()).map(crate::text::clean_word);
    let whole_id = |field: &str, v: Option<f64>| whole_id(line, field, v);
    let id = whole_id("job_id", num(j.get("job_id")))?.filter(|i| *i > 0).ok_or_else(|| bad("job_id", "missing or not a job id"))?;
    let task = whole_id("array.task_id", num(j.pointer("/array/task_id")))?;
    let array_job = whole_id("array.job_id", num(j.pointer("/array/job_id")))?.filter(|a| *a > 0);
    let offset = whole_id("het.job_offset", num(j.pointer("/het/job_offset")))?;
    let het_job = whole_id("het.job_id", num(j.pointer("/het/job_id")))?.filter(|h| *h > 0);
    let shown = match (array_job, task, het_job, offset) {
        (Some(a), Some(t), _, _) => format!("{a}_{t}"),
        (_, _, Some(h), Some(o)) => format!("{h}+{o}"),
        _ => id.to_string(),
    };
    let state = match j.pointer("/state/current") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(a)) => a.first().and_then(Value::as_str).unwrap_or("").to_string(),
        _ => return Err(bad("state.current", "missing")),
    }
    .to_ascii_uppercase();
    let elapsed = num(j.pointer("/time/elapsed")).unwrap_or(0.0);
    let tres = j.pointer("/tres/allocated").and_then(Value::as_array).cloned().unwrap_or_default();
    let count = |ty: &str, name: Option<&str>| -> f64 {
        tres.iter()
            .filter(|t| t.get("type").and_then(Value::as_str) == Some(ty))
            .filter(|t| name.is_none_or(|n| t.get("name").and_then(Value::as_str) == Some(n)))
            .filter_map(|t| num(t.get("count")))
            .sum()
    };
    let cpus = count("cpu", None);
    let gpus = count("gres", Some("gpu"));
    let energy: f64 = j
        .get("steps")
        .and_then(Value::as_array)
        .map(|steps| {
            steps
                .iter()
                .flat_map(|st| st.pointer("/tres/consumed/total").and_then(Value::as_array).cloned().unwrap_or_default())
                .filter(|t| t.get("type").and_then(Value::as_str) == Some("energy"))
                .filter_map(|t| num(t.get("count")))
                .sum()
        })
        .unwrap_or(0.0);
    // 0 is Slurm's "not yet"; anything else is a time, checked with the job (1e300 is not clamped into one).
    let time = |k: &str| {
        num(j.pointer(&format!("/time/{k}")))
            .filter(|t| *t != 0.0)
            .map(|t| if t.is_finite() && t.abs() < 1e15 { t as i64 } else { i64::MAX })
    };
    let comment = match j.get("comment") {
        Some(Value::Object(o)) => s(o.get("job")),
        other => s(other),
    };
    let wckey = match j.get("wckey") {
        Some(Value::Object(o)) => s(o.get("wckey")),
        other => s(other),
    };
    Ok(Job {
        line,
        id: shown.into(),
        raw_id: id.to_string().into(),
        step: false,
        cluster: s(j.get("cluster")),
        name: s(j.get("name")),
        user: s(j.get("user")),
        account: s(j.get("account")),
        partition: s(j.get("partition")),
        wckey,
        comment,
        state: state.into(),
        start: time("start"),
        end: time("end"),
        elapsed_s: elapsed,
        gpus,
        gpu_type: json_gpu_type(&tres),
        cpu_hours: cpus * elapsed / 3600.0,
        energy_j: (energy > 0.0).then_some(energy),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_without_the_listings_token_is_no_job() {
        let d = format!("{SEP}0123456789abcdef");
        let header = ["JobID", "JobIDRaw", "JobName", "State", "ElapsedRaw", "CPUTimeRAW", "AllocTRES"].join(&d);
        let line = |id: &str, name: &str, sep: &str| [id, id, name, "COMPLETED", "3600", "7200", "gres/gpu=2"].join(sep);
        // A name holding a line break and a line of a job of its own, with the bare separator: that line is bad.
        let forged = line("99", "forged", SEP);
        let text = format!("{header}\n{}\n{}\n", line("12", "ok", &d), line("13", &format!("x\n{forged}"), &d));
        let jobs = parse_parsable(&text).unwrap();
        assert_eq!(jobs.jobs.iter().map(|j| j.raw_id.as_str()).collect::<Vec<_>>(), ["12"]);
        assert!(jobs.bad.iter().any(|b| b.why.contains("not sacct's own line")), "{:?}", jobs.bad);
        // A saved listing without a token reads as before.
        let plain = format!("{}\n{}\n", header.replace(&d, SEP), line("12", "ok", SEP));
        assert_eq!(parse_parsable(&plain).unwrap().jobs.len(), 1);
    }

    #[test]
    fn a_listing_is_read_a_line_at_a_time_as_it_was_read_whole() {
        let header = "JobID|JobIDRaw|State|ElapsedRaw|CPUTimeRAW|AllocTRES";
        let text = format!(
            "{header}\r\n\n12|12|COMPLETED|3600|7200|gres/gpu=2\n12.batch|12.batch|COMPLETED|3600|7200|\n\n13|13|FAILED|60|60|cpu=1"
        );
        let jobs = parse_parsable(&text).unwrap();
        assert_eq!((jobs.jobs.len(), jobs.steps, jobs.bad.len()), (2, 1, 0));
        // Blank lines are skipped but counted: the numbers are the file's own lines.
        assert_eq!((jobs.jobs[0].line, jobs.jobs[1].line), (3, 6));
        assert_eq!((jobs.jobs[0].gpus, jobs.jobs[1].state.as_str()), (2.0, "FAILED"));
        // A one-byte buffer reads the same jobs as the text whole.
        let slow = parse_parsable_from(std::io::BufReader::with_capacity(1, text.as_bytes()), 0).unwrap();
        assert_eq!(slow.jobs, jobs.jobs);
    }

    /// A listing parsed in two halves at once against the same listing parsed as one: at every split point of a
    /// listing with jobs, steps, blank lines, bad lines, `\r\n` endings and a line too long, the same jobs, steps
    /// and bad lines, with the same numbers; and bytes that are not text in either half refused where they are.
    #[test]
    fn a_listing_parsed_in_two_halves_is_the_listing_parsed_whole() {
        let listing = |long: bool| {
            let mut text = b"JobID|JobIDRaw|State|ElapsedRaw|CPUTimeRAW|AllocTRES\n".to_vec();
            for i in 0..40 {
                text.extend(
                    format!("{i}|{i}|COMPLETED|{}|7200|gres/gpu={}\n{i}.batch|{i}.batch|COMPLETED|60|60|\n", 60 + i, i % 3).as_bytes(),
                );
                match i % 7 {
                    0 => text.extend(b"\n"),
                    1 => text.extend(b"x|y\r\n"),
                    2 => text.extend(format!("{i}9|{i}9|COMPLETED|nope|1|\r\n").as_bytes()),
                    _ => {}
                }
                if i == 37 && long {
                    text.extend(vec![b'z'; MAX_LINE + 1]);
                    text.extend(b"\n");
                }
            }
            text
        };
        // Every job read, in input order: the first list's, then the second half's (`Jobs::later`).
        let all = |j: &Jobs| j.jobs.iter().chain(&j.later).cloned().collect::<Vec<Job>>();
        let halves = |listing: &[u8]| {
            let reopen = |from: u64| -> std::io::Result<Box<dyn std::io::BufRead + Send>> {
                Ok(Box::new(std::io::Cursor::new(listing[usize::try_from(from).unwrap()..].to_vec())))
            };
            parse_parsable_halves(std::io::BufReader::with_capacity(7, listing), listing.len() as u64, Some(&reopen), 0)
        };
        let short = listing(false);
        let whole = parse_parsable_from(&short[..], short.len() as u64).unwrap();
        assert!(
            whole.jobs.len() == 40 && whole.steps == 40 && whole.bad.len() > 10,
            "{:?}",
            (whole.jobs.len(), whole.steps, whole.bad.len())
        );
        // Each length puts the middle at another byte: inside a line, on a line's end, in a blank one; and, with a
        // line too long near the end, inside that line.
        let long = listing(true);
        let cuts = (60..short.len()).map(|n| &short[..n]).chain([short.len() + 100, long.len() - 200, long.len()].map(|n| &long[..n]));
        for text in cuts {
            let cut = text.len();
            match (parse_parsable_from(text, cut as u64), halves(text)) {
                (Ok(one), Ok(two)) => {
                    assert!(one.later.is_empty());
                    assert_eq!(all(&two), all(&one), "cut at {cut}");
                    assert_eq!((two.steps, &two.bad), (one.steps, &one.bad), "cut at {cut}");
                }
                (one, two) => assert_eq!(two.map(|j| all(&j).len()), one.map(|j| all(&j).len()), "cut at {cut}"),
            }
        }
        // Bytes that are not text make their line a bad line, named by the same byte, whichever half holds them.
        for at in [short.len() / 4, short.len() * 3 / 4] {
            let mut bad = short.clone();
            bad[at] = 0xff;
            let whole = parse_parsable_from(&bad[..], 0).unwrap();
            assert!(whole.bad.iter().any(|b| b.why == format!("not UTF-8 text (byte {at})")), "{:?}", whole.bad);
            let two = halves(&bad).unwrap();
            assert_eq!((all(&two), &two.bad), (all(&whole), &whole.bad));
        }
    }

    #[test]
    fn bytes_that_are_not_text_make_a_bad_line_where_they_are_and_so_does_an_endless_line() {
        let mut bytes = b"JobID|State|ElapsedRaw|CPUTimeRAW|AllocTRES\n12|COMPLETED|1|1|\n13|COMP".to_vec();
        let at = bytes.len();
        bytes.extend(b"\xffLETED|1|1|\n");
        let read = parse_parsable_from(&bytes[..], 0).unwrap();
        assert_eq!(read.bad.iter().map(|b| (b.line, b.why.clone())).collect::<Vec<_>>(), vec![(3, format!("not UTF-8 text (byte {at})"))]);
        assert_eq!(read.jobs.iter().map(|j| j.id.as_str()).collect::<Vec<_>>(), ["12"], "the job before it is read");
        // In the header, the listing itself is not text: refused.
        assert_eq!(parse_parsable_from(&b"Job\xffID|State\n"[..], 0).unwrap_err(), Unread::Input("not UTF-8 text (byte 3)".into()));
        // A line of the longest length is read; one byte more is a bad line, and the lines after it are read.
        for (extra, bad) in [(0, false), (1, true)] {
            let mut text = b"JobID|State|ElapsedRaw|CPUTimeRAW|AllocTRES|JobName\r\n".to_vec();
            let line = b"12|COMPLETED|1|1||";
            text.extend(line);
            text.resize(text.len() + MAX_LINE - line.len() + extra, b'x');
            text.extend(b"\r\n13|COMPLETED|1|1||\n");
            let jobs = parse_parsable_from(std::io::BufReader::with_capacity(4096, &text[..]), text.len() as u64).unwrap();
            assert_eq!(jobs.bad.iter().map(|b| b.line).collect::<Vec<_>>(), if bad { vec![2] } else { vec![] }, "{extra}");
            assert_eq!(jobs.jobs.last().map(|j| (j.line, j.id.as_str())), Some((3, "13")));
        }
        let mut header = vec![b'x'; MAX_LINE + 1];
        header.push(b'\n');
        assert!(matches!(parse_parsable_from(&header[..], 0), Err(Unread::Input(e)) if e.contains("the header")));
    }

    #[test]
    fn gpus_come_from_the_untyped_count_else_the_typed_ones() {
        assert_eq!(gpus_of("billing=2,cpu=2,gres/gpu=2,node=1"), Ok(2.0));
        assert_eq!(gpus_of("cpu=8,gres/gpu:a100=2,gres/gpu:h100=1"), Ok(3.0));
        assert_eq!(gpus_of("cpu=8,gres/gpu=3,gres/gpu:a100=3"), Ok(3.0));
        assert_eq!(gpus_of("cpu=1,node=1"), Ok(0.0));
        assert_eq!(gpu_type_of("cpu=8,gres/gpu=4,gres/gpu:h100=4").as_deref(), Some("h100"));
        assert_eq!(gpu_type_of("cpu=8,gres/gpu:a100=2,gres/gpu:h100=1"), None, "two types: none of them");
        assert_eq!(gpu_type_of("cpu=8,gres/gpu=4"), None);
        assert!(gpus_of("gres/gpu=two").is_err());
    }

    #[test]
    fn elapsed_clock_forms() {
        assert_eq!(clock("1-02:03:04"), Ok(93_784.0));
        assert_eq!(clock("03:04"), Ok(184.0));
        assert!(clock("soon").is_err());
    }

    #[test]
    fn fields_split_at_the_separator_as_str_split_splits_them() {
        for line in ["", "|", "a", "a|b", "|a||b|", "é|ü\u{1f}x|", "100|batch||2026-10-01T00:00:00|"] {
            for sep in ['|', '\u{1f}'] {
                let mut got = Vec::new();
                super::split_at(line, sep, &mut got);
                assert_eq!(got, line.split(sep).collect::<Vec<_>>(), "{line:?} {sep:?}");
            }
        }
    }
}
