//! How an export reaches its endpoint: the traces and metrics addresses an endpoint gives,
//! and one OTLP/HTTP post (protobuf), plain or over TLS, whose refusal or silence is an error
//! that says so.

use baton_core::Error;

/// The endpoint's traces address: `http://host:4318` gets `/v1/traces`; `https://` is sent
/// over TLS (the system's trusted roots, or the bundle `SSL_CERT_FILE` names instead).
pub fn traces_uri(endpoint: &str) -> Result<hyper::Uri, Error> {
    let bad = |why: &str| Error::invalid("endpoint", format!("`{endpoint}` {why}"));
    let uri: hyper::Uri = endpoint
        .trim()
        .parse()
        .map_err(|_| bad("is not an address (http://host:4318)"))?;
    let (scheme, default_port) = match uri.scheme_str() {
        Some("http") => ("http", 4318),
        Some("https") => ("https", 443),
        _ => return Err(bad("is not an http:// or https:// address")),
    };
    let host = uri.host().ok_or_else(|| bad("names no host"))?;
    let port = uri.port_u16().unwrap_or(default_port);
    let path = match uri.path() {
        "" | "/" => "/v1/traces".to_owned(),
        p if p.ends_with("/v1/traces") => p.to_owned(),
        p => format!("{}/v1/traces", p.trim_end_matches('/')),
    };
    format!("{scheme}://{host}:{port}{path}")
        .parse()
        .map_err(|_| bad("is not an address"))
}

/// Sends one request over `stream` (plain or TLS) and reads the answer's status.
async fn exchange<S>(
    stream: S,
    uri: &hyper::Uri,
    body: Vec<u8>,
    token: Option<&str>,
    down: &dyn Fn(String) -> Error,
) -> Result<(), Error>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    use http_body_util::{BodyExt, Full};
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
            .await
            .map_err(|e| down(e.to_string()))?;
    tokio::spawn(connection);
    // The origin form (`POST /v1/traces`), not the address a proxy is given.
    let path = uri.path_and_query().map_or("/v1/traces", |p| p.as_str());
    let host = match uri.port_u16() {
        Some(port) => format!("{}:{port}", uri.host().unwrap_or("127.0.0.1")),
        None => uri.host().unwrap_or("127.0.0.1").to_owned(),
    };
    let mut request = hyper::Request::post(path)
        .header(hyper::header::HOST, host)
        .header(hyper::header::CONTENT_TYPE, "application/x-protobuf");
    if let Some(token) = token {
        request = request.header(hyper::header::AUTHORIZATION, format!("Bearer {token}"));
    }
    let request = request
        .body(Full::new(bytes::Bytes::from(body)))
        .map_err(|e| down(e.to_string()))?;
    let response = tokio::time::timeout(
        std::time::Duration::from_secs(30),
        sender.send_request(request),
    )
    .await
    .map_err(|_| down("no answer in 30 s".to_owned()))?
    .map_err(|e| down(e.to_string()))?;
    let status = response.status();
    // What it says back, within 30 s and 64 KiB (an answer that stalls or runs on is not
    // waited for: its status is what counts).
    let said = tokio::time::timeout(
        std::time::Duration::from_secs(30),
        http_body_util::Limited::new(response.into_body(), 64 << 10).collect(),
    )
    .await
    .ok()
    .and_then(Result::ok)
    .map(|b| b.to_bytes())
    .unwrap_or_default();
    if status.is_success() {
        partly(uri, &said);
        return Ok(());
    }
    Err(down(format!(
        "it answered {status} {}",
        String::from_utf8_lossy(&said)
            .chars()
            .take(200)
            .collect::<String>()
    )))
}

/// An endpoint that took a request but rejected part of it says so in the answer's
/// `partial_success` (traces and metrics answers alike: a count, then a message); sending it
/// again would not help, so it is said as a warning and the batch counts as sent.
fn partly(uri: &hyper::Uri, said: &[u8]) {
    use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceResponse;
    use prost::Message;
    let Some(partial) = ExportTraceServiceResponse::decode(said)
        .ok()
        .and_then(|r| r.partial_success)
    else {
        return;
    };
    if partial.rejected_spans > 0 || !partial.error_message.is_empty() {
        let what = if uri.path().ends_with("/v1/metrics") {
            "data point(s)"
        } else {
            "span(s)"
        };
        crate::os::warnings::warn(&format!(
            "{uri} rejected {} {what}: {}",
            partial.rejected_spans,
            if partial.error_message.is_empty() {
                "it gave no reason"
            } else {
                &partial.error_message
            }
        ));
    }
}

/// Posts one protobuf body; the endpoint's refusal or silence is an error saying so.
pub fn post(uri: &hyper::Uri, body: Vec<u8>, token: Option<&str>) -> Result<(), Error> {
    let down = |why: String| {
        Error::new(
            baton_core::ErrorCode::ServeFailed,
            format!("could not send to {uri}: {why}"),
        )
    };
    let tls = uri.scheme_str() == Some("https");
    let config = if tls {
        Some(std::sync::Arc::new(crate::os::tls::client_config(
            None, "endpoint",
        )?))
    } else {
        None
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| down(e.to_string()))?;
    runtime.block_on(async {
        let host = uri
            .host()
            .unwrap_or("127.0.0.1")
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_owned();
        let port = uri.port_u16().unwrap_or(if tls { 443 } else { 4318 });
        let connect = tokio::net::TcpStream::connect((host.as_str(), port));
        let stream = tokio::time::timeout(std::time::Duration::from_secs(10), connect)
            .await
            .map_err(|_| down("no answer in 10 s".to_owned()))?
            .map_err(|e| down(e.to_string()))?;
        let Some(config) = config else {
            return exchange(stream, uri, body, token, &down).await;
        };
        let name = rustls_pki_types::ServerName::try_from(host.clone())
            .map_err(|e| down(format!("`{host}` is no name TLS can check: {e}")))?;
        let handshake = tokio_rustls::TlsConnector::from(config).connect(name, stream);
        let stream = tokio::time::timeout(std::time::Duration::from_secs(10), handshake)
            .await
            .map_err(|_| down("no TLS handshake in 10 s".to_owned()))?
            .map_err(|e| down(format!("TLS: {e}")))?;
        exchange(stream, uri, body, token, &down).await
    })
}

/// The same endpoint's metrics address.
pub fn metrics_uri(traces: &hyper::Uri) -> Result<hyper::Uri, Error> {
    let text = traces.to_string();
    let base = text.strip_suffix("/v1/traces").unwrap_or(&text);
    format!("{base}/v1/metrics")
        .parse()
        .map_err(|_| Error::invalid("endpoint", format!("`{text}` has no metrics address")))
}
