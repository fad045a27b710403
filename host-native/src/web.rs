//! `baton web`: a small static server for the embedded page, bound to 127.0.0.1 only.
//!
//! It serves the files `www/build.sh` produced, with a Content-Security-Policy that forbids
//! the page any network connection, so an export dropped into it stays on the machine.

use baton_core::{Error, ErrorCode};
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::Duration;

mod assets {
    include!(concat!(env!("OUT_DIR"), "/www_assets.rs"));
}

/// The policy sent with every response (the page repeats it in a `<meta>` tag).
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'none'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'";

/// Whether the page is embedded in this binary.
pub fn page_built() -> bool {
    assets::PAGE_BUILT
}

fn content_type(path: &str) -> &'static str {
    match path.rsplit('.').next() {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("wasm") => "application/wasm",
        Some("svg") => "image/svg+xml",
        _ => "application/octet-stream",
    }
}

/// Binds the server; `port` 0 picks a free one.
pub fn bind(port: u16) -> Result<TcpListener, Error> {
    if !page_built() {
        return Err(Error::new(
            ErrorCode::PageNotBuilt,
            "this baton was built without the web page: run `www/build.sh`, then `cargo build -p baton` (or use ./run demo)",
        ));
    }
    TcpListener::bind(("127.0.0.1", port)).map_err(|e| Error::cannot_listen(port, e))
}

/// The address a bound listener serves.
pub fn url(listener: &TcpListener) -> Result<String, Error> {
    let addr: SocketAddr = listener
        .local_addr()
        .map_err(|e| Error::new(ErrorCode::ServeFailed, e.to_string()))?;
    Ok(format!("http://{addr}/"))
}

/// The most connections served at once; more are answered 503 at once and closed.
const MAX_CONNECTIONS: usize = 64;
/// The longest a connection may take, however slowly its bytes drip in.
const CONNECTION_DEADLINE: Duration = Duration::from_secs(10);
/// The most bytes of a request line and its headers read.
const MAX_HEAD_BYTES: u64 = 16 * 1024;

/// Serves until the process ends (one thread per connection, at most [`MAX_CONNECTIONS`]).
pub fn serve(listener: TcpListener) {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let open = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        let mut stream = match stream {
            Ok(stream) => stream,
            Err(_) => {
                // Out of descriptors or a connection reset before accept: wait instead of
                // spinning on the error.
                std::thread::sleep(Duration::from_millis(50));
                continue;
            }
        };
        if open.load(Ordering::Relaxed) >= MAX_CONNECTIONS {
            let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
            let _ = stream.write_all(
                b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            );
            continue;
        }
        open.fetch_add(1, Ordering::Relaxed);
        let open = Arc::clone(&open);
        std::thread::spawn(move || {
            let _ = handle(stream);
            open.fetch_sub(1, Ordering::Relaxed);
        });
    }
}

/// Reads one line of the request head within the deadline and the byte budget left: each
/// read waits only until the deadline, so bytes dripping in one a second end at it too.
fn read_head_line(
    reader: &mut BufReader<TcpStream>,
    stream: &TcpStream,
    deadline: std::time::Instant,
    budget: &mut u64,
    line: &mut String,
) -> std::io::Result<usize> {
    let too_slow = || {
        std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            "request head too slow or too long",
        )
    };
    let mut bytes = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() || *budget == 0 {
            return Err(too_slow());
        }
        stream.set_read_timeout(Some(left))?;
        let available = reader.fill_buf()?;
        if available.is_empty() {
            break;
        }
        let room = usize::try_from(*budget).unwrap_or(usize::MAX);
        let (take, done) = match available.iter().position(|&b| b == b'\n') {
            Some(at) if at < room => (at + 1, true),
            _ => (available.len().min(room), false),
        };
        bytes.extend_from_slice(&available[..take]);
        reader.consume(take);
        *budget -= take as u64;
        if done {
            break;
        }
    }
    line.push_str(&String::from_utf8_lossy(&bytes));
    Ok(bytes.len())
}

fn handle(mut stream: TcpStream) -> std::io::Result<()> {
    let deadline = std::time::Instant::now() + CONNECTION_DEADLINE;
    stream.set_write_timeout(Some(CONNECTION_DEADLINE))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut budget = MAX_HEAD_BYTES;
    let mut request_line = String::new();
    read_head_line(
        &mut reader,
        &stream,
        deadline,
        &mut budget,
        &mut request_line,
    )?;
    // Drain the headers, within the same deadline and budget.
    let mut header = String::new();
    loop {
        header.clear();
        let n = read_head_line(&mut reader, &stream, deadline, &mut budget, &mut header)?;
        if n == 0 || header == "\r\n" || header == "\n" {
            break;
        }
        if !header.ends_with('\n') {
            // The budget ran out mid-line: a head no browser sends.
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "request head too long",
            ));
        }
    }
    let mut parts = request_line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/"));
    let path = target.split(['?', '#']).next().unwrap_or("/");
    let path = if path == "/" { "/index.html" } else { path };
    let (status, body, kind): (&str, &[u8], &str) = if method != "GET" && method != "HEAD" {
        (
            "405 Method Not Allowed",
            b"method not allowed\n",
            "text/plain",
        )
    } else if let Some((_, bytes)) = assets::ASSETS.iter().find(|(p, _)| *p == path) {
        ("200 OK", bytes, content_type(path))
    } else {
        ("404 Not Found", b"not found\n", "text/plain")
    };
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nContent-Security-Policy: {CONTENT_SECURITY_POLICY}\r\nX-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\nCross-Origin-Opener-Policy: same-origin\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes())?;
    if method != "HEAD" {
        stream.write_all(body)?;
    }
    stream.flush()
}
