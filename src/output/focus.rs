//! FOCUS rows as CSV (a header, then one line per row) or JSON lines.

use serde_json::Value;

use super::records::csv_field;
use crate::sinks::focus::FocusRow;

/// Every column, in the order written: the row's fields, as it serialises them.
pub fn columns() -> Vec<String> {
    match serde_json::to_value(FocusRow::default()) {
        Ok(Value::Object(m)) => m.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

fn cell(v: &Value) -> String {
    match v {
        // FOCUS's null in CSV is an empty field.
        Value::Null => String::new(),
        Value::Bool(b) => b.to_string(),
        // A decimal number, never an exponent (2.5e-7 is written 0.00000025).
        Value::Number(n) => n.as_f64().map_or_else(|| n.to_string(), |f| format!("{f}")),
        Value::String(s) => csv_field(s),
        other => csv_field(&other.to_string()),
    }
}

/// The rows as CSV with a header line; a header alone when there are none.
pub fn csv(rows: &[FocusRow]) -> String {
    let columns = columns();
    let mut out = columns.join(",");
    out.push('\n');
    for r in rows {
        let v = serde_json::to_value(r).expect("rows serialise");
        let cells: Vec<String> = columns.iter().map(|c| cell(&v[c.as_str()])).collect();
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    out
}

/// The rows as JSON lines: one object per line.
pub fn jsonl(rows: &[FocusRow]) -> String {
    let mut out = String::new();
    for r in rows {
        out.push_str(&serde_json::to_string(r).expect("rows serialise"));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::columns;

    #[test]
    fn the_columns_are_the_rows_fields_in_order() {
        let row = crate::sinks::focus::example();
        let v = serde_json::to_value(row).unwrap();
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, columns());
        assert_eq!((columns()[0].as_str(), columns().last().map(String::as_str)), ("BilledCost", Some("x_Units")));
    }
}
