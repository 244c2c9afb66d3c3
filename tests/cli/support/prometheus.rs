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
        Prometheus::launch(dir, "global:\n  scrape_interval: 1h\n")
    }

    /// A Prometheus scraping each (job, host:port) every 500 ms, keeping the targets' own labels.
    pub fn scraping(targets: &[(&str, &str)]) -> Prometheus {
        let dir = tempfile::tempdir().unwrap();
        let mut config = String::from("global:\n  scrape_interval: 500ms\n  scrape_timeout: 400ms\nscrape_configs:\n");
        for (job, target) in targets {
            let _ = write!(config, "  - job_name: {job}\n    honor_labels: true\n    static_configs:\n      - targets: ['{target}']\n");
        }
        Prometheus::launch(dir, &config)
    }

    /// A Prometheus scraping each (job, host:port) every 500 ms, each series labelled `node`, and evaluating the
    /// rules file `rules` (its groups' own intervals as written there).
    pub fn scraping_with_rules(targets: &[(&str, &str)], node: &str, rules: &std::path::Path) -> Prometheus {
        let dir = tempfile::tempdir().unwrap();
        let mut config = format!(
            "global:\n  scrape_interval: 500ms\n  scrape_timeout: 400ms\n  evaluation_interval: 500ms\nrule_files: ['{}']\nscrape_configs:\n",
            rules.display()
        );
        for (job, target) in targets {
            let _ = write!(
                config,
                "  - job_name: {job}\n    honor_labels: true\n    static_configs:\n      - targets: ['{target}']\n        labels: {{node: '{node}'}}\n"
            );
        }
        Prometheus::launch(dir, &config)
    }

    fn launch(dir: TempDir, config_text: &str) -> Prometheus {
        let data = dir.path().join("data");
        let config = dir.path().join("prometheus.yml");
        std::fs::write(&config, config_text).unwrap();
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

    /// GET a path of its HTTP API; the JSON answer.
    pub fn api(&self, path_and_query: &str) -> serde_json::Value {
        let text = http_get(self.url.trim_start_matches("http://"), path_and_query);
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("prometheus {path_and_query}: {e}: {text}"))
    }

    /// An instant PromQL query's result vector.
    pub fn query(&self, promql: &str) -> Vec<serde_json::Value> {
        let v = self.api(&format!("/api/v1/query?query={}", encode(promql)));
        v["data"]["result"].as_array().cloned().unwrap_or_default()
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

/// Percent-encodes a query parameter's value.
pub fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) { (b as char).to_string() } else { format!("%{b:02X}") })
        .collect()
}

/// A GET over plain HTTP/1.0 to host:port; the body.
pub fn http_get(addr: &str, path: &str) -> String {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).unwrap_or_else(|e| panic!("connect {addr}: {e}"));
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    // Asking as Prometheus asks: OpenMetrics first, the text format after.
    write!(
        s,
        "GET {path} HTTP/1.0\r\nHost: {addr}\r\nAccept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5\r\n\r\n"
    )
    .unwrap();
    let mut buf = String::new();
    let _ = s.read_to_string(&mut buf);
    buf.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default()
}
