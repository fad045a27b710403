//! `baton otel serve`: an OTLP/HTTP receiver for the telemetry coding agents send (logs,
//! traces and metrics; protobuf or JSON, gzip or not). Each export request is read whole,
//! within a size limit, and its requests kept by the one owner (`ops::otel::keep`); the answer
//! is OTLP's (a success, or a `google.rpc.Status` saying what was wrong, in the request's own
//! encoding), so an exporter retries what may pass later and drops what never will.

use crate::ops::otel::Kept;
use crate::ops::otel::decode::{self, Encoding, Signal};
use baton_core::{Error, ErrorCode};
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use prost::Message;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// The largest export request taken, as sent and once unzipped.
pub const MAX_BODY: usize = 16 * 1024 * 1024;

/// The most connections served at once.
const MAX_CONNECTIONS: usize = 64;

/// The longest a request's body may take to arrive.
const BODY_WITHIN: std::time::Duration = std::time::Duration::from_secs(60);

/// OTLP's error answer (`google.rpc.Status`): a code of gRPC's and what went wrong.
#[derive(Clone, PartialEq, prost::Message, serde::Serialize)]
struct Status {
    #[prost(int32, tag = "1")]
    code: i32,
    #[prost(string, tag = "2")]
    message: String,
}

/// What the receiver was asked to do.
#[derive(Debug)]
pub struct Options {
    pub listen: SocketAddr,
    pub token: Option<String>,
    pub index: PathBuf,
}

struct Shared {
    token: Option<String>,
    index: PathBuf,
    connection: Mutex<rusqlite::Connection>,
    totals: Mutex<Kept>,
    /// Say each batch on stdout (a person watching), or keep quiet (`--json`).
    tell: bool,
}

/// Serves until Ctrl-C or SIGTERM; `ready` is told the address once it listens. Returns what
/// was kept in all.
pub fn serve(options: Options, tell: bool, ready: impl FnOnce(SocketAddr)) -> Result<Kept, Error> {
    let connection = crate::index::open(&options.index, true)?;
    let shared = Arc::new(Shared {
        token: options.token.filter(|t| !t.is_empty()),
        index: options.index,
        connection: Mutex::new(connection),
        totals: Mutex::new(Kept::default()),
        tell,
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Error::new(ErrorCode::ServeFailed, e.to_string()))?;
    let serving = shared.clone();
    runtime.block_on(async move {
        let shared = serving;
        let listener = tokio::net::TcpListener::bind(options.listen)
            .await
            .map_err(|e| Error::cannot_listen(options.listen.port(), e))?;
        let address = listener
            .local_addr()
            .map_err(|e| Error::new(ErrorCode::ServeFailed, e.to_string()))?;
        ready(address);
        let connections = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
        let mut terminate =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
                .map_err(|e| Error::new(ErrorCode::ServeFailed, e.to_string()))?;
        loop {
            tokio::select! {
                accepted = listener.accept() => {
                    let Ok((stream, _)) = accepted else {
                        // Out of file descriptors, say: wait rather than spin.
                        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                        continue;
                    };
                    // At most so many connections at once; the next waits in the backlog.
                    let Ok(permit) = connections.clone().acquire_owned().await else { break };
                    let shared = shared.clone();
                    tokio::spawn(async move {
                        let _permit = permit;
                        let service = hyper::service::service_fn(move |request| {
                            let shared = shared.clone();
                            async move { Ok::<_, std::convert::Infallible>(answer(request, &shared).await) }
                        });
                        let _ = hyper::server::conn::http1::Builder::new()
                            .timer(hyper_util::rt::TokioTimer::new())
                            .header_read_timeout(std::time::Duration::from_secs(30))
                            .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                            .await;
                    });
                }
                _ = tokio::signal::ctrl_c() => break,
                _ = terminate.recv() => break,
            }
        }
        Ok::<(), Error>(())
    })?;
    let totals = *shared.totals.lock().unwrap_or_else(|p| p.into_inner());
    Ok(totals)
}

fn reply(status: StatusCode, encoding: Encoding, body: Vec<u8>) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static(match encoding {
            Encoding::Protobuf => "application/x-protobuf",
            Encoding::Json => "application/json",
        }),
    );
    response
}

/// An OTLP error answer: `status` with gRPC's `code` and `message`.
fn refuse(
    status: StatusCode,
    code: i32,
    encoding: Encoding,
    message: String,
) -> Response<Full<Bytes>> {
    let status_body = Status { code, message };
    let body = match encoding {
        Encoding::Protobuf => status_body.encode_to_vec(),
        Encoding::Json => serde_json::to_vec(&status_body).unwrap_or_default(),
    };
    reply(status, encoding, body)
}

/// gRPC's codes OTLP answers with.
const INVALID_ARGUMENT: i32 = 3;
const UNAUTHENTICATED: i32 = 16;
const UNAVAILABLE: i32 = 14;
const UNIMPLEMENTED: i32 = 12;
const RESOURCE_EXHAUSTED: i32 = 8;

async fn answer(request: Request<Incoming>, shared: &Shared) -> Response<Full<Bytes>> {
    let header = |name: hyper::header::HeaderName| {
        request
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.trim().to_ascii_lowercase())
    };
    let encoding = match header(hyper::header::CONTENT_TYPE).as_deref() {
        Some(t) if t.starts_with("application/json") => Encoding::Json,
        _ => Encoding::Protobuf,
    };
    let Some(signal) = Signal::of_path(request.uri().path()) else {
        return refuse(
            StatusCode::NOT_FOUND,
            UNIMPLEMENTED,
            encoding,
            format!(
                "{} is no OTLP path here: send to /v1/logs, /v1/traces or /v1/metrics",
                request.uri().path()
            ),
        );
    };
    if request.method() != hyper::Method::POST {
        return refuse(
            StatusCode::METHOD_NOT_ALLOWED,
            UNIMPLEMENTED,
            encoding,
            "OTLP export requests are POSTed".to_owned(),
        );
    }
    if let Some(token) = &shared.token {
        let given = request
            .headers()
            .get(hyper::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::trim);
        if given != Some(token.as_str()) {
            return refuse(
                StatusCode::UNAUTHORIZED,
                UNAUTHENTICATED,
                encoding,
                "this receiver asks for `Authorization: Bearer TOKEN` (OTEL_EXPORTER_OTLP_HEADERS=\"Authorization=Bearer TOKEN\")".to_owned(),
            );
        }
    }
    match header(hyper::header::CONTENT_TYPE).as_deref() {
        Some(t) if t.starts_with("application/json") || t.starts_with("application/x-protobuf") => {
        }
        other => {
            return refuse(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                INVALID_ARGUMENT,
                encoding,
                format!(
                    "content type {} is neither application/x-protobuf nor application/json",
                    other.unwrap_or("(none)")
                ),
            );
        }
    }
    let gzip = match header(hyper::header::CONTENT_ENCODING).as_deref() {
        None | Some("identity") => false,
        Some("gzip") => true,
        Some(other) => {
            return refuse(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                INVALID_ARGUMENT,
                encoding,
                format!("content encoding {other} is not read here (gzip or none)"),
            );
        }
    };
    let too_big = || {
        refuse(
            StatusCode::PAYLOAD_TOO_LARGE,
            RESOURCE_EXHAUSTED,
            encoding,
            format!(
                "the request is over {} MB: send smaller batches",
                MAX_BODY / 1024 / 1024
            ),
        )
    };
    let read = tokio::time::timeout(
        BODY_WITHIN,
        Limited::new(request.into_body(), MAX_BODY).collect(),
    )
    .await;
    let body = match read {
        Ok(Ok(collected)) => collected.to_bytes(),
        Ok(Err(err))
            if err
                .downcast_ref::<http_body_util::LengthLimitError>()
                .is_some() =>
        {
            return too_big();
        }
        Ok(Err(err)) => {
            return refuse(
                StatusCode::BAD_REQUEST,
                INVALID_ARGUMENT,
                encoding,
                format!("the body did not arrive whole: {err}"),
            );
        }
        Err(_) => {
            return refuse(
                StatusCode::REQUEST_TIMEOUT,
                UNAVAILABLE,
                encoding,
                format!("the body took over {} s to arrive", BODY_WITHIN.as_secs()),
            );
        }
    };
    let body = if gzip {
        use std::io::Read;
        let mut out = Vec::new();
        let read = flate2::read::GzDecoder::new(&body[..])
            .take(MAX_BODY as u64 + 1)
            .read_to_end(&mut out);
        match read {
            Ok(n) if n > MAX_BODY => return too_big(),
            Ok(_) => Bytes::from(out),
            Err(e) => {
                return refuse(
                    StatusCode::BAD_REQUEST,
                    INVALID_ARGUMENT,
                    encoding,
                    format!("the gzip body does not unzip: {e}"),
                );
            }
        }
    } else {
        body
    };
    let too_many = match encoding {
        Encoding::Protobuf => decode::count_protobuf(&body).unwrap_or(0) > decode::MOST_RECORDS,
        Encoding::Json => decode::count_json(&body) > decode::MOST_JSON_OBJECTS,
    };
    if too_many {
        return refuse(
            StatusCode::PAYLOAD_TOO_LARGE,
            RESOURCE_EXHAUSTED,
            encoding,
            format!(
                "the request holds over {} records: send smaller batches",
                decode::MOST_RECORDS
            ),
        );
    }
    let decoded = match decode::request(signal, encoding, &body) {
        Ok(decoded) => decoded,
        Err(err) => {
            return refuse(
                StatusCode::BAD_REQUEST,
                INVALID_ARGUMENT,
                encoding,
                err.message,
            );
        }
    };
    let kept = tokio::task::block_in_place(|| {
        let now = crate::os::system::now().map(|t| t.millis()).unwrap_or(0);
        let mut connection = shared.connection.lock().unwrap_or_else(|p| p.into_inner());
        crate::ops::otel::keep(&mut connection, &shared.index, &decoded.records, now)
    });
    match kept {
        Ok(kept) => {
            shared
                .totals
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .add(kept);
            if shared.tell {
                let points = if decoded.points > 0 {
                    format!(", {} metric point(s) (not kept)", decoded.points)
                } else {
                    String::new()
                };
                crate::os::terminal::print_line(&format!(
                    "{} {}: {} record(s), {} request(s), {} new{points}",
                    crate::os::system::now()
                        .map(|t| t.to_string()[11..19].to_owned())
                        .unwrap_or_default(),
                    signal.name(),
                    kept.records,
                    kept.requests,
                    kept.new
                ));
            }
            // An empty Export*ServiceResponse: all were taken.
            let body = match encoding {
                Encoding::Protobuf => Vec::new(),
                Encoding::Json => b"{}".to_vec(),
            };
            reply(StatusCode::OK, encoding, body)
        }
        // The index busy or unwritable: the exporter may send it again later.
        Err(err) => refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            UNAVAILABLE,
            encoding,
            err.message,
        ),
    }
}
