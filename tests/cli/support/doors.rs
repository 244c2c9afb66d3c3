//! What the hardened doors' tests share: `exa mcp` over raw pipes (`Mcp`), a command run within a deadline,
//! waiting for a word in a file, a zombie told from a live process, a PostgreSQL proxy that stalls, slow and
//! whole HTTP clients, and a folder's files listed.

use crate::common::Env;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// `exa mcp` over raw pipes, initialized; answers read by id, each within a deadline (a server that never
/// answers fails the test rather than hanging it).
pub struct Mcp {
    pub child: Child,
    pub stdin: Option<std::process::ChildStdin>,
    lines: std::sync::mpsc::Receiver<String>,
    id: u64,
    /// Answers read while waiting for another.
    pub seen: Vec<Value>,
}

impl Mcp {
    pub fn start(env: &Env) -> Mcp {
        let mut child = env.cmd().arg("mcp").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let stdin = child.stdin.take().unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for l in out.lines().map_while(Result::ok) {
                if tx.send(l).is_err() {
                    return;
                }
            }
        });
        let mut m = Mcp { child, stdin: Some(stdin), lines, id: 0, seen: Vec::new() };
        let init = m.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "exa", "{init}");
        m.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        m
    }

    pub fn send(&mut self, v: &Value) {
        self.stdin.as_mut().expect("stdin open").write_all(format!("{v}\n").as_bytes()).unwrap();
    }

    /// The next answer, within 30 s.
    pub fn next(&mut self) -> Value {
        let line = self.lines.recv_timeout(Duration::from_secs(30)).expect("exa mcp answered within 30 s");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    pub fn request(&mut self, method: &str, params: Value) -> Value {
        self.id += 1;
        let id = self.id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let v = self.next();
            if v["id"] == id {
                return v;
            }
            self.seen.push(v);
        }
    }

    /// Calls a tool; its structured answer is checked against the JSON contract (`contract::check_tool`).
    pub fn call(&mut self, tool: &str, args: Value) -> Value {
        let r = self.request("tools/call", json!({"name": tool, "arguments": args}));
        crate::contract::check_tool(tool, &args, &r["result"]["structuredContent"], r["result"]["isError"] == true);
        r
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `c` to its end, or kills it at `limit`: a command that hangs fails the test instead of hanging it.
pub fn within(mut c: Command, limit: Duration) -> std::process::Output {
    let mut child = c.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!("still running after {limit:?}: {}", String::from_utf8_lossy(&out.stderr));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// A TCP proxy in front of a real PostgreSQL: it passes the startup and authentication through, then holds
/// the first statement (a simple or extended query) for ever: a server that accepted and stalled.
pub fn stalling_proxy(to: u16) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for conn in listener.incoming().take(16) {
            let Ok(client) = conn else { continue };
            std::thread::spawn(move || {
                let server = TcpStream::connect(("127.0.0.1", to)).unwrap();
                let (mut c_read, mut s_write) = (client.try_clone().unwrap(), server.try_clone().unwrap());
                let (mut s_read, mut c_write) = (server, client);
                std::thread::spawn(move || {
                    let _ = std::io::copy(&mut s_read, &mut c_write);
                });
                // The startup message has no type byte; every later one does.
                let mut len = [0u8; 4];
                if c_read.read_exact(&mut len).is_err() {
                    return;
                }
                let mut body = vec![0u8; (u32::from_be_bytes(len) as usize).saturating_sub(4)];
                let _ = c_read.read_exact(&mut body);
                let _ = s_write.write_all(&len).and_then(|()| s_write.write_all(&body));
                loop {
                    let mut head = [0u8; 5];
                    if c_read.read_exact(&mut head).is_err() {
                        return;
                    }
                    let n = u32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize;
                    let mut body = vec![0u8; n.saturating_sub(4)];
                    if c_read.read_exact(&mut body).is_err() {
                        return;
                    }
                    if matches!(head[0], b'Q' | b'P') {
                        // Held: the client waits for an answer that never comes.
                        std::thread::sleep(Duration::from_secs(120));
                        return;
                    }
                    if s_write.write_all(&head).and_then(|()| s_write.write_all(&body)).is_err() {
                        return;
                    }
                }
            });
        }
    });
    port
}

pub fn walk(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        out.push(p.display().to_string());
        if p.is_dir() && !p.is_symlink() {
            out.extend(walk(&p));
        }
    }
    out
}

pub fn wait_for(file: &std::path::Path, word: &str) {
    let until = Instant::now() + Duration::from_secs(30);
    while !std::fs::read_to_string(file).unwrap_or_default().contains(word) {
        assert!(Instant::now() < until, "{word} never reached the job");
        std::thread::sleep(Duration::from_millis(20));
    }
}

pub fn zombie(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|s| s.rsplit_once(')').is_some_and(|(_, r)| r.trim_start().starts_with('Z')))
}

/// Lets this test process hold a thousand sockets.
pub fn raise_fd_limit() {
    // SAFETY: getrlimit and setrlimit read and write the local struct only.
    unsafe {
        let mut l: libc::rlimit = std::mem::zeroed();
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut l) == 0 && l.rlim_cur < l.rlim_max {
            l.rlim_cur = l.rlim_max.min(65_536);
            libc::setrlimit(libc::RLIMIT_NOFILE, &l);
        }
    }
}

/// A thousand connections that send half a request's headers and then nothing.
pub fn slow_clients(addr: &str, n: usize) -> Vec<TcpStream> {
    (0..n)
        .map(|_| {
            let mut s = TcpStream::connect(addr).unwrap();
            s.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ").unwrap();
            s
        })
        .collect()
}

/// One whole request; the answer's status line.
pub fn ask(addr: &str, request: &str) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut answer = Vec::new();
    let _ = s.read_to_end(&mut answer);
    String::from_utf8_lossy(&answer).lines().next().unwrap_or("").to_string()
}
