//! The counting rule's two statements (`src/store/rule.rs`) count alike, with or without PostgreSQL: the SQL
//! PostgreSQL runs, run by SQLite, against the Rust scan SQLite's reports use.

#[test]
fn both_statements_count_alike_without_postgresql() {
    let dir = tempfile::tempdir().unwrap();
    crate::support::rule::agree(&dir.path().join("rule.sqlite3"), 20_000);
}
