//! What the tests share: the private environment each test runs the real
//! binary in (`common`), the JSON contract's decoder (`contract`), and the
//! real parts the harness starts and stops on loopback: an HTTP server that
//! answers as told (`http`), PostgreSQL (`pg`) and Prometheus (`prometheus`); and the counting rule's two
//! statements held to one answer (`rule`, which `cargo bench --bench rule` shares).

pub mod common;
pub mod contract;
pub mod doors;
pub mod http;
pub mod pg;
pub mod prometheus;
pub mod rule;
