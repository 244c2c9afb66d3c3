//! Where a PostgreSQL ledger is and how to reach it: URL or keyword string, password sources, TLS.

use std::path::Path;
use std::str::FromStr;
use std::time::{Duration, Instant};

use tokio_postgres::NoTls;

use super::wire::{Client, WireError};
use super::{restarting, RESTART_WAIT};
use crate::error::Error;

/// How to secure the connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Tls {
    Disable,
    /// Encrypted; the certificate is not checked (libpq's `require`).
    Require,
    /// Encrypted and checked: the Web PKI roots and the host name.
    VerifyFull,
    /// TLS, checked, when the server offers it; plain when it does not (libpq's default).
    Prefer,
}

/// Where the database is and how to reach it; never holds the password in what it shows.
#[derive(Clone)]
pub struct Conn {
    config: tokio_postgres::Config,
    tls: Tls,
    pub(super) shown: String,
    /// How long connecting (TCP, TLS, authentication) may take.
    connect_within: Duration,
    /// How long any later exchange (a statement, a commit) may wait for the server.
    deadline: Duration,
}

/// The default deadline of a connection: TCP, TLS and authentication.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How a ledger's location is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spelling {
    /// A `postgres://` or `postgresql://` URL (the scheme in any case).
    Url,
    /// A libpq keyword string: `host=db.example dbname=exa user=exa`.
    Keywords,
    /// A SQLite file.
    Path,
}

/// How `s` names a ledger; an error for a URL of another scheme, which is never taken for a file name.
pub fn form(s: &str) -> Result<Spelling, Error> {
    if let Some((scheme, _)) = s.split_once("://") {
        if !scheme.is_empty() && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')) {
            return if scheme.eq_ignore_ascii_case("postgres") || scheme.eq_ignore_ascii_case("postgresql") {
                Ok(Spelling::Url)
            } else {
                Err(Error::Usage(format!(
                    "ledger {}: a {scheme}:// URL is not a ledger; give a SQLite file or a postgres:// URL",
                    crate::text::clean(&crate::text::redact_url(s))
                )))
            };
        }
    }
    // `key=value` first, as libpq's keyword strings start: never a file name (write ./a=b for a file).
    let first = s.split_whitespace().next().unwrap_or("");
    match first.split_once('=') {
        Some((k, _)) if !k.is_empty() && k.chars().all(|c| c.is_ascii_alphabetic() || c == '_') => Ok(Spelling::Keywords),
        _ => Ok(Spelling::Path),
    }
}

/// The first host a config names (a socket directory for a Unix socket), as libpq matches pgpass lines.
pub(super) fn host_of(c: &tokio_postgres::Config) -> String {
    match c.get_hosts().first() {
        Some(tokio_postgres::config::Host::Tcp(h)) => h.clone(),
        Some(tokio_postgres::config::Host::Unix(p)) => p.display().to_string(),
        None => "localhost".into(),
    }
}

/// A libpq keyword string as exa shows it: what it names, never a password.
pub(super) fn shown_keywords(c: &tokio_postgres::Config) -> String {
    let port = c.get_ports().first().copied().unwrap_or(5432);
    let mut out = format!("host={} port={port}", host_of(c));
    if let Some(db) = c.get_dbname() {
        out.push_str(&format!(" dbname={db}"));
    }
    if let Some(u) = c.get_user() {
        out.push_str(&format!(" user={u}"));
    }
    crate::text::clean(&out)
}

/// One line of `~/.pgpass`: `host:port:database:user:password`, `*` matching anything, `\` escaping.
pub(super) fn pgpass_match(line: &str, want: [&str; 4]) -> Option<String> {
    let mut fields = Vec::new();
    let mut cur = String::new();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => cur.extend(chars.next()),
            ':' if fields.len() < 4 => fields.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    fields.push(cur);
    if fields.len() != 5 || line.trim_start().starts_with('#') {
        return None;
    }
    want.iter().zip(&fields).all(|(w, f)| f == "*" || f == w).then(|| fields[4].clone())
}

impl Conn {
    /// Parses a `postgres://` URL or (`keywords`) a libpq keyword string, as `form` told them apart; the
    /// password from it, else `password` (PGPASSWORD), else the pgpass file. Each exchange after connecting
    /// waits at most `deadline`.
    pub fn parse(raw: &str, keywords: bool, password: Option<&str>, pgpass: Option<&Path>, deadline: Duration) -> Result<Conn, Error> {
        // The scheme in lower case, as the URL parser wants it.
        let url = match raw.split_once("://") {
            Some((scheme, rest)) if !keywords => format!("{}://{rest}", scheme.to_ascii_lowercase()),
            _ => raw.to_string(),
        };
        let mut shown = if keywords { "the libpq keyword string".to_string() } else { crate::text::clean(&crate::text::redact_url(&url)) };
        let bad = |shown: &str, why: String| Error::Usage(format!("database {shown}: {why}"));
        let mut tls = Tls::Prefer;
        let mut rebuilt = if keywords { without_keyword(raw, "sslmode") } else { url.clone() };
        if !keywords {
            // sslmode is exa's to read: tokio-postgres knows no verify-full.
            let (base, query) = url.split_once('?').unwrap_or((&url, ""));
            let mut kept = Vec::new();
            for pair in query.split('&').filter(|p| !p.is_empty()) {
                match pair.split_once('=') {
                    Some(("sslmode", v)) => tls = sslmode(v).map_err(|why| bad(&shown, why))?,
                    _ => kept.push(pair),
                }
            }
            rebuilt = if kept.is_empty() { base.to_string() } else { format!("{base}?{}", kept.join("&")) };
        }
        // Errors of the parser name the option at fault, never its value.
        let mut config = tokio_postgres::Config::from_str(&rebuilt).map_err(|e| bad(&shown, e.to_string()))?;
        if keywords {
            shown = shown_keywords(&config);
            // A keyword string's own sslmode, as exa reads it (verify-full included).
            if let Some(v) = keyword(raw, "sslmode") {
                tls = sslmode(&v).map_err(|why| bad(&shown, why))?;
            }
        }
        if config.get_dbname().is_none() {
            return Err(bad(&shown, "it names no database (postgres://user@host/DATABASE, or dbname=)".into()));
        }
        let user = config.get_user().map(str::to_string).unwrap_or_else(|| "postgres".into());
        config.user(&user);
        if config.get_password().is_none() {
            if let Some(p) = password {
                config.password(p);
            } else if let Some(file) = pgpass.filter(|p| p.is_file()) {
                let host = host_of(&config);
                let port = config.get_ports().first().copied().unwrap_or(5432).to_string();
                let db = config.get_dbname().unwrap_or_default().to_string();
                let text = crate::files::read_regular_text(file, 1 << 20).unwrap_or_default();
                if let Some(p) = text.lines().find_map(|l| pgpass_match(l, [&host, &port, &db, &user])) {
                    config.password(p);
                }
            }
        }
        config.ssl_mode(match tls {
            Tls::Disable => tokio_postgres::config::SslMode::Disable,
            Tls::Prefer => tokio_postgres::config::SslMode::Prefer,
            Tls::Require | Tls::VerifyFull => tokio_postgres::config::SslMode::Require,
        });
        // libpq's connect_timeout, when given, bounds the whole connection here (TCP, TLS, authentication).
        let connect_within = config.get_connect_timeout().copied().unwrap_or(CONNECT_TIMEOUT);
        config.connect_timeout(connect_within);
        config.application_name("exa");
        Ok(Conn { config, tls, shown, connect_within, deadline })
    }

    /// Where it is, without its password.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    fn connect_once(&self) -> Result<Client, WireError> {
        let (within, deadline) = (self.connect_within, self.deadline);
        match self.tls {
            Tls::Disable => Client::connect(&self.config, NoTls, within, deadline),
            Tls::Require => Client::connect(&self.config, tls::unverified(), within, deadline),
            Tls::VerifyFull | Tls::Prefer => Client::connect(&self.config, tls::verified(), within, deadline),
        }
    }

    /// Connects; a writer (`patient`) tries again for a moment while the server refuses connections or says it
    /// is starting or stopping (a restart, a failover), so that a record made during one is not lost to it.
    pub(super) fn connect(&self, patient: bool) -> Result<Client, Error> {
        let started = Instant::now();
        let mut wait = Duration::from_millis(50);
        let result = loop {
            match self.connect_once() {
                Err(e) if patient && restarting(&e) && started.elapsed() < RESTART_WAIT => {
                    std::thread::sleep(wait);
                    wait = (wait * 2).min(Duration::from_millis(500));
                }
                other => break other,
            }
        };
        result.map_err(|e| match e {
            WireError::Timeout(d) => Error::Failed(format!(
                "{}: the server did not let exa connect within {:.0} s (connect_timeout in the URL sets how long to wait)",
                self.shown,
                d.as_secs_f64()
            )),
            other => self.error(&other),
        })
    }

    /// A connection or server error as one line, naming the database without its password.
    pub(super) fn error(&self, e: &WireError) -> Error {
        let why = match e {
            WireError::Timeout(d) => format!(
                "the server did not answer within {:.0} s (EXAMLOPS_DB_TIMEOUT or db.timeout_s in the config sets how long to wait)",
                d.as_secs_f64()
            ),
            WireError::Local(why) => why.clone(),
            WireError::Db(e) => match e.as_db_error() {
                Some(db) if db.code().code() == "28P01" || db.code().code() == "28000" => {
                    format!("authentication failed for user '{}'", self.config.get_user().unwrap_or("?"))
                }
                Some(db) if db.code().code() == "3D000" => "the database does not exist".into(),
                Some(db) if db.code().code() == "42501" || db.code().code() == "25006" => {
                    format!("the role may not write here ({})", db.message())
                }
                Some(db) => db.message().to_string(),
                None => {
                    let mut s = e.to_string();
                    let mut src = std::error::Error::source(e);
                    while let Some(inner) = src {
                        s = format!("{s}: {inner}");
                        src = inner.source();
                    }
                    s
                }
            },
        };
        Error::Failed(format!("{}: {}", self.shown, crate::text::clean(&why)))
    }
}

/// An `sslmode` as exa reads it.
pub(super) fn sslmode(v: &str) -> Result<Tls, String> {
    match v {
        "disable" => Ok(Tls::Disable),
        "require" => Ok(Tls::Require),
        "verify-full" | "verify-ca" => Ok(Tls::VerifyFull),
        "prefer" | "allow" => Ok(Tls::Prefer),
        other => Err(format!("sslmode '{}' is not disable, prefer, require or verify-full", crate::text::clean(other))),
    }
}

/// A libpq keyword string without one (unquoted) keyword, the rest as it was written.
pub(super) fn without_keyword(s: &str, key: &str) -> String {
    let mut out = s.to_string();
    let needle = format!("{key}=");
    let mut from = 0;
    while let Some(i) = out[from..].find(&needle).map(|i| i + from) {
        if i == 0 || out[..i].ends_with(char::is_whitespace) {
            let end = out[i..].find(char::is_whitespace).map_or(out.len(), |e| e + i);
            out.replace_range(i..end, "");
        } else {
            from = i + needle.len();
        }
    }
    out
}

/// A keyword's value in a libpq keyword string (unquoted values only; exa's own keywords need no quotes).
pub(super) fn keyword(s: &str, key: &str) -> Option<String> {
    s.split_whitespace().find_map(|kv| kv.split_once('=').filter(|(k, _)| *k == key).map(|(_, v)| v.trim_matches('\'').to_string()))
}

pub(super) mod tls {
    //! rustls for PostgreSQL: verified against the Web PKI roots, or (sslmode=require) not verified.

    use std::sync::Arc;

    use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
    use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
    use rustls::{DigitallySignedStruct, SignatureScheme};
    use tokio_postgres_rustls::MakeRustlsConnect;

    fn provider() -> Arc<rustls::crypto::CryptoProvider> {
        Arc::new(rustls::crypto::ring::default_provider())
    }

    pub fn verified() -> MakeRustlsConnect {
        let roots = rustls::RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() };
        let config = rustls::ClientConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .expect("ring supports the default protocol versions")
            .with_root_certificates(roots)
            .with_no_client_auth();
        MakeRustlsConnect::new(config)
    }

    #[derive(Debug)]
    struct Unverified(Arc<rustls::crypto::CryptoProvider>);

    impl ServerCertVerifier for Unverified {
        fn verify_server_cert(
            &self,
            _: &CertificateDer<'_>,
            _: &[CertificateDer<'_>],
            _: &ServerName<'_>,
            _: &[u8],
            _: UnixTime,
        ) -> Result<ServerCertVerified, rustls::Error> {
            Ok(ServerCertVerified::assertion())
        }
        fn verify_tls12_signature(
            &self,
            message: &[u8],
            cert: &CertificateDer<'_>,
            dss: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, rustls::Error> {
            rustls::crypto::verify_tls12_signature(message, cert, dss, &self.0.signature_verification_algorithms)
        }
        fn verify_tls13_signature(
            &self,
            message: &[u8],
            cert: &CertificateDer<'_>,
            dss: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, rustls::Error> {
            rustls::crypto::verify_tls13_signature(message, cert, dss, &self.0.signature_verification_algorithms)
        }
        fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
            self.0.signature_verification_algorithms.supported_schemes()
        }
    }

    pub fn unverified() -> MakeRustlsConnect {
        let config = rustls::ClientConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .expect("ring supports the default protocol versions")
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(Unverified(provider())))
            .with_no_client_auth();
        MakeRustlsConnect::new(config)
    }
}
