//! A real HTTP server on loopback for the tests: it records what it was
//! asked and answers as told. It stops when dropped, or after a minute.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

#[derive(Clone)]
pub enum Answer {
    /// Status, content type, body.
    Body(u16, &'static str, String),
    /// Status, one extra header line, body.
    WithHeader(u16, &'static str, String),
    /// Accept the connection and never answer.
    Silence,
    /// Claim and stream this many bytes.
    Huge(usize),
    /// Send the headers of a body, then one byte every 200 ms.
    Trickle,
    /// 200 with the body when the request carries this header line (lower-cased), else 401.
    Require(&'static str, String),
    /// 200 with the body after this many milliseconds.
    Slow(u64, String),
    /// A JSON document by path (404 for any other), each only with this header line (lower-cased), else 401.
    Paths(Arc<std::collections::BTreeMap<String, String>>, &'static str),
}

pub struct Server {
    pub port: u16,
    answer: Arc<Mutex<Answer>>,
    requests: Arc<Mutex<Vec<String>>>,
    bodies: Arc<Mutex<Vec<Vec<u8>>>>,
    stop: Arc<AtomicBool>,
}

impl Server {
    pub fn start(answer: Answer) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let answer = Arc::new(Mutex::new(answer));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (a, r, s, b) = (answer.clone(), requests.clone(), stop.clone(), bodies.clone());
        thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(60);
            while !s.load(Ordering::Relaxed) && Instant::now() < deadline {
                match listener.accept() {
                    Ok((conn, _)) => {
                        let answer = a.lock().unwrap().clone();
                        let (r, s, b) = (r.clone(), s.clone(), b.clone());
                        thread::spawn(move || serve(conn, answer, r, s, b));
                    }
                    Err(_) => thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        Server { port, answer, requests, bodies, stop }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    pub fn set(&self, answer: Answer) {
        *self.answer.lock().unwrap() = answer;
    }

    /// Each request's head: the request line and headers, lower-cased names.
    pub fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }

    /// Each request's body, as sent (by its Content-Length), in the order they came.
    pub fn bodies(&self) -> Vec<Vec<u8>> {
        self.bodies.lock().unwrap().clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

fn serve(mut conn: TcpStream, answer: Answer, requests: Arc<Mutex<Vec<String>>>, stop: Arc<AtomicBool>, bodies: Arc<Mutex<Vec<Vec<u8>>>>) {
    conn.set_nonblocking(false).unwrap();
    conn.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match conn.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    let end = head.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
    let text = String::from_utf8_lossy(&head[..end]).to_ascii_lowercase();
    let length: usize = text.lines().find_map(|l| l.strip_prefix("content-length:")).and_then(|v| v.trim().parse().ok()).unwrap_or(0);
    let mut body = head[end..].to_vec();
    while body.len() < length {
        match conn.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => body.extend_from_slice(&buf[..n]),
        }
    }
    bodies.lock().unwrap().push(body);
    requests.lock().unwrap().push(String::from_utf8_lossy(&head).into_owned());
    match answer {
        Answer::Body(status, ctype, body) => {
            let _ = write!(
                conn,
                "HTTP/1.1 {status} X\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
        Answer::Slow(ms, body) => {
            thread::sleep(Duration::from_millis(ms));
            let _ = write!(
                conn,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
        Answer::WithHeader(status, header, body) => {
            let _ = write!(conn, "HTTP/1.1 {status} X\r\n{header}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len());
        }
        Answer::Silence => {
            let until = Instant::now() + Duration::from_secs(20);
            while Instant::now() < until && !stop.load(Ordering::Relaxed) {
                thread::sleep(Duration::from_millis(20));
            }
        }
        Answer::Trickle => {
            let _ = write!(conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n");
            let until = Instant::now() + Duration::from_secs(30);
            while Instant::now() < until && !stop.load(Ordering::Relaxed) {
                if conn.write_all(b" ").is_err() {
                    return;
                }
                thread::sleep(Duration::from_millis(200));
            }
        }
        Answer::Require(header, body) => {
            let asked = String::from_utf8_lossy(&head).to_ascii_lowercase();
            let (status, body) = if asked.contains(header) { (200, body) } else { (401, "{\"error\": \"unauthorized\"}".to_string()) };
            let _ = write!(
                conn,
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
        Answer::Paths(docs, header) => by_path(&mut conn, &head, &docs, header),
        Answer::Huge(n) => {
            let _ = write!(conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {n}\r\n\r\n[");
            let chunk = vec![b'1'; 64 * 1024];
            let mut sent = 1;
            while sent < n {
                if conn.write_all(&chunk).is_err() {
                    return;
                }
                sent += chunk.len();
            }
        }
    }
}

/// Answers a request for one of `docs` by its path, to a request with `header` alone.
fn by_path(conn: &mut TcpStream, head: &[u8], docs: &std::collections::BTreeMap<String, String>, header: &str) {
    let asked = String::from_utf8_lossy(head).to_ascii_lowercase();
    let path = String::from_utf8_lossy(head).split_whitespace().nth(1).unwrap_or_default().to_string();
    let (status, body) = match docs.get(&path) {
        _ if !asked.contains(header) => (401, "{}".to_string()),
        Some(doc) => (200, doc.clone()),
        None => (404, "{}".to_string()),
    };
    let _ = write!(
        conn,
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

/// A 200 answer with a JSON body.
pub fn json(body: String) -> Answer {
    Answer::Body(200, "application/json", body)
}

/// Seconds since the epoch, now.
pub fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64
}

/// `t` as RFC 3339 UTC to the second, by the system's `date` (not by the code under test).
pub fn iso(t: i64) -> String {
    let out = std::process::Command::new("date").args(["-u", "-d", &format!("@{t}"), "+%Y-%m-%dT%H:%M:%SZ"]).output().unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}
