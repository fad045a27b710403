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

/// Serves until the process ends (one thread per connection).
pub fn serve(listener: TcpListener) {
    for stream in listener.incoming().flatten() {
        std::thread::spawn(move || {
            let _ = handle(stream);
        });
    }
}

fn handle(mut stream: TcpStream) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    // Drain the headers (bounded).
    let mut header = String::new();
    for _ in 0..100 {
        header.clear();
        if reader.read_line(&mut header)? == 0 || header == "\r\n" || header == "\n" {
            break;
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
