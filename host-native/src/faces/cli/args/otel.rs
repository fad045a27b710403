//! `baton otel`'s arguments: the receiver agents send their OpenTelemetry to, a file an agent
//! wrote its telemetry to, what was kept, and the work sessions sent out as traces.

use clap::{Args, Subcommand};
use std::path::PathBuf;

/// `baton otel --help`: how each agent is pointed at the receiver.
pub(crate) const OTEL_HELP: &str = "Point an agent at the receiver (it listens on 127.0.0.1:4318, OTLP over HTTP):
  Claude Code   CLAUDE_CODE_ENABLE_TELEMETRY=1 OTEL_LOGS_EXPORTER=otlp \\
                OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318
  Codex         ~/.codex/config.toml:  [otel]  exporter = { otlp-http = { endpoint = \"http://127.0.0.1:4318/v1/logs\", protocol = \"binary\" } }
  Copilot CLI   COPILOT_OTEL_FILE_EXPORTER_PATH=~/.copilot/otel/copilot.jsonl, then `baton otel import` that file
                (or OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 to send it)

Each request an agent reports (its model, tokens by class, the cost it computed, how long it took, its session and prompt) is kept once in the transcript index, beside what Baton reads from the transcripts; a report sent again is not counted twice.

Examples:
  baton otel serve                        # 127.0.0.1:4318 until Ctrl-C
  baton otel serve --token \"$TOKEN\"       # ask for `Authorization: Bearer $TOKEN`
  baton otel import ~/.copilot/otel/copilot.jsonl
  baton otel status                       # what was kept, by agent and model
  baton otel export --endpoint http://127.0.0.1:4318   # work sessions as traces, each once";

#[derive(Debug, Subcommand)]
pub(crate) enum OtelCommand {
    /// Receive OTLP over HTTP (protobuf or JSON; logs, metrics, traces) and keep the requests
    /// agents report
    Serve(OtelServeArgs),
    /// Keep the requests of a file of OpenTelemetry records (Copilot CLI's file export; OTLP
    /// JSON, a request or a record a line)
    Import(OtelImportArgs),
    /// What the index keeps of the agents' reports: requests by agent and model, first and last
    Status(super::IndexLocation),
    /// Send the ledger's ended work sessions as OpenTelemetry traces (each once) to an
    /// OTLP/HTTP endpoint
    Export(OtelExportArgs),
}

#[derive(Debug, Args)]
pub(crate) struct OtelExportArgs {
    /// Where to send: http://HOST:PORT of an OTLP/HTTP receiver (a Collector), or https://…
    /// (the system's trusted roots, or the bundle SSL_CERT_FILE names instead) [default:
    /// `endpoint` under [otel] in .baton/config.toml]
    #[arg(long, value_name = "URL")]
    pub(crate) endpoint: Option<String>,
    /// Send `Authorization: Bearer TOKEN` with each request [env: BATON_OTEL_TOKEN]
    #[arg(long, value_name = "TOKEN")]
    pub(crate) token: Option<String>,
    /// Keep going: send each session as it ends, and again after the endpoint was down
    /// (waiting twice as long after each failure, up to five minutes)
    #[arg(long)]
    pub(crate) follow: bool,
    /// With --follow: seconds between two looks at the ledger
    #[arg(long, value_name = "SECONDS", default_value_t = 10, requires = "follow", value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub(crate) every: u64,
    #[command(flatten)]
    pub(crate) index: super::IndexLocation,
}

#[derive(Debug, Args)]
pub(crate) struct OtelServeArgs {
    /// Where to listen
    #[arg(long, default_value = "127.0.0.1:4318", value_name = "ADDRESS:PORT")]
    pub(crate) listen: String,
    /// Listen on an address other machines can reach (by default only 127.0.0.1 and ::1)
    #[arg(long)]
    pub(crate) allow_remote: bool,
    /// Answer only requests with `Authorization: Bearer TOKEN` [env: BATON_OTEL_TOKEN]
    #[arg(long, value_name = "TOKEN")]
    pub(crate) token: Option<String>,
    #[command(flatten)]
    pub(crate) index: super::IndexLocation,
}

#[derive(Debug, Args)]
pub(crate) struct OtelImportArgs {
    /// The files (`-` for standard input): Copilot's file export writes one per run, so
    /// `~/.copilot/otel/*.jsonl` keeps them all; a file read again adds only what is new
    #[arg(required = true, num_args = 1..)]
    pub(crate) files: Vec<PathBuf>,
    #[command(flatten)]
    pub(crate) index: super::IndexLocation,
}
