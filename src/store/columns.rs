//! A record's columns, stated once: each column's name, its type in each store, the schema version of each
//! store that added it, and how it is read from a line and written into one. The stores make their INSERTs,
//! bind orders and SELECT lists from `RECORD`, and the step that adds a column newer than their hand-written
//! migrations from its `since`: a new figure is a `Figure` and a line in `RECORD`.
//!
//! What a report sums (the cells, the counting rule's SQL) is the report's, not a record's: a figure stored
//! here is kept, copied between stores and read back; one a report should sum is named there too.

use super::Line;

/// A figure a record may have none of (never 0 for none), each a nullable real column of its own name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Figure {
    Kwh,
    Co2eG,
    CostUsd,
    /// The provider's stated uncertainty (a fraction).
    Uncertainty,
    /// A measurement's length, seconds.
    DurationS,
    /// A measurement's GPU energy, kWh.
    MeasuredKwh,
    /// The hardware's embodied carbon, beside `co2e_g` (never in it).
    EmbodiedCo2eG,
    /// The water used, where a WUE is set.
    WaterL,
    /// The job's part of its node's platform energy, where a meter read the node (`Measured::node`).
    NodeKwh,
    /// Of that, its part of the remainder beyond what the counters measured (never below zero: `Measured::node`).
    NodeRestKwh,
}

/// How many `Figure`s there are: one for each figure column of `RECORD`.
const FIGURES: usize = {
    let mut n = 0;
    let mut i = 0;
    while i < RECORD.len() {
        if RECORD[i].figure.is_some() {
            n += 1;
        }
        i += 1;
    }
    n
};

// Each figure column holds its own `Figure`, numbered from 0 below `FIGURES`: a `FigureSet` has a place for each.
const _: () = {
    let mut seen = [false; FIGURES];
    let mut i = 0;
    while i < RECORD.len() {
        if let Some(f) = RECORD[i].figure {
            assert!((f as usize) < FIGURES && !seen[f as usize], "a figure column per Figure, and no Figure without one");
            seen[f as usize] = true;
        }
        i += 1;
    }
};

/// An estimate output kept in a figure's column (`Origin::Output`): the figure, the output's name, whether only a
/// carbon record keeps it, and whether its column gives it back to a form (`Figure::of_output`).
type Output = (Figure, &'static str, bool, bool);

impl Figure {
    /// The estimate outputs kept in figures' columns: listed once, for every record made.
    fn output_columns() -> &'static [Output] {
        static OUTPUTS: std::sync::LazyLock<Vec<Output>> = std::sync::LazyLock::new(|| {
            RECORD
                .iter()
                .filter_map(|c| match (c.figure, c.origin) {
                    (Some(f), Origin::Output { carbon }) => Some((f, c.name, carbon, c.since[0] <= FORMED)),
                    _ => None,
                })
                .collect()
        });
        &OUTPUTS
    }

    /// The figure an estimate's output of this name is kept in, where its column may give it back (`store::form`):
    /// the outputs `Origin::Output` names whose column the forms' SQL view reads (those the schema had when forms
    /// came, `sqlite::FORMS_VERSION`); any other output is kept in the estimate's own text.
    pub fn of_output(name: &str) -> Option<Figure> {
        Figure::output_columns().iter().find(|o| o.1 == name && o.3).map(|o| o.0)
    }

    /// The figures taken from an estimate's outputs of their names, each with whether only a carbon record keeps it.
    pub fn outputs() -> impl Iterator<Item = (Figure, &'static str, bool)> {
        Figure::output_columns().iter().map(|&(f, name, carbon, _)| (f, name, carbon))
    }
}

/// The SQLite schema whose records' forms give their figures back from their columns (`sqlite::FORMS_VERSION`).
const FORMED: i64 = 10;

/// A record's figures, by `Figure`: `get` answers None for a figure it does not have.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct FigureSet([Option<f64>; FIGURES]);

impl FigureSet {
    pub fn get(&self, f: Figure) -> Option<f64> {
        self.0[f as usize]
    }

    pub fn set(&mut self, f: Figure, v: Option<f64>) {
        self.0[f as usize] = v;
    }

    /// These figures with `f` set to `v`.
    pub fn with(mut self, f: Figure, v: Option<f64>) -> FigureSet {
        self.set(f, v);
        self
    }
}

/// A column's type, as each store declares it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Text alike from record to record (a model, a provider, a host): a writer binds it only when it changes.
    Word,
    /// Text of each record's own (its key, its run).
    Text,
    Real,
    /// A whole number, 32 bits in PostgreSQL.
    Int4,
    /// A whole number, 64 bits.
    Int8,
    Flag,
}

impl Kind {
    pub fn sqlite(self) -> &'static str {
        match self {
            Kind::Word | Kind::Text => "TEXT",
            Kind::Real => "REAL",
            Kind::Int4 | Kind::Int8 | Kind::Flag => "INTEGER",
        }
    }

    pub fn postgres(self) -> &'static str {
        match self {
            Kind::Word | Kind::Text => "text",
            Kind::Real => "float8",
            Kind::Int4 => "integer",
            Kind::Int8 => "bigint",
            Kind::Flag => "boolean",
        }
    }
}

/// A column's value as a line holds it or a store gives it back.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value<'a> {
    Null,
    Text(&'a str),
    Real(f64),
    Int(i64),
    Flag(bool),
}

impl Value<'_> {
    fn real(self) -> Option<f64> {
        match self {
            Value::Real(v) => Some(v),
            Value::Int(v) => Some(v as f64),
            _ => None,
        }
    }

    fn int(self) -> Option<i64> {
        match self {
            Value::Int(v) => Some(v),
            _ => None,
        }
    }

    fn flag(self) -> bool {
        match self {
            Value::Flag(v) => v,
            Value::Int(v) => v != 0,
            _ => false,
        }
    }

    fn word(self) -> Option<crate::model::Word> {
        match self {
            Value::Text(t) => Some(t.into()),
            _ => None,
        }
    }
}

/// Where a figure's value comes from when a record is made (`Line::of`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// What the record's own head or measurement says (made by `Line::columns` itself).
    Made,
    /// The estimate's output of the column's name; `carbon`: a carbon record's only (a cost provider's output of
    /// that name is its own).
    Output { carbon: bool },
}

/// One column of a record.
#[derive(Clone, Copy)]
pub struct Column {
    pub name: &'static str,
    pub kind: Kind,
    /// Whether it may be NULL. A column added after the first schema always may.
    pub null: bool,
    /// The schema versions that added it: SQLite's, PostgreSQL's.
    pub since: [i64; 2],
    /// The figure it holds, where it is one.
    pub figure: Option<Figure>,
    pub origin: Origin,
    pub get: for<'l> fn(&'l Line) -> Value<'l>,
    pub set: fn(&mut Line, Value<'_>),
}

impl std::fmt::Debug for Column {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "column {} ({:?})", self.name, self.kind)
    }
}

/// Which store, for `Column::since`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Store {
    Sqlite,
    Postgres,
}

impl Column {
    /// Whether a schema of `store` at `version` has it.
    pub fn in_schema(&self, store: Store, version: i64) -> bool {
        self.since[store as usize] <= version
    }

    /// The column's type in `store`'s DDL.
    pub fn ddl_type(&self, store: Store) -> &'static str {
        match store {
            Store::Sqlite => self.kind.sqlite(),
            Store::Postgres => self.kind.postgres(),
        }
    }
}

fn text(v: Option<&str>) -> Value<'_> {
    v.map_or(Value::Null, Value::Text)
}

fn real(v: Option<f64>) -> Value<'static> {
    v.map_or(Value::Null, Value::Real)
}

/// A figure's column.
macro_rules! figure {
    ($f:ident, $name:literal, $since:expr, $origin:expr) => {
        Column {
            name: $name,
            kind: Kind::Real,
            null: true,
            since: $since,
            figure: Some(Figure::$f),
            origin: $origin,
            get: |l| real(l.figures.get(Figure::$f)),
            set: |l, v| l.figures.set(Figure::$f, v.real()),
        }
    };
}

/// A column a record's head or measurement fills.
macro_rules! made {
    ($name:literal, $kind:ident, $null:literal, $since:expr, $get:expr, $set:expr) => {
        Column { name: $name, kind: Kind::$kind, null: $null, since: $since, figure: None, origin: Origin::Made, get: $get, set: $set }
    };
}

const MADE: Origin = Origin::Made;
const OUTPUT: Origin = Origin::Output { carbon: false };
const CARBON_OUTPUT: Origin = Origin::Output { carbon: true };

/// Every column of a record, in the order each store's INSERT binds them. A new figure: a `Figure`, and a line
/// here with the next schema version of each store (`sqlite::SCHEMA_VERSION` + 1, `postgres::SCHEMA_VERSION`
/// + 1), which adds its column; nothing else names it.
pub const RECORD: &[Column] = &[
    made!("idem_key", Text, false, [3, 1], |l| Value::Text(&l.key), |l, v| {
        if let Value::Text(k) = v {
            l.key = k.to_string();
        }
    }),
    made!("model", Word, false, [1, 1], |l| Value::Text(&l.model), |l, v| l.model = v.word().unwrap_or_default()),
    made!("run_id", Text, true, [1, 1], |l| text(l.run_id.as_deref()), |l, v| l.run_id = v.word()),
    made!("recorded_at", Int8, false, [1, 1], |l| Value::Int(l.recorded_at), |l, v| l.recorded_at = v.int().unwrap_or(0)),
    made!("host", Word, false, [1, 1], |l| Value::Text(&l.host), |l, v| l.host = v.word().unwrap_or_default()),
    made!("domain", Word, false, [1, 1], |l| Value::Text(&l.domain), |l, v| l.domain = v.word().unwrap_or_default()),
    made!("provider", Word, false, [1, 1], |l| Value::Text(&l.provider), |l, v| l.provider = v.word().unwrap_or_default()),
    made!("provider_kind", Word, false, [1, 1], |l| Value::Text(&l.provider_kind), |l, v| l.provider_kind = v.word().unwrap_or_default()),
    made!("provider_digest", Word, false, [1, 1], |l| Value::Text(&l.provider_digest), |l, v| l.provider_digest =
        v.word().unwrap_or_default()),
    made!("gpu_hours", Real, false, [1, 1], |l| Value::Real(l.gpu_hours), |l, v| l.gpu_hours = v.real().unwrap_or(0.0)),
    made!("cpu_hours", Real, false, [1, 1], |l| Value::Real(l.cpu_hours), |l, v| l.cpu_hours = v.real().unwrap_or(0.0)),
    figure!(Kwh, "kwh", [1, 1], OUTPUT),
    figure!(Co2eG, "co2e_g", [1, 1], OUTPUT),
    figure!(CostUsd, "cost_usd", [1, 1], OUTPUT),
    figure!(Uncertainty, "uncertainty", [1, 1], MADE),
    made!("measured", Flag, false, [1, 1], |l| Value::Flag(l.measured), |l, v| l.measured = v.flag()),
    figure!(DurationS, "duration_s", [1, 1], MADE),
    made!("device_count", Int4, true, [1, 1], |l| l.device_count.map_or(Value::Null, Value::Int), |l, v| l.device_count = v.int()),
    figure!(MeasuredKwh, "measured_kwh", [1, 1], MADE),
    made!("part", Flag, false, [2, 1], |l| Value::Flag(l.part), |l, v| l.part = v.flag()),
    made!("job_user", Word, true, [5, 4], |l| text(l.labels.user.as_deref()), |l, v| l.labels.user = v.word()),
    made!("job_account", Word, true, [5, 4], |l| text(l.labels.account.as_deref()), |l, v| l.labels.account = v.word()),
    made!("job_partition", Word, true, [5, 4], |l| text(l.labels.partition.as_deref()), |l, v| l.labels.partition = v.word()),
    figure!(EmbodiedCo2eG, "embodied_co2e_g", [8, 8], CARBON_OUTPUT),
    figure!(WaterL, "water_l", [8, 8], CARBON_OUTPUT),
    made!("tokens", Real, true, [8, 8], |l| real(l.work.tokens), |l, v| l.work.tokens = v.real()),
    made!("prompt_tokens", Real, true, [8, 8], |l| real(l.work.prompt_tokens), |l, v| l.work.prompt_tokens = v.real()),
    made!("requests", Real, true, [8, 8], |l| real(l.work.requests), |l, v| l.work.requests = v.real()),
    // The unit's name before its count: the count is set on the unit the name made.
    made!("unit_name", Word, true, [8, 8], |l| text(l.work.unit.as_ref().map(|u| u.0.as_str())), |l, v| l.work.unit =
        v.word().map(|n| (n.into(), 0.0))),
    made!("units", Real, true, [8, 8], |l| real(l.work.unit.as_ref().map(|u| u.1)), |l, v| {
        if let (Some(u), Some(n)) = (l.work.unit.as_mut(), v.real()) {
            u.1 = n;
        }
    }),
    made!("k8s_namespace", Word, true, [13, 10], |l| text(l.labels.namespace.as_deref()), |l, v| l.labels.namespace = v.word()),
    made!("tags", Word, true, [13, 10], |l| text(l.labels.tags.as_deref()), |l, v| l.labels.tags = v.word()),
    figure!(NodeKwh, "node_kwh", [16, 12], MADE),
    figure!(NodeRestKwh, "node_rest_kwh", [16, 12], MADE),
    made!("node_policy", Word, true, [16, 12], |l| text(l.node_policy.as_deref()), |l, v| l.node_policy = v.word()),
];

/// The schema versions (SQLite's, PostgreSQL's) that added a column, by its name: a version named once, checked as the
/// crate builds, that a later column cannot move.
pub const fn since_of(name: &str) -> [i64; 2] {
    let mut i = 0;
    while i < RECORD.len() {
        let (a, b) = (RECORD[i].name.as_bytes(), name.as_bytes());
        if a.len() == b.len() {
            let mut j = 0;
            while j < a.len() && a[j] == b[j] {
                j += 1;
            }
            if j == a.len() {
                return RECORD[i].since;
            }
        }
        i += 1;
    }
    panic!("no such record column")
}

// A pod's namespace came with its tags (`K8S_VERSION` is theirs), and the node's three figures together.
const _: () = {
    let (ns, tags) = (since_of("k8s_namespace"), since_of("tags"));
    assert!(ns[0] == tags[0] && ns[1] == tags[1]);
    let (node, rest, policy) = (since_of("node_kwh"), since_of("node_rest_kwh"), since_of("node_policy"));
    assert!(node[0] == rest[0] && node[1] == rest[1] && node[0] == policy[0] && node[1] == policy[1]);
};

/// The columns' names in `RECORD`'s order, each after `prefix` (`r.`, or none), as a schema of `store` at
/// `version` has them: `NULL` (of the column's type, for PostgreSQL) for one it does not.
pub fn select(store: Store, version: i64, prefix: &str) -> String {
    let mut out = String::new();
    for (i, c) in RECORD.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        match (c.in_schema(store, version), store) {
            (true, _) => {
                out.push_str(prefix);
                out.push_str(c.name);
            }
            (false, Store::Sqlite) => out.push_str("NULL"),
            (false, Store::Postgres) => {
                out.push_str("NULL::");
                out.push_str(c.kind.postgres());
            }
        }
    }
    out
}

/// The columns' names in `RECORD`'s order.
pub fn names() -> String {
    RECORD.iter().map(|c| c.name).collect::<Vec<_>>().join(", ")
}

/// The place (from 0) of a column in `RECORD`.
pub fn at(name: &str) -> usize {
    RECORD.iter().position(|c| c.name == name).expect("a record's column")
}

/// The newest schema version of `store` that a column of `columns` names: at least the hand-written migrations'
/// count.
pub const fn newest(columns: &[Column], store: Store, migrations: usize) -> i64 {
    let mut newest = migrations as i64;
    let mut i = 0;
    while i < columns.len() {
        if columns[i].since[store as usize] > newest {
            newest = columns[i].since[store as usize];
        }
        i += 1;
    }
    newest
}

/// Whether a column of `columns` is added to `store` at `version` (a compile-time check: `names_version`).
pub const fn names_version(columns: &[Column], store: Store, version: i64) -> bool {
    let mut i = 0;
    while i < columns.len() {
        if columns[i].since[store as usize] == version {
            return true;
        }
        i += 1;
    }
    false
}

/// The statement that takes a schema of `store` to `version` adding the columns of `columns` that name it, where
/// the hand-written migrations (`migrations` of them) do not: `table` is the records' table.
pub fn added(columns: &[Column], store: Store, version: i64, migrations: usize, table: &str) -> String {
    if version <= migrations as i64 {
        return String::new();
    }
    columns
        .iter()
        .filter(|c| c.since[store as usize] == version)
        // PostgreSQL's steps add what they add if it is not there, as its written-out ones do.
        .map(|c| match store {
            Store::Sqlite => format!("ALTER TABLE {table} ADD COLUMN {} {};\n", c.name, c.ddl_type(store)),
            Store::Postgres => format!("ALTER TABLE {table} ADD COLUMN IF NOT EXISTS {} {};\n", c.name, c.ddl_type(store)),
        })
        .collect()
}

impl Kind {
    /// Whether a value a store gave back is of this type (NULL is: a column a schema lacks reads as NULL, and its
    /// line keeps the default).
    pub fn holds(self, v: Value<'_>) -> bool {
        matches!(
            (self, v),
            (_, Value::Null)
                | (Kind::Word | Kind::Text, Value::Text(_))
                | (Kind::Real, Value::Real(_) | Value::Int(_))
                | (Kind::Int4 | Kind::Int8, Value::Int(_))
                | (Kind::Flag, Value::Flag(_) | Value::Int(_))
        )
    }
}

/// The line whose columns `value` gives, in `RECORD`'s order, its estimate left empty; or the first column whose
/// value is not of its type (a store edited by hand).
pub fn line<'v>(mut value: impl FnMut(usize, &Column) -> Value<'v>) -> Result<Line, &'static Column> {
    let mut l = Line::empty();
    for (i, c) in RECORD.iter().enumerate() {
        let v = value(i, c);
        if !c.kind.holds(v) {
            return Err(c);
        }
        (c.set)(&mut l, v);
    }
    Ok(l)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A column's value read back is the one written, for every column: `get` and `set` name the same field.
    #[test]
    fn every_column_gives_back_what_it_was_given() {
        let mut l = Line::empty();
        l.key = "k".into();
        l.model = "m".into();
        l.run_id = Some("r".into());
        l.recorded_at = 7;
        l.host = "h".into();
        l.domain = "carbon".into();
        l.provider = "p".into();
        l.provider_kind = "builtin".into();
        l.provider_digest = "d".into();
        l.gpu_hours = 1.5;
        l.cpu_hours = 2.5;
        for (i, f) in RECORD.iter().filter_map(|c| c.figure).enumerate() {
            l.figures.set(f, Some(10.0 + i as f64));
        }
        l.measured = true;
        l.device_count = Some(4);
        // `part` keeps false: the one flag apart from `measured`'s true.
        l.labels = crate::model::Labels {
            namespace: Some("ns".into()),
            tags: Some(r#"{"label:team":"t"}"#.into()),
            ..crate::model::Labels::of(Some("u"), Some("a"), Some("q"))
        };
        l.work = crate::model::Work { tokens: Some(1.0), prompt_tokens: Some(2.0), requests: Some(3.0), unit: Some(("img".into(), 4.0)) };
        let back = line(|_, c| (c.get)(&l)).expect("every value is of its column's type");
        let values = |l: &Line| RECORD.iter().map(|c| format!("{:?}", (c.get)(l))).collect::<Vec<_>>();
        assert_eq!(values(&back), values(&l));
        // Each column holds its own value: no two of the set line's are alike.
        let mut seen = values(&l);
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), RECORD.len());
    }

    /// A column newer than a store's first schema may be NULL (its ALTER adds it to records that have none), and no
    /// two columns share a name (a figure's one column is checked as the crate builds).
    #[test]
    fn the_table_is_whole() {
        for c in RECORD {
            assert!(c.null || c.since.iter().all(|&s| s <= 3), "{} is NOT NULL but added later", c.name);
            assert_eq!(RECORD.iter().filter(|d| d.name == c.name).count(), 1, "{}", c.name);
        }
        assert_eq!(Figure::of_output("water_l"), Some(Figure::WaterL));
        assert_eq!(Figure::of_output("duration_s"), None);
    }

    /// A column newer than a store's hand-written migrations is added by the step its `since` names, and that step
    /// is the schema's newest; the steps written out add nothing again.
    #[test]
    fn a_new_column_is_added_by_the_step_it_names() {
        let old = made!("x", Real, true, [1, 1], |_| Value::Null, |_, _| {});
        let newer = Column { name: "heat_j", since: [13, 10], ..old };
        let table = [old, newer];
        assert_eq!(newest(&table[..1], Store::Sqlite, 12), 12);
        assert_eq!(newest(&table, Store::Sqlite, 12), 13);
        assert_eq!(newest(&table, Store::Postgres, 9), 10);
        assert_eq!(added(&table, Store::Sqlite, 13, 12, "records"), "ALTER TABLE records ADD COLUMN heat_j REAL;\n");
        assert_eq!(
            added(&table, Store::Postgres, 10, 9, "exa_records"),
            "ALTER TABLE exa_records ADD COLUMN IF NOT EXISTS heat_j float8;\n"
        );
        // The hand-written steps' own columns are theirs: none is added again.
        assert_eq!(added(&table, Store::Sqlite, 8, 12, "records"), "");
        // A schema that lacks a column reads it as NULL (of its type, in PostgreSQL); one that has it, by name.
        assert_eq!(select(Store::Sqlite, 0, "r."), vec!["NULL"; RECORD.len()].join(", "));
        let all = select(Store::Postgres, i64::MAX, "r.");
        assert!(!all.contains("NULL") && all.split(", ").all(|c| c.starts_with("r.")), "{all}");
    }
}
