//! The new doors, hardened (issue: hardening the new doors): MCP, the
//! PostgreSQL ledger, output files, signals, imported numbers, MLflow and
//! the HTML page, each attack tried on the real binary.

mod files;
mod imports;
mod mcp;
mod postgres;
mod servers;
mod signals;
