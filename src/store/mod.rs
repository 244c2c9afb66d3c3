//! Records: a ledger behind one small trait, SQLite the embedded default.
//!
//! A ledger is append-only: one transaction per call of `insert`, so a
//! process killed mid-write leaves its records whole or absent. A newer
//! schema than this exa knows is refused and never written to.
//!
//! The rooms: this file is the backend-neutral core (the `Ledger` trait, a
//! record as `Line`, where a ledger lives); `columns` states a record's
//! columns once, for both backends; `encode` is how a record's estimate is
//! kept (whole, by shape, formed) and the encoder an importer calls; `form`
//! which figures a record's columns give back; `report` is the report model;
//! `rule` is the counting rule, its one home (`choose` and its SQL
//! statement, side by side); `charges` groups counted records into runs for
//! charge lines. Each backend has a folder of its own, `sqlite/` and
//! `postgres/`, with its schema, writes and reports; neither imports the
//! other, and no two modules anywhere
//! import each other (`cargo xtask layers`).

pub mod budget;
pub mod charges;
pub mod columns;
pub mod encode;
pub mod form;
pub mod postgres;
pub mod report;
pub mod rule;
pub mod sqlite;

use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::model::{NewRecord, Word};
use encode::Shapes;
pub(crate) use encode::{push_front, FORMS, SHAPES};
use encode::{together, FiguresOf};
pub use encode::{Encoder, EstimateText, Stamp};
pub use sqlite::{Store, SCHEMA_VERSION};

/// A record as a ledger stores it: every column, and the estimate as JSON.
/// Inserts and `exa db copy` both write these; each store writes and reads them by `columns::RECORD`.
#[derive(Debug, Clone)]
pub struct Line {
    pub key: String,
    pub model: Word,
    pub run_id: Option<Word>,
    pub recorded_at: i64,
    pub host: Word,
    pub domain: Word,
    pub provider: Word,
    pub provider_kind: Word,
    pub provider_digest: Word,
    pub gpu_hours: f64,
    pub cpu_hours: f64,
    /// The figures it may have none of (`columns::Figure`).
    pub figures: columns::FigureSet,
    pub measured: bool,
    pub device_count: Option<i64>,
    pub part: bool,
    pub labels: crate::model::Labels,
    /// The work done, as its owner counted it.
    pub work: crate::model::Work,
    /// How the job's part of its node's remainder was given (`NodePolicy::describe`), where the record has one.
    pub node_policy: Option<Word>,
    /// The estimate as JSON text, serialised once (a store writes it as it is).
    pub estimate: EstimateText,
}

impl Line {
    /// The stored form of a new record.
    pub fn of(r: &NewRecord) -> Line {
        Line::of_alike(r, &mut Shapes::default())
    }

    /// The stored form of a new record, its estimate's shape taken from `shapes` where it is one of theirs.
    pub fn of_alike(r: &NewRecord, shapes: &mut Shapes) -> Line {
        let e = &r.estimate;
        let mut line = Line::columns(Stamp::of(r), e, FiguresOf::of(e), r.measured.as_ref());
        line.estimate = shapes.text(e, &line);
        debug_assert_eq!(line.estimate_json().as_deref(), Some(serde_json::to_string(e).expect("estimates serialise").as_str()));
        line
    }

    /// The line of `head` with the columns of an estimate of `e`'s provider and domain with figures `f`, and
    /// what was measured; its estimate's text is to be made.
    fn columns(head: Stamp, e: &crate::model::Estimate, f: FiguresOf, m: Option<&crate::model::Measured>) -> Line {
        let Stamp { key, model, run_id, recorded_at, host, part, labels, work } = head;
        let carbon = e.domain == crate::model::Domain::Carbon;
        let mut figures = columns::FigureSet::default()
            .with(columns::Figure::Uncertainty, e.provider.uncertainty)
            .with(columns::Figure::DurationS, m.map(|m| m.duration_s))
            .with(columns::Figure::MeasuredKwh, m.and_then(|m| m.gpu_kwh))
            .with(columns::Figure::NodeKwh, m.and_then(|m| m.node).map(|n| n.kwh))
            .with(columns::Figure::NodeRestKwh, m.and_then(|m| m.node).map(|n| n.rest_kwh));
        for (figure, name, only) in columns::Figure::outputs() {
            figures.set(figure, f.outputs.get(name).copied().filter(|_| carbon || !only));
        }
        Line {
            key,
            model,
            run_id,
            recorded_at,
            host,
            domain: e.domain.as_str().into(),
            provider: e.provider.name.as_str().into(),
            provider_kind: e.provider.kind.as_str().into(),
            provider_digest: e.provider.digest.as_str().into(),
            gpu_hours: f.inputs.get("gpu_hours").copied().unwrap_or(0.0),
            cpu_hours: f.inputs.get("cpu_hours").copied().unwrap_or(0.0),
            figures,
            measured: m.is_some(),
            device_count: m.map(|m| i64::try_from(m.device_count).unwrap_or(i64::MAX)),
            part,
            labels,
            work,
            node_policy: m.and_then(|m| m.node).map(|n| n.policy.into()),
            estimate: EstimateText::Whole(String::new()),
        }
    }

    /// A line with no column set, for a store to fill (`columns::line`).
    pub(crate) fn empty() -> Line {
        Line {
            key: String::new(),
            model: Word::default(),
            run_id: None,
            recorded_at: 0,
            host: Word::default(),
            domain: Word::default(),
            provider: Word::default(),
            provider_kind: Word::default(),
            provider_digest: Word::default(),
            gpu_hours: 0.0,
            cpu_hours: 0.0,
            figures: columns::FigureSet::default(),
            measured: false,
            device_count: None,
            part: false,
            labels: crate::model::Labels::default(),
            work: crate::model::Work::default(),
            node_policy: None,
            estimate: EstimateText::Whole(String::new()),
        }
    }

    /// The whole estimate's JSON text; None when its parts do not fit together (a store edited by hand).
    pub fn estimate_json(&self) -> Option<std::borrow::Cow<'_, str>> {
        match &self.estimate {
            EstimateText::Formed { shape, form, rest } => {
                form.figures(self, rest.as_deref()).and_then(|figures| together(shape, &figures)).map(std::borrow::Cow::Owned)
            }
            other => other.whole(),
        }
    }

    /// The whole estimate's JSON text, or `null` for parts that do not fit together.
    pub fn estimate_or_null(&self) -> std::borrow::Cow<'_, str> {
        self.estimate_json().unwrap_or(std::borrow::Cow::Borrowed("null"))
    }

    /// Itself when its estimate is JSON; one that is not (a store edited by hand) is carried as null, never copied on.
    pub fn checked(mut self) -> Line {
        if self.estimate_json().is_none_or(|w| serde_json::from_str::<serde::de::IgnoredAny>(&w).is_err()) {
            self.estimate = EstimateText::Whole("null".into());
        }
        self
    }
}

/// Where a ledger lives, as a report shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location(pub String);

/// What every ledger does.
pub trait Ledger {
    /// Appends records, all or none; their ids in order. A record whose key is already stored is not written
    /// again: its id is the stored one's.
    fn insert(&mut self, records: &[NewRecord]) -> Result<Vec<i64>, Error> {
        let lines: Vec<Line> = records.iter().map(Line::of).collect();
        Ok(self.write(&lines)?.into_iter().map(|(id, _)| id).collect())
    }
    /// Appends stored lines in one transaction; per line its id and whether it was new.
    fn write(&mut self, lines: &[Line]) -> Result<Vec<(i64, bool)>, Error>;
    /// Appends every line the chunks yield in one transaction: all of them or none (an import: the
    /// chunks are priced as they are written, so a million jobs are never all in memory at once).
    /// The lines' keys are distinct (an importer's are: one job, one key per domain): a store may then make
    /// its keys' index once at the end, and two lines with one key fail the write, whole. Per line, in
    /// order, whether it was written (false: its key was already stored).
    fn write_chunks(&mut self, chunks: &mut dyn Iterator<Item = Result<Vec<Line>, Error>>) -> Result<Vec<bool>, Error>;
    /// Per key, in order, whether a record with that idempotency key is stored.
    fn stored_keys(&mut self, keys: &[String]) -> Result<Vec<bool>, Error>;
    /// Where an importer stopped: the newest `recorded_at`, no later than `not_after`, of the records an importer
    /// wrote (their keys start with `prefix`, which no other writer's do); and the newest of them all, which
    /// is later only when some record claims a time to come.
    fn newest_imported(&mut self, prefix: &str, not_after: i64) -> Result<(Option<i64>, Option<i64>), Error>;
    /// Up to `limit` lines after id `after`, in id order, with their ids: for copying.
    fn read(&mut self, after: i64, limit: usize) -> Result<Vec<(i64, Line)>, Error>;
    /// The schema version.
    fn schema_version(&mut self) -> Result<i64, Error>;
    /// Whether its schema keeps the work a run did (tokens, requests, units), for `report --per`.
    fn keeps_work(&mut self) -> Result<bool, Error>;
    /// Keeps a log for MLflow that could not be sent, to send later (`exa sync mlflow`).
    fn outbox_add(&mut self, record_id: i64, run_id: &str, payload: &str, error: &str) -> Result<(), Error>;
    /// The logs waiting to be sent, oldest first, at most `limit`, and only those tried fewer than
    /// `max_attempts` times when given: (outbox id, payload).
    fn outbox_pending(&mut self, max_attempts: Option<i64>, limit: usize) -> Result<Vec<(i64, String)>, Error>;
    /// Marks a waiting log sent, or notes why it failed again.
    fn outbox_mark(&mut self, id: i64, error: Option<&str>) -> Result<(), Error>;
    /// Keeps a change to the budgets (a budget set, or removed): appended, never changing one kept.
    fn budget_change(&mut self, change: &crate::model::budget::Change) -> Result<(), Error>;
    /// Every change to the budgets, oldest first; none in a ledger from before budgets.
    fn budget_changes(&mut self) -> Result<Vec<crate::model::budget::Change>, Error>;
    /// Keeps a budget's event to send (`key`: what crossed, and where it goes), unless one with that key is kept:
    /// whether it is new. One kept `sent` is never sent (a lower line passed over by a higher one at once).
    fn budget_event_add(&mut self, key: &str, payload: &str, at: i64, sent: bool) -> Result<bool, Error>;
    /// The events not yet sent to one of `destinations` (a key's first word), oldest first, at most `limit`:
    /// (id, key, payload).
    fn budget_events_pending(&mut self, destinations: &[&str], limit: usize) -> Result<Vec<(i64, String, String)>, Error>;
    /// Claims an unsent event for this run at `at`, unless another run holds a claim made after `stale_before`:
    /// whether this run may send it (two `notify` at once never send one event twice).
    fn budget_event_claim(&mut self, id: i64, at: i64, stale_before: i64) -> Result<bool, Error>;
    /// Marks a claimed event sent, or notes why it failed again and lets it go for the next run.
    fn budget_event_mark(&mut self, id: i64, error: Option<&str>, at: i64) -> Result<(), Error>;
    /// Totals over the records `filter` selects, grouped `by`.
    fn report(&mut self, by: report::By, filter: report::Filter) -> Result<report::Report, Error>;
    /// The counted records of every run the filter selects, for charge lines and charts.
    fn runs(&mut self, filter: &report::Filter) -> Result<Vec<charges::RunCharge>, Error>;
    /// Where it lives.
    fn location(&self) -> Location;
}

/// Where records live: a SQLite file (the default), or a PostgreSQL database.
#[derive(Clone)]
pub enum Db {
    Sqlite(PathBuf),
    Postgres(Box<postgres::Conn>),
}

impl Db {
    /// A SQLite file, or a PostgreSQL database (a `postgres://` URL, the scheme in any case, or a libpq
    /// keyword string), with the password sources and each exchange's deadline for the latter. A URL of any
    /// other scheme is refused, never taken for a file name.
    pub fn parse(s: &str, password: Option<&str>, pgpass: Option<&Path>, deadline: std::time::Duration) -> Result<Db, Error> {
        let keywords = match postgres::form(s)? {
            postgres::Spelling::Path => return Ok(Db::Sqlite(PathBuf::from(s))),
            postgres::Spelling::Url => false,
            postgres::Spelling::Keywords => true,
        };
        Ok(Db::Postgres(Box::new(postgres::Conn::parse(s, keywords, password, pgpass, deadline)?)))
    }

    /// As a report shows it: the path, or the URL without its password.
    pub fn shown(&self) -> String {
        match self {
            Db::Sqlite(p) => p.display().to_string(),
            Db::Postgres(c) => c.shown().to_string(),
        }
    }
}

/// Opens the ledger to read: never creates, migrates or writes.
/// `None` when there is nothing recorded there yet.
pub fn open_read(db: &Db) -> Result<Option<Box<dyn Ledger>>, Error> {
    match db {
        Db::Sqlite(path) if !path.exists() => Ok(None),
        Db::Sqlite(path) => Ok(Store::open_read(path)?.map(|s| Box::new(s) as Box<dyn Ledger>)),
        Db::Postgres(c) => Ok(postgres::Pg::open_read((**c).clone())?.map(|p| Box::new(p) as Box<dyn Ledger>)),
    }
}

/// Opens the ledger for writing, creating and migrating it as needed.
pub fn open(db: &Db) -> Result<Box<dyn Ledger>, Error> {
    open_soon(db).wait()
}

/// A ledger being opened for writing while the caller works: a PostgreSQL connection (a round trip to
/// start a backend, authentication) is made on a thread meanwhile; a SQLite file is opened, and made,
/// only when `wait` asks for it, so work refused before then leaves no file behind.
pub struct Opening(OpeningKind);

enum OpeningKind {
    Sqlite(PathBuf),
    Postgres(String, std::thread::JoinHandle<Result<postgres::Pg, Error>>),
}

/// Starts opening the ledger for writing; `Opening::wait` gives it.
pub fn open_soon(db: &Db) -> Opening {
    Opening(match db {
        Db::Sqlite(path) => OpeningKind::Sqlite(path.clone()),
        Db::Postgres(c) => {
            let conn = (**c).clone();
            OpeningKind::Postgres(c.shown().to_string(), std::thread::spawn(move || postgres::Pg::open_write(conn)))
        }
    })
}

impl Opening {
    /// The ledger, as `open` gives it.
    pub fn wait(self) -> Result<Box<dyn Ledger>, Error> {
        match self.0 {
            OpeningKind::Sqlite(path) => Ok(Box::new(Store::open(&path)?)),
            OpeningKind::Postgres(shown, connecting) => match connecting.join() {
                Ok(Ok(p)) => Ok(Box::new(p)),
                Ok(Err(e)) => Err(e),
                Err(_) => Err(Error::Failed(format!("{shown}: the connection's thread failed"))),
            },
        }
    }
}

/// A fresh idempotency key for a record: made before it is sent, kept with it, so a retry never writes it twice.
pub fn new_key() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// This host's name, for records.
pub fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most buf.len() bytes into the buffer.
    let ok = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) } == 0;
    let end = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
    if ok && end > 0 {
        String::from_utf8_lossy(&buf[..end]).into_owned()
    } else {
        "unknown".into()
    }
}

/// Checks a model name or run id given on the command line.
pub fn check_record_name(what: &str, s: &str) -> Result<(), Error> {
    if s.trim().is_empty() || s.chars().count() > 200 || s.chars().any(char::is_control) {
        return Err(Error::Usage(format!("{what} '{}' must be 1 to 200 printable characters", s.escape_default())));
    }
    // Reports show a record without a run id as "(record N)": such a name would pass for one.
    if s.starts_with("(record ") && s.ends_with(')') {
        return Err(Error::Usage(format!("{what} '{s}' is reserved: reports name records without a run id this way")));
    }
    Ok(())
}

/// A model name made from a scheduler's field (a job's name, account, wckey or comment), as the importer and
/// the Slurm prolog's measurement both make it, so that they name one job alike: the field trimmed, kept when it
/// is a good name, else cleaned as the importer's parsers clean every field (`text::clean`: a tab or line break a
/// space, another control character `?`) and cut to 200 characters; `(no WHAT)` when empty. Cleaning twice is
/// cleaning once, so a name the importer read already cleaned and the prolog's raw one make the same model.
pub fn model_of(field: Option<&str>, what: &str) -> String {
    // Cleaned first, then trimmed: what the importer's parser already did to the field, done again, is nothing.
    let cleaned = field.map(crate::text::clean_cow);
    match cleaned.as_deref().map(str::trim).filter(|f| !f.is_empty()) {
        Some(f) if check_record_name("model", f).is_ok() => f.to_string(),
        Some(f) => {
            let cut = f.chars().take(200).collect::<String>().trim().to_string();
            if cut.is_empty() || check_record_name("model", &cut).is_err() {
                format!("(no {what})")
            } else {
                cut
            }
        }
        None => format!("(no {what})"),
    }
}

/// Refuses a database that cannot keep a record, before anything runs.
pub fn check_writable(db: &Db) -> Result<(), Error> {
    let Db::Sqlite(path) = db else { return Ok(()) };
    let s = path.to_string_lossy();
    if s == ":memory:" || s.is_empty() || s.starts_with("file::memory:") {
        return Err(Error::Usage(format!("--db {s}: an in-memory database forgets every record when exa exits; name a file")));
    }
    if path.is_dir() {
        return Err(Error::Usage(format!("--db {}: is a directory; name a file", path.display())));
    }
    Ok(())
}

/// A carbon estimate for the store's tests: provider `p` (±30%), one coefficient (PUE), kWh from the GPU-hours, a
/// band of its own, and the given notes.
#[cfg(test)]
pub(crate) fn test_estimate(gpu_hours: f64, pue: f64, notes: &[&str]) -> crate::model::Estimate {
    use crate::model::{Coef, Domain, Estimate, ProviderInfo, ProviderKind, Source};
    Estimate {
        domain: Domain::Carbon,
        provider: ProviderInfo {
            name: "p".into(),
            kind: ProviderKind::Builtin,
            uncertainty: Some(0.3),
            methodology: "m".into(),
            source: None,
            origin: None,
            digest: "d".into(),
        },
        provider_source: Source::Default,
        requested_provider: None,
        fallback_reason: None,
        inputs: [("gpu_hours".to_string(), gpu_hours)].into_iter().collect(),
        coefficients: [("pue".to_string(), Coef::new(pue, Source::Default))].into_iter().collect(),
        outputs: [("kwh".to_string(), gpu_hours * 0.7)].into_iter().collect(),
        range: Some([("kwh".to_string(), [gpu_hours * 0.5, gpu_hours])].into_iter().collect()),
        grid: None,
        footprint: None,
        notes: notes.iter().map(ToString::to_string).collect(),
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_raw_name_and_the_importers_cleaned_one_make_one_model() {
        let long = "n".repeat(250);
        for raw in [
            "-dash",
            "tab\there",
            "esc\u{1b}[2Jname",
            long.as_str(),
            "  plain  ",
            "\u{1b}",
            "line\nbreak",
            "run\u{200f}1",
            "\u{b}job",
            "job\u{85}",
        ] {
            let imported = crate::text::clean_word(raw);
            assert_eq!(super::model_of(Some(raw), "name"), super::model_of(Some(&imported), "name"), "{raw:?}");
        }
        assert_eq!(super::model_of(Some("esc\u{1b}[2J"), "name"), "esc?[2J");
        assert_eq!(super::model_of(Some(&long), "name").chars().count(), 200);
    }
    use super::EstimateText;

    /// An estimate's JSON as serde writes it, with coefficients named like the figures and the given notes.
    fn whole(inputs: &str, outputs: &str, range: &str, notes: &str) -> String {
        format!(
            r#"{{"domain":"carbon","provider":{{"name":"p","kind":"builtin","uncertainty":0.3,"origin":null}},"provider_source":"default","requested_provider":null,"fallback_reason":null,"inputs":{inputs},"coefficients":{{"inputs":{{"value":1.0,"source":"default"}},"outputs":{{"value":2.0,"source":"default"}}}},"outputs":{outputs},"range":{range},"grid":null,"notes":{notes}}}"#
        )
    }

    #[test]
    fn a_split_estimate_puts_together_byte_for_byte() {
        let inputs = r#"{"gpu_hours":14.383333333333333,"cpu_hours":0.1}"#;
        let outputs = r#"{"kwh":13.808,"co2e_g":4142.4}"#;
        // Notes quoting the placeholders, no range: each split still gives back the very text it was made from.
        for (range, notes) in [
            (r#"{"kwh":[9.6656,17.9504],"co2e_g":[2899.68,5385.12]}"#, "[]"),
            (r#"{"kwh":[1.0,2.0]}"#, r#"["\"inputs\":{},\"coefficients\":","\"outputs\":{},\"range\":null,"]"#),
            ("null", r#"["plain"]"#),
        ] {
            let w = whole(inputs, outputs, range, notes);
            let t = EstimateText::split(w.clone(), inputs, outputs, range);
            let EstimateText::Split { shape, figures } = &t else { panic!("kept whole: {w}") };
            assert!(!shape.contains("14.383333333333333") && !shape.contains("4142.4"), "{shape}");
            assert_eq!(figures, &format!(r#"{{"inputs":{inputs},"outputs":{outputs},"range":{range}}}"#));
            assert_eq!(t.whole().unwrap(), w);
            assert_eq!(checked(t.clone()), t);
            // Two estimates priced alike share their shape.
            let other = r#"{"gpu_hours":2.0,"cpu_hours":0.1}"#;
            let u = EstimateText::split(whole(other, outputs, range, notes), other, outputs, range);
            assert!(matches!(&u, EstimateText::Split { shape: s2, .. } if s2 == shape), "{u:?}");
        }
    }

    #[test]
    fn figures_that_are_not_the_estimates_own_keep_it_whole() {
        let w = whole(r#"{"gpu_hours":1.0}"#, r#"{"kwh":1.0}"#, "null", "[]");
        assert_eq!(EstimateText::split(w.clone(), r#"{"gpu_hours":2.0}"#, r#"{"kwh":1.0}"#, "null"), EstimateText::Whole(w));
    }

    #[test]
    fn parts_that_do_not_fit_are_null_never_copied_on() {
        let t = EstimateText::Split { shape: r#"{"x":1}"#.into(), figures: r#"{"inputs":{},"outputs":{},"range":null}"#.into() };
        assert_eq!(t.whole(), None);
        assert_eq!(checked(t), EstimateText::Whole("null".into()));
        assert_eq!(checked(EstimateText::from("not json")), EstimateText::Whole("null".into()));
        assert_eq!(checked(EstimateText::from("{}")), EstimateText::from("{}"));
    }

    /// The estimate text as a line read back carries it (`Line::checked`).
    fn checked(t: EstimateText) -> EstimateText {
        let mut l = line_of(&estimate(1.0, 1.0, &[]), &mut super::Shapes::default());
        l.estimate = t;
        l.checked().estimate
    }

    fn estimate(gpu_hours: f64, pue: f64, notes: &[&str]) -> crate::model::Estimate {
        super::test_estimate(gpu_hours, pue, notes)
    }

    /// Estimate `e` as a line of the given hours keeps it, its shape from `shapes`.
    fn line_of(e: &crate::model::Estimate, shapes: &mut super::Shapes) -> super::Line {
        let r = crate::model::NewRecord {
            model: "m".into(),
            run_id: None,
            recorded_at: 0,
            host: "h".into(),
            estimate: e.clone(),
            measured: None,
            part: false,
            key: "k".into(),
            labels: crate::model::Labels::default(),
            work: crate::model::Work::default(),
        };
        super::Line::of_alike(&r, shapes)
    }

    /// The shape an estimate keeps, split or by a form.
    fn shape_of(t: &EstimateText) -> &std::sync::Arc<str> {
        match t {
            EstimateText::Split { shape, .. } | EstimateText::Formed { shape, .. } => shape,
            EstimateText::Whole(_) => panic!("kept whole: {t:?}"),
        }
    }

    #[test]
    fn estimates_priced_alike_share_one_shape_and_put_together_as_each_was_written() {
        let mut shapes = super::Shapes::default();
        let first = line_of(&estimate(1.5, 1.2, &[]), &mut shapes);
        let shape = std::sync::Arc::clone(shape_of(&first.estimate));
        // Other figures, the same shape: the very text, not a copy; other coefficients, notes or a zero's sign: another.
        for (e, alike) in [
            (estimate(7.25, 1.2, &[]), true),
            (estimate(2.0, 1.3, &[]), false),
            (estimate(2.0, 1.2, &["a note"]), false),
            (estimate(0.0, 1.2, &[]), true),
            (estimate(-0.0, 1.2, &[]), true),
            (estimate(3.0, -0.0, &[]), false),
            (estimate(3.0, 0.0, &[]), false),
        ] {
            let l = line_of(&e, &mut shapes);
            assert_eq!(l.estimate_json().as_deref(), Some(serde_json::to_string(&e).unwrap().as_str()), "{e:?}");
            assert_eq!(std::sync::Arc::ptr_eq(&shape, shape_of(&l.estimate)), alike, "{e:?}");
        }
        // Kept among the last few: the first shape is found again after the others.
        let again = line_of(&estimate(9.0, 1.2, &[]), &mut shapes);
        assert!(std::sync::Arc::ptr_eq(&shape, shape_of(&again.estimate)));
    }

    #[test]
    fn lines_of_one_shape_taking_turns_between_forms_find_each_again() {
        let mut shapes = super::Shapes::default();
        let form_of = |l: &super::Line| match &l.estimate {
            EstimateText::Formed { form, .. } => std::sync::Arc::clone(form),
            other => panic!("no form: {other:?}"),
        };
        // A band its output gives back, and one made otherwise: two forms of one shape, in turns.
        let mut given = estimate(2.0, 1.2, &[]);
        given.range = Some([("kwh".to_string(), crate::num::band(1.4, 0.3))].into_iter().collect());
        let mut apart = given.clone();
        apart.range = Some([("kwh".to_string(), [1.0, 2.0])].into_iter().collect());
        let (a, b) = (form_of(&line_of(&given, &mut shapes)), form_of(&line_of(&apart, &mut shapes)));
        assert!(!std::sync::Arc::ptr_eq(&a, &b));
        for _ in 0..3 {
            for (e, form) in [(&given, &a), (&apart, &b)] {
                let l = line_of(e, &mut shapes);
                assert!(std::sync::Arc::ptr_eq(form, &form_of(&l)), "a form made again: {:?}", l.estimate);
                assert_eq!(l.estimate_json().as_deref(), Some(serde_json::to_string(e).unwrap().as_str()));
            }
        }
    }

    #[test]
    fn a_form_keeps_only_the_figures_the_columns_do_not_give_back() {
        let mut shapes = super::Shapes::default();
        // Its band from its output and the provider's uncertainty, the hours and kWh in their columns: nothing apart.
        let mut e = estimate(2.0, 1.2, &[]);
        e.range = Some([("kwh".to_string(), crate::num::band(1.4, 0.3))].into_iter().collect());
        let l = line_of(&e, &mut shapes);
        let EstimateText::Formed { form, rest, .. } = &l.estimate else { panic!("no form: {:?}", l.estimate) };
        assert_eq!(form.text, r#"{"inputs":["gpu_hours"],"outputs":["kwh"],"range":{"kwh":0.3}}"#);
        assert_eq!(rest, &None);
        assert_eq!(l.estimate_json().as_deref(), Some(serde_json::to_string(&e).unwrap().as_str()));
        // A band made otherwise, an input with no column and a negative zero (SQLite keeps a positive one) are kept
        // apart, as the estimate wrote them; the form is another, and put together gives the very text again.
        let mut odd = e.clone();
        odd.range = Some([("kwh".to_string(), [1.0, 2.0])].into_iter().collect());
        odd.inputs.insert("gpu_kwh".into(), 0.25);
        odd.outputs.insert("kwh".into(), -0.0);
        let l = line_of(&odd, &mut shapes);
        let EstimateText::Formed { form, rest, .. } = &l.estimate else { panic!("no form: {:?}", l.estimate) };
        assert_eq!(form.text, r#"{"inputs":["gpu_hours","gpu_kwh"],"outputs":["kwh"],"range":{"kwh":null}}"#);
        assert_eq!(rest.as_deref(), Some(r#"{"inputs":{"gpu_kwh":0.25},"outputs":{"kwh":-0.0},"range":{"kwh":[1.0,2.0]}}"#));
        assert_eq!(l.estimate_json().as_deref(), Some(serde_json::to_string(&odd).unwrap().as_str()));
        // A name SQL could not find a figure by: no form, the estimate split as before.
        let mut quoted = e.clone();
        quoted.outputs.insert("a\"b".into(), 1.0);
        let l = line_of(&quoted, &mut shapes);
        assert!(matches!(l.estimate, EstimateText::Split { .. }), "{:?}", l.estimate);
        assert_eq!(l.estimate_json().as_deref(), Some(serde_json::to_string(&quoted).unwrap().as_str()));
    }
}
