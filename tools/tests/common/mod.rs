//! What the tests of the web share: the server on a free port, plain
//! HTTP/1.1 requests, and small endgame databases.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::thread::JoinHandle;
use std::time::Duration;

use morris::Variant;
use morris::solution::retrograde::{PlacingBuild, SectorRange, generate};
use morris::solution::{Database, Sector};
use morris_tools::client::EngineConfig;
use morris_tools::web::{ServerHandle, WebConfig, WebServer};

/// A server on a free port, stopped (its engines killed) when dropped.
pub struct Running {
    /// Where it listens.
    pub addr: SocketAddr,
    /// Stops it, and counts its games.
    pub handle: ServerHandle,
    thread: Option<JoinHandle<()>>,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.handle.stop();
        if let Some(thread) = self.thread.take() {
            thread.join().expect("the server ends cleanly");
        }
    }
}

/// morris-web's server with `engine` for its games and `db` for the
/// exact values.
pub fn serve(engine: EngineConfig, db: Option<Database>) -> Running {
    serve_with(WebConfig::new(engine, db))
}

/// morris-web's server under `config`.
pub fn serve_with(config: WebConfig) -> Running {
    let localhost = std::net::Ipv4Addr::LOCALHOST.into();
    let server = WebServer::bind(localhost, 0, config).expect("a free port");
    let addr = server.addr();
    let handle = server.handle();
    let thread = std::thread::spawn(move || server.run());
    Running {
        addr,
        handle,
        thread: Some(thread),
    }
}

/// morris-web as its own process, killed when dropped (a test that
/// fails leaves none behind).
pub struct WebProcess {
    child: std::process::Child,
    /// Where it listens.
    pub addr: SocketAddr,
    /// Where what it prints on its standard error goes.
    log: std::path::PathBuf,
}

impl WebProcess {
    /// morris-web keeping its players in `store`, with the flags `more`;
    /// what it prints on its standard error goes to a file beside the
    /// store.
    pub fn start(store: &std::path::Path, more: &[&str]) -> WebProcess {
        use std::io::BufRead;
        let log = store.with_extension("log");
        let printed = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)
            .expect("a log beside the store");
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_morris-web"))
            .arg("--store")
            .arg(store)
            .args(more)
            .stdout(std::process::Stdio::piped())
            .stderr(printed)
            .spawn()
            .expect("morris-web starts");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().expect("its output"))
            .read_line(&mut line)
            .expect("its address");
        let addr = line
            .trim()
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .parse()
            .unwrap_or_else(|_| panic!("an address: {line}"));
        WebProcess { child, addr, log }
    }

    /// What it printed on its standard error so far.
    #[allow(dead_code)]
    pub fn printed(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The process's id (for its memory, which one of the files sharing
    /// this module reads).
    #[allow(dead_code)]
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Kills it at once, as a crash or a power cut would.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for WebProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The workspace's engine: morris-web itself in protocol mode.
pub fn morris() -> EngineConfig {
    EngineConfig {
        name: "morris".to_owned(),
        cmd: env!("CARGO_BIN_EXE_morris-web").to_owned(),
        args: vec!["--uci".to_owned()],
        ..EngineConfig::default()
    }
}

/// A shell script as the engine.
pub fn script(text: &str) -> EngineConfig {
    EngineConfig {
        name: "script".to_owned(),
        cmd: "sh".to_owned(),
        args: vec!["-c".to_owned(), text.to_owned()],
        ..EngineConfig::default()
    }
}

/// A position of three stones a side that White wins in five plies, with
/// moves that win, draw and lose (a7-b6, a7-g4, a7-g7 among them).
pub const WIN_IN_FIVE: &str = "WB./.W./.B./...W../B../.../... w 0 0 0 10";

/// A folder, removed when dropped.
pub struct TempDir(PathBuf);

impl TempDir {
    /// An empty folder for the test `name`.
    pub fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("morris-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a folder");
        TempDir(dir)
    }

    /// Where it is.
    pub fn path(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The databases of three stones a side, built for the test `name` in a
/// folder of its own, which lasts as long as the guard.
pub fn small_databases(name: &str) -> (Database, TempDir) {
    let dir = TempDir::new(name);
    generate(
        dir.path(),
        SectorRange::per_side(Variant::Nine, 3),
        &|_| {},
        |_| {},
    )
    .expect("the 3-3 databases");
    let (db, _) = Database::open(dir.path()).expect("the databases open");
    (db, dir)
}

/// The databases of [`small_databases`] and the placing phase of three
/// stones a side (on the board and in hand).
pub fn small_databases_with_placing(name: &str) -> (Database, TempDir) {
    let (_, dir) = small_databases(name);
    let sectors = Sector::placing_within(Variant::Nine, 3);
    let mut build = PlacingBuild::new(dir.path(), &sectors);
    for &sector in &sectors {
        build
            .sector(sector, &|_| {}, |_| {})
            .expect("a placing sector");
    }
    let (db, _) = Database::open(dir.path()).expect("the databases open");
    (db, dir)
}

/// One HTTP request; the status and the body, or why there is no answer.
pub fn try_request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: &str,
) -> std::io::Result<(u16, String)> {
    let (status, _, body) = try_exchange(addr, method, path, "", body)?;
    Ok((status, body))
}

/// One HTTP request with `headers` of its own (each line ending in
/// `\r\n`); the status, the head (lower-cased) and the body, or why
/// there is no answer.
pub fn try_exchange(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &str,
    body: &str,
) -> std::io::Result<(u16, String, String)> {
    let closed = || std::io::Error::from(std::io::ErrorKind::UnexpectedEof);
    let mut stream = TcpStream::connect(addr)?;
    stream.set_read_timeout(Some(Duration::from_secs(60)))?;
    // One write: the request whole, not a segment for each piece.
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\n{headers}Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes())?;
    // Read the head, then the body by its length: some servers keep the
    // connection open despite `Connection: close`.
    let mut bytes = Vec::new();
    let mut buffer = [0u8; 8192];
    let head_end = loop {
        if let Some(at) = bytes.windows(4).position(|w| w == b"\r\n\r\n") {
            break at;
        }
        let n = stream.read(&mut buffer)?;
        if n == 0 {
            return Err(closed());
        }
        bytes.extend_from_slice(&buffer[..n]);
    };
    let head = String::from_utf8_lossy(&bytes[..head_end]).to_ascii_lowercase();
    let mut body = bytes[head_end + 4..].to_vec();
    let length = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse::<usize>().ok());
    match length {
        Some(length) => {
            while body.len() < length {
                let n = stream.read(&mut buffer)?;
                if n == 0 {
                    return Err(closed());
                }
                body.extend_from_slice(&buffer[..n]);
            }
            body.truncate(length);
        }
        None => {
            stream.read_to_end(&mut body)?;
        }
    }
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status");
    let body = String::from_utf8(body).expect("text");
    // Without a length the body may come in chunks.
    let body = if head.contains("transfer-encoding: chunked") {
        unchunk(&body)
    } else {
        body
    };
    Ok((status, head, body))
}

fn unchunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).expect("a chunk size");
        if size == 0 {
            break;
        }
        out.push_str(&rest[..size]);
        body = &rest[size + 2..];
    }
    out
}

/// A stream of server-sent events being read: `GET path` held open (by
/// the server tests; the browser's are read by the page).
#[allow(dead_code)]
pub struct Events {
    stream: TcpStream,
    /// What came of the body (unchunked) and is not yet an event.
    pending: String,
}

#[allow(dead_code)]
impl Events {
    /// Opens the stream of `path`, with `bearer` as the player's token;
    /// the status and the refusal's body if it is not a stream.
    pub fn open(
        addr: SocketAddr,
        path: &str,
        bearer: Option<&str>,
    ) -> Result<Events, (u16, String)> {
        let mut stream = TcpStream::connect(addr).expect("the server");
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .expect("a timeout");
        let authorization = bearer.map_or(String::new(), |token| {
            format!("Authorization: Bearer {token}\r\n")
        });
        let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n{authorization}\r\n");
        stream.write_all(request.as_bytes()).expect("sent");
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") {
            stream.read_exact(&mut byte).expect("the head");
            head.push(byte[0]);
        }
        let head = String::from_utf8_lossy(&head).to_ascii_lowercase();
        let status: u16 = head
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .expect("a status");
        if !head.contains("content-type: text/event-stream") {
            let length = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse::<usize>().ok())
                .unwrap_or(0);
            let mut body = vec![0; length];
            stream.read_exact(&mut body).expect("the refusal");
            return Err((status, String::from_utf8_lossy(&body).into_owned()));
        }
        assert!(head.contains("transfer-encoding: chunked"), "{head}");
        Ok(Events {
            stream,
            pending: String::new(),
        })
    }

    /// The next event's name and data (comments skipped), waiting at most
    /// the stream's timeout; `None` once the stream ended.
    pub fn next(&mut self) -> Option<(String, String)> {
        loop {
            if let Some(end) = self.pending.find("\n\n") {
                let block: String = self.pending.drain(..end + 2).collect();
                let mut name = String::from("message");
                let mut data = Vec::new();
                for line in block.lines() {
                    if let Some(value) = line.strip_prefix("event:") {
                        name = value.trim().to_owned();
                    } else if let Some(value) = line.strip_prefix("data:") {
                        data.push(value.strip_prefix(' ').unwrap_or(value).to_owned());
                    }
                }
                if !data.is_empty() {
                    return Some((name, data.join("\n")));
                }
                continue;
            }
            let chunk = self.chunk()?;
            self.pending.push_str(&chunk);
        }
    }

    /// The body's next chunk; `None` at its end.
    fn chunk(&mut self) -> Option<String> {
        let mut size_line = Vec::new();
        let mut byte = [0u8; 1];
        while !size_line.ends_with(b"\r\n") {
            if self.stream.read(&mut byte).ok()? == 0 {
                return None;
            }
            size_line.push(byte[0]);
        }
        let size = usize::from_str_radix(String::from_utf8_lossy(&size_line).trim(), 16).ok()?;
        if size == 0 {
            return None;
        }
        let mut data = vec![0; size + 2];
        self.stream.read_exact(&mut data).ok()?;
        data.truncate(size);
        Some(String::from_utf8(data).expect("text"))
    }
}
