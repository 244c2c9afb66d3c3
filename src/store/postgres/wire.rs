//! A PostgreSQL connection whose every exchange has a deadline.
//!
//! tokio-postgres on a runtime of its own, driven from the caller's thread
//! (as the `postgres` crate drives it), with each exchange — the connection
//! (TCP, TLS, authentication), every statement, every commit — bounded by
//! a deadline. A server, or a proxy in front of it, that accepts and then
//! stalls costs a deadline, never a hang: the exchange is abandoned, and the
//! connection with it.

use std::future::Future;
use std::time::Duration;

use tokio_postgres::tls::{MakeTlsConnect, TlsConnect};
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::{Row, SimpleQueryMessage, Socket};

/// Why an exchange gave no answer.
#[derive(Debug)]
pub enum WireError {
    /// The server's error, or the connection's.
    Db(tokio_postgres::Error),
    /// No answer within the deadline.
    Timeout(Duration),
    /// The client could not be set up.
    Local(String),
}

impl From<tokio_postgres::Error> for WireError {
    fn from(e: tokio_postgres::Error) -> Self {
        WireError::Db(e)
    }
}

impl WireError {
    /// The server's error, when the server answered one.
    pub fn as_db_error(&self) -> Option<&tokio_postgres::error::DbError> {
        match self {
            WireError::Db(e) => e.as_db_error(),
            _ => None,
        }
    }

    /// Whether the connection was lost (a restart, a failover), as opposed to a statement refused.
    pub fn is_closed(&self) -> bool {
        matches!(self, WireError::Db(e) if e.is_closed())
    }
}

/// Runs `f` on `rt` within `deadline`.
fn wait<T, F>(rt: &tokio::runtime::Runtime, deadline: Duration, f: F) -> Result<T, WireError>
where
    F: Future<Output = Result<T, tokio_postgres::Error>>,
{
    // The timer is made inside the runtime, which owns the clock it runs on.
    match rt.block_on(async { tokio::time::timeout(deadline, f).await }) {
        Ok(r) => r.map_err(WireError::Db),
        Err(_) => Err(WireError::Timeout(deadline)),
    }
}

/// An open connection.
pub struct Client {
    rt: tokio::runtime::Runtime,
    inner: tokio_postgres::Client,
    deadline: Duration,
}

impl Client {
    /// Connects: TCP, TLS and authentication all within `connect_within`; each later exchange within `deadline`.
    pub fn connect<T>(config: &tokio_postgres::Config, tls: T, connect_within: Duration, deadline: Duration) -> Result<Client, WireError>
    where
        T: MakeTlsConnect<Socket> + Send + 'static,
        T::Stream: Send + 'static,
        T::TlsConnect: Send,
        <T::TlsConnect as TlsConnect<Socket>>::Future: Send,
    {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| WireError::Local(format!("cannot start the PostgreSQL client: {e}")))?;
        let (inner, connection) = wait(&rt, connect_within, config.connect(tls))?;
        // The connection's task runs whenever this thread waits on the runtime.
        rt.spawn(async move {
            let _ = connection.await;
        });
        Ok(Client { rt, inner, deadline })
    }

    /// A transaction.
    pub fn transaction(&mut self) -> Result<Tx<'_>, WireError> {
        let tx = wait(&self.rt, self.deadline, self.inner.transaction())?;
        Ok(Tx { rt: &self.rt, tx, deadline: self.deadline })
    }

    /// A read-only transaction that sees one snapshot (repeatable read).
    pub fn snapshot(&mut self) -> Result<Tx<'_>, WireError> {
        let start = self.inner.build_transaction().isolation_level(tokio_postgres::IsolationLevel::RepeatableRead).read_only(true).start();
        let tx = wait(&self.rt, self.deadline, start)?;
        Ok(Tx { rt: &self.rt, tx, deadline: self.deadline })
    }

    /// Statements in the simple protocol, with their rows as text.
    pub fn simple_query(&mut self, sql: &str) -> Result<Vec<SimpleQueryMessage>, WireError> {
        wait(&self.rt, self.deadline, self.inner.simple_query(sql))
    }
}

/// A transaction on a `Client`; rolled back when dropped uncommitted.
pub struct Tx<'a> {
    rt: &'a tokio::runtime::Runtime,
    tx: tokio_postgres::Transaction<'a>,
    deadline: Duration,
}

impl Tx<'_> {
    /// Commits, within the deadline.
    pub fn commit(self) -> Result<(), WireError> {
        wait(self.rt, self.deadline, self.tx.commit())
    }
}

/// A statement's parameters.
pub type Params<'p> = [&'p (dyn ToSql + Sync)];
/// A statement's parameters with their types given (parsed, bound and run in one round trip).
pub type Typed<'p> = [(&'p (dyn ToSql + Sync), Type)];

/// What a connection and a transaction both run, each exchange within the deadline.
pub trait Exec {
    fn query(&mut self, sql: &str, params: &Params) -> Result<Vec<Row>, WireError>;
    fn query_one(&mut self, sql: &str, params: &Params) -> Result<Row, WireError>;
    fn query_opt(&mut self, sql: &str, params: &Params) -> Result<Option<Row>, WireError>;
    fn execute(&mut self, sql: &str, params: &Params) -> Result<u64, WireError>;
    fn batch_execute(&mut self, sql: &str) -> Result<(), WireError>;
    fn query_typed(&mut self, sql: &str, params: &Typed) -> Result<Vec<Row>, WireError>;
    fn query_typed_opt(&mut self, sql: &str, params: &Typed) -> Result<Option<Row>, WireError>;
}

macro_rules! exec {
    ($t:ty, $inner:ident) => {
        impl Exec for $t {
            fn query(&mut self, sql: &str, params: &Params) -> Result<Vec<Row>, WireError> {
                wait(&self.rt, self.deadline, self.$inner.query(sql, params))
            }
            fn query_one(&mut self, sql: &str, params: &Params) -> Result<Row, WireError> {
                wait(&self.rt, self.deadline, self.$inner.query_one(sql, params))
            }
            fn query_opt(&mut self, sql: &str, params: &Params) -> Result<Option<Row>, WireError> {
                wait(&self.rt, self.deadline, self.$inner.query_opt(sql, params))
            }
            fn execute(&mut self, sql: &str, params: &Params) -> Result<u64, WireError> {
                wait(&self.rt, self.deadline, self.$inner.execute(sql, params))
            }
            fn batch_execute(&mut self, sql: &str) -> Result<(), WireError> {
                wait(&self.rt, self.deadline, self.$inner.batch_execute(sql))
            }
            fn query_typed(&mut self, sql: &str, params: &Typed) -> Result<Vec<Row>, WireError> {
                wait(&self.rt, self.deadline, self.$inner.query_typed(sql, params))
            }
            fn query_typed_opt(&mut self, sql: &str, params: &Typed) -> Result<Option<Row>, WireError> {
                wait(&self.rt, self.deadline, self.$inner.query_typed_opt(sql, params))
            }
        }
    };
}

exec!(Client, inner);
exec!(Tx<'_>, tx);
