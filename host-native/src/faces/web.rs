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

/// The most connections served at once. When all are taken, a new one takes the place of the
/// oldest that has not finished sending its request yet (a slow or idle one); only when every
/// connection is busy answering is a new one answered 503.
const MAX_CONNECTIONS: usize = 64;
/// When every place is taken, a client (an address) holding this many makes room among its
/// own connections rather than another's.
const MAX_PER_CLIENT: usize = 48;
/// The longest a connection may take, however slowly its bytes drip in.
const CONNECTION_DEADLINE: Duration = Duration::from_secs(10);
/// How long a connection may stay silent before its first byte (a browser sends its request
/// at once; one that says nothing holds a place for nobody).
const IDLE_DEADLINE: Duration = Duration::from_secs(2);
/// The most bytes of a request line and its headers read.
const MAX_HEAD_BYTES: u64 = 16 * 1024;

/// One connection being served: who, since when, whether its request has been read, and a
/// handle to close it with.
struct Slot {
    id: u64,
    client: std::net::IpAddr,
    opened: std::time::Instant,
    head_read: std::sync::Arc<std::sync::atomic::AtomicBool>,
    stream: TcpStream,
}

/// The connections being served, shared by the accepting loop and the connections' threads.
#[derive(Default)]
struct Slots(std::sync::Mutex<Vec<Slot>>);

impl Slots {
    /// Takes a place for a connection from `client`, closing the oldest connection still
    /// sending its request when every place (or every place this client may have) is taken;
    /// false when none can be freed.
    fn admit(&self, slot: Slot) -> bool {
        use std::sync::atomic::Ordering;
        let mut slots = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let theirs = slots.iter().filter(|s| s.client == slot.client).count();
        let full = slots.len() >= MAX_CONNECTIONS;
        // A free place is taken as it is; only when none is does a client's share decide
        // whose slow connection makes room.
        if full {
            let evictable = slots
                .iter()
                .enumerate()
                .filter(|(_, s)| !s.head_read.load(Ordering::Relaxed))
                // Over its share, a client makes room among its own connections.
                .filter(|(_, s)| theirs < MAX_PER_CLIENT || s.client == slot.client)
                .min_by_key(|(_, s)| s.opened)
                .map(|(i, _)| i);
            let Some(i) = evictable else {
                return false;
            };
            let evicted = slots.swap_remove(i);
            let _ = evicted.stream.shutdown(std::net::Shutdown::Both);
        }
        slots.push(slot);
        true
    }

    fn release(&self, id: u64) {
        let mut slots = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        slots.retain(|s| s.id != id);
    }
}

/// Serves until the process ends (one thread per connection, at most [`MAX_CONNECTIONS`]).
pub fn serve(listener: TcpListener) {
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;
    let slots = Arc::new(Slots::default());
    let mut next_id = 0u64;
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
        let client = stream
            .peer_addr()
            .map_or(std::net::IpAddr::from([127, 0, 0, 1]), |a| a.ip());
        let head_read = Arc::new(AtomicBool::new(false));
        next_id += 1;
        let id = next_id;
        let admitted = stream.try_clone().is_ok_and(|handle| {
            slots.admit(Slot {
                id,
                client,
                opened: std::time::Instant::now(),
                head_read: Arc::clone(&head_read),
                stream: handle,
            })
        });
        if !admitted {
            let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
            let _ = stream.write_all(
                b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            );
            continue;
        }
        let slots = Arc::clone(&slots);
        std::thread::spawn(move || {
            let _ = handle(stream, &head_read);
            slots.release(id);
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

fn handle(mut stream: TcpStream, head_read: &std::sync::atomic::AtomicBool) -> std::io::Result<()> {
    let opened = std::time::Instant::now();
    let deadline = opened + CONNECTION_DEADLINE;
    stream.set_write_timeout(Some(CONNECTION_DEADLINE))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    // The first byte comes soon, or the connection is idle and let go.
    stream.set_read_timeout(Some(IDLE_DEADLINE))?;
    if reader.fill_buf()?.is_empty() {
        return Ok(());
    }
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
    head_read.store(true, std::sync::atomic::Ordering::Relaxed);
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
