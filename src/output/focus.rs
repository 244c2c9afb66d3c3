//! FOCUS rows as CSV (a header, then one line per row) or JSON lines.

use serde_json::Value;

use super::records::csv_field;
use crate::commands::focus::FocusRow;

/// Every column, in the order written.
pub const COLUMNS: &[&str] = &[
    "BilledCost",
    "BillingAccountId",
    "BillingAccountName",
    "BillingCurrency",
    "BillingPeriodEnd",
    "BillingPeriodStart",
    "ChargeCategory",
    "ChargeClass",
    "ChargeDescription",
    "ChargeFrequency",
    "ChargePeriodEnd",
    "ChargePeriodStart",
    "ConsumedQuantity",
    "ConsumedUnit",
    "ContractedCost",
    "ContractedUnitPrice",
    "EffectiveCost",
    "InvoiceIssuerName",
    "ListCost",
    "ListUnitPrice",
    "PricingCategory",
    "PricingQuantity",
    "PricingUnit",
    "ProviderName",
    "PublisherName",
    "ResourceId",
    "ResourceName",
    "ResourceType",
    "ServiceCategory",
    "ServiceName",
    "Tags",
    "x_RecordIds",
    "x_Measured",
    "x_CostProvider",
    "x_CostProviderDigest",
    "x_CostAllocation",
    "x_RunGpuHours",
    "x_RunCpuHours",
    "x_EnergyKwh",
    "x_Co2eGrams",
    "x_CarbonProvider",
    "x_CarbonProviderDigest",
];

fn cell(v: &Value) -> String {
    match v {
        // FOCUS's null in CSV is an empty field.
        Value::Null => String::new(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => csv_field(s),
        other => csv_field(&other.to_string()),
    }
}

/// The rows as CSV with a header line; a header alone when there are none.
pub fn csv(rows: &[FocusRow]) -> String {
    let mut out = COLUMNS.join(",");
    out.push('\n');
    for r in rows {
        let v = serde_json::to_value(r).expect("rows serialise");
        let cells: Vec<String> = COLUMNS.iter().map(|c| cell(&v[*c])).collect();
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
    use super::COLUMNS;

    #[test]
    fn the_columns_are_the_rows_fields_in_order() {
        let row = crate::commands::focus::example();
        let v = serde_json::to_value(row).unwrap();
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, COLUMNS);
    }
}
