//! A throw-away PostgreSQL cluster for a test: `initdb` in a temp dir, run
//! as an unprivileged user (PostgreSQL refuses root), on a loopback port,
//! password authentication (scram-sha-256). Stopped when the test ends, and
//! by a watchdog if the test process dies first.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use tempfile::TempDir;

pub const USER: &str = "exa";
pub const PASSWORD: &str = "s3cret-exa-pw";

pub struct PgServer {
    dir: TempDir,
    bin: PathBuf,
    pub port: u16,
    watchdog: Option<std::process::Child>,
}

fn bin_dir() -> PathBuf {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .expect("PostgreSQL is installed (cargo xtask test installs Debian's postgresql)")
        .filter_map(|e| e.ok().map(|e| e.path().join("bin")))
        .filter(|b| b.join("initdb").is_file())
        .collect();
    found.sort();
    found.pop().expect("an initdb under /usr/lib/postgresql/*/bin")
}

fn is_root() -> bool {
    Command::new("id").arg("-u").output().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// Runs a PostgreSQL program as the unprivileged owner of the cluster.
fn as_owner(program: &Path) -> Command {
    if is_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(program);
        c
    } else {
        Command::new(program)
    }
}

impl PgServer {
    /// A cluster with password authentication (scram-sha-256).
    pub fn start() -> PgServer {
        PgServer::start_with("scram-sha-256")
    }

    /// A cluster where loopback connections need no password (`trust`): for the tests of many
    /// writers, where a debug build's SCRAM key stretching would be most of the time.
    pub fn start_trusting() -> PgServer {
        PgServer::start_with("trust")
    }

    fn start_with(auth: &str) -> PgServer {
        let bin = bin_dir();
        let dir = tempfile::Builder::new().prefix("exa-pg").tempdir().unwrap();
        if is_root() {
            assert!(Command::new("chown").args(["-R", "postgres"]).arg(dir.path()).status().unwrap().success());
        }
        let pw = dir.path().join("pw");
        std::fs::write(&pw, PASSWORD).unwrap();
        if is_root() {
            let _ = Command::new("chown").arg("postgres").arg(&pw).status();
        }
        let data = dir.path().join("data");
        let out = as_owner(&bin.join("initdb"))
            .args(["--no-sync", "-E", "UTF8", &format!("--auth={auth}"), "-U", USER])
            .arg(format!("--pwfile={}", pw.display()))
            .arg("-D")
            .arg(&data)
            .output()
            .unwrap();
        assert!(out.status.success(), "initdb: {}", String::from_utf8_lossy(&out.stderr));
        // A free port, found by binding it and letting it go: another process may take it before the server does
        // (tests start servers side by side), so a start that cannot bind it tries another, three times at most.
        let free = || std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let mut server = PgServer { dir, bin, port: free(), watchdog: None };
        for left in (0..3).rev() {
            match server.try_pg_ctl("start", "-c max_connections=250") {
                Ok(()) => break,
                Err(log) if left > 0 && log.contains("could not bind") => server.port = free(),
                Err(log) => panic!("pg_ctl start: {log}"),
            }
        }
        // The watchdog: stops the cluster within a second of this test process ending, however it ends.
        let script = format!(
            "while [ -d /proc/{parent} ]; do sleep 1; done; '{ctl}' -D '{data}' stop -m immediate >/dev/null 2>&1",
            parent = std::process::id(),
            ctl = server.bin.join("pg_ctl").display(),
            data = data.display()
        );
        let mut w = if is_root() { Command::new("runuser") } else { Command::new("sh") };
        if is_root() {
            w.args(["-u", "postgres", "--", "sh"]);
        }
        server.watchdog = Some(w.args(["-c", &script]).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap());
        server
    }

    fn pg_ctl(&self, action: &str) {
        self.pg_ctl_with(action, "-c max_connections=250");
    }

    fn pg_ctl_with(&self, action: &str, settings: &str) {
        if let Err(why) = self.try_pg_ctl(action, settings) {
            panic!("pg_ctl {action}: {why}");
        }
    }

    /// Runs `pg_ctl action`; the error and the server's log where it fails.
    fn try_pg_ctl(&self, action: &str, settings: &str) -> Result<(), String> {
        let opts = format!("-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off {settings}", self.port, self.dir.path().display());
        let out = as_owner(&self.bin.join("pg_ctl"))
            .args(["-D"])
            .arg(self.dir.path().join("data"))
            .args(["-o", &opts, "-l"])
            .arg(self.dir.path().join("log"))
            .args(["-w", "-t", "60", "-m", "fast", action])
            .output()
            .unwrap();
        if out.status.success() {
            return Ok(());
        }
        let log = std::fs::read_to_string(self.dir.path().join("log")).unwrap_or_default();
        Err(format!("{}\n{log}", String::from_utf8_lossy(&out.stderr)))
    }

    /// Stops and starts the server (fast shutdown: open connections are cut).
    pub fn restart(&self) {
        self.pg_ctl("restart");
    }

    /// Restarts the server with these settings (`-c name=value ...`) in place of the usual ones.
    pub fn restart_with(&self, settings: &str) {
        self.pg_ctl_with("restart", settings);
    }

    /// A new empty database; its URL with the password in it.
    pub fn database(&self, name: &str) -> String {
        let out = self.psql("postgres", &format!("CREATE DATABASE {name}"));
        assert!(out.status.success(), "create database: {}", String::from_utf8_lossy(&out.stderr));
        self.url(name)
    }

    pub fn url(&self, db: &str) -> String {
        format!("postgres://{USER}:{PASSWORD}@127.0.0.1:{}/{db}?sslmode=disable", self.port)
    }

    /// Runs SQL through psql as the cluster's superuser.
    pub fn psql(&self, db: &str, sql: &str) -> Output {
        Command::new(self.bin.join("psql"))
            .args([
                "-X",
                "-q",
                "-A",
                "-t",
                "-v",
                "ON_ERROR_STOP=1",
                "-h",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-U",
                USER,
                "-d",
                db,
                "-c",
                sql,
            ])
            .env("PGPASSWORD", PASSWORD)
            .output()
            .unwrap()
    }

    /// The end of the server's log, for a failed assertion to show.
    pub fn log_tail(&self) -> String {
        let log = std::fs::read_to_string(self.dir.path().join("log")).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        lines[lines.len().saturating_sub(30)..].join("\n")
    }

    /// One value from psql.
    pub fn value(&self, db: &str, sql: &str) -> String {
        let out = self.psql(db, sql);
        assert!(out.status.success(), "psql {sql}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        let _ = as_owner(&self.bin.join("pg_ctl")).arg("-D").arg(self.dir.path().join("data")).args(["stop", "-m", "immediate"]).output();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline && std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
            std::thread::sleep(Duration::from_millis(50));
        }
        if let Some(mut w) = self.watchdog.take() {
            let _ = w.kill();
            let _ = w.wait();
        }
    }
}
