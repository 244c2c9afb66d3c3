//! A real Prometheus for the tests: OpenMetrics series written here,
//! backfilled with `promtool tsdb create-blocks-from openmetrics`, served on
//! a free loopback port, and stopped when the test drops it.

use std::fmt::Write as _;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use tempfile::TempDir;

/// Sample spacing of the generated series, seconds.
pub const SCRAPE_S: i64 = 60;

/// OpenMetrics text being written: series sampled every minute from `from` to `to`.
pub struct Series {
    pub from: i64,
    pub to: i64,
    text: String,
}

impl Series {
    pub fn new(from: i64, to: i64) -> Series {
        Series { from: from / 60 * 60, to: to / 60 * 60, text: String::new() }
    }

    /// One series; `f(t)` gives its value at `t`, or None for no sample.
    pub fn add(&mut self, name: &str, labels: &[(&str, &str)], f: impl Fn(i64) -> Option<f64>) {
        let l: Vec<String> = labels.iter().map(|(k, v)| format!("{k}=\"{v}\"")).collect();
        let mut t = self.from;
        while t <= self.to {
            if let Some(v) = f(t) {
                let _ = writeln!(self.text, "{name}{{{}}} {v} {t}", l.join(","));
            }
            t += SCRAPE_S;
        }
    }

    /// A counter that grows by `rate(t)` per second.
    pub fn counter(&mut self, name: &str, labels: &[(&str, &str)], rate: impl Fn(i64) -> f64) {
        let from = self.from;
        let mut total = 0.0;
        let mut acc = Vec::new();
        let mut t = from;
        while t <= self.to {
            acc.push((t, total));
            total += rate(t) * SCRAPE_S as f64;
            t += SCRAPE_S;
        }
        self.add(name, labels, |t| acc.iter().find(|(x, _)| *x == t).map(|(_, v)| *v));
    }
}

pub struct Prometheus {
    pub url: String,
    child: Child,
    _dir: TempDir,
}

impl Prometheus {
    pub fn start(series: Series) -> Prometheus {
        let dir = tempfile::tempdir().unwrap();
        let om = dir.path().join("series.om");
        std::fs::write(&om, format!("{}# EOF\n", series.text)).unwrap();
        let data = dir.path().join("data");
        let out = Command::new("promtool")
            .args(["tsdb", "create-blocks-from", "openmetrics"])
            .arg(&om)
            .arg(&data)
            .output()
            .expect("promtool is installed (.ci/run installs Debian's prometheus)");
        assert!(out.status.success(), "promtool: {}", String::from_utf8_lossy(&out.stderr));
        let config = dir.path().join("prometheus.yml");
        std::fs::write(&config, "global:\n  scrape_interval: 1h\n").unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        // A watchdog stops Prometheus within a second of this test process ending
        // (the fleet lives in a static, which is never dropped), and after 10 minutes at most.
        let script = format!(
            "timeout 600 prometheus --config.file='{}' --storage.tsdb.path='{}' --web.listen-address=127.0.0.1:{port} --storage.tsdb.retention.time=30d & p=$!; \
             while kill -0 {parent} 2>/dev/null && kill -0 $p 2>/dev/null; do sleep 1; done; kill $p 2>/dev/null; wait $p; rm -rf '{}'",
            config.display(),
            data.display(),
            dir.path().display(),
            parent = std::process::id()
        );
        let child = Command::new("sh").args(["-c", &script]).stdout(Stdio::null()).stderr(Stdio::null()).spawn().expect("sh runs");
        let p = Prometheus { url: format!("http://127.0.0.1:{port}"), child, _dir: dir };
        p.wait_ready();
        p
    }

    fn wait_ready(&self) {
        let deadline = Instant::now() + Duration::from_secs(30);
        let addr = self.url.trim_start_matches("http://").to_string();
        while Instant::now() < deadline {
            if let Ok(mut s) = std::net::TcpStream::connect(&addr) {
                use std::io::{Read, Write};
                let _ = s.write_all(b"GET /-/ready HTTP/1.0\r\n\r\n");
                let mut buf = String::new();
                let _ = s.read_to_string(&mut buf);
                if buf.starts_with("HTTP/1.0 200") || buf.starts_with("HTTP/1.1 200") {
                    return;
                }
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("prometheus did not become ready at {}", self.url);
    }
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        // Killing the watchdog's shell leaves Prometheus to it; end Prometheus through its port's owner.
        let _ = Command::new("pkill").args(["-f", &format!("web.listen-address={}", self.url.trim_start_matches("http://"))]).status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
