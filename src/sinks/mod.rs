//! Where exa's figures go out: the metric catalog (families of points, named
//! for OpenTelemetry and Prometheus), the exporters that carry them (a
//! Prometheus scrape, a Pushgateway, OTLP/HTTP), a measured run's totals
//! pushed at its end, and MLflow (its REST client, and the store's outbox
//! for logs it could not take); and FOCUS rows, the cost and usage
//! format FinOps tools ingest (`report --format focus`).
//!
//! Below the commands, which call in here and never call each other to
//! reach a sink; above the settings, whose resolved values a sink takes.
//! Nothing here prints: a failure comes back as a value or a warning.

pub mod catalog;
pub mod exporters;
pub mod focus;
pub mod mlflow;
pub mod push;
