//! What each ABI op answers inside `ok`, as types: the wire shape (field order included, which
//! the golden vectors pin) and the source of the TypeScript declarations hosts build against.

use crate::analyzer::{AnalysisOverview, Charts, ConversationList, ConversationView, FileSummary};
use crate::commands::Response;
use crate::ledger::fold::FoldStats;
use crate::ledger::session::Session;
use crate::transcripts::usage::UsageReport;
use serde::Serialize;

/// `version`: what this core is.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct VersionAnswer {
    /// The crate's version.
    pub version: String,
    /// The ABI's major version; a host built for it works with any core that answers it.
    pub abi_version: u32,
    /// Every op this core answers.
    pub ops: Vec<String>,
    /// The ledger schema version it reads and writes.
    pub schema: u64,
    /// Every error code it can answer with.
    pub error_codes: Vec<String>,
}

/// `fold`: every session of a ledger, and what was read.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FoldAnswer {
    /// Every session with a known start, oldest first.
    pub sessions: Vec<Session>,
    /// The lines read, by what they were.
    pub stats: FoldStats,
}

/// `execute`: the response and the lines the host appends.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ExecuteAnswer {
    /// The command's answer, as the CLI's `--json` and the MCP tools give it.
    pub response: Response,
    /// Whole NDJSON lines to append to the ledger, in order.
    pub append: Vec<String>,
    /// The CLI's `[ok] …` line, when the request asked for it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub human: Option<String>,
}

/// `query`: the response of a request that only reads.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct QueryAnswer {
    /// The command's answer.
    pub response: Response,
    /// The CLI's `[ok] …` line, when the request asked for it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub human: Option<String>,
}

/// `analyzer_open`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct OpenedAnswer {
    /// The analyzer's name.
    pub analyzer: String,
    /// Whether an analyzer of that name was open and has been started afresh.
    pub replaced: bool,
}

/// `analyzer_begin`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BegunAnswer {
    /// The analyzer's name.
    pub analyzer: String,
    /// The file begun.
    pub file: String,
}

/// `analyzer_push`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PushedAnswer {
    /// The analyzer's name.
    pub analyzer: String,
    /// The chunk's size in bytes (decoded, for base64).
    pub bytes: usize,
}

/// `analyzer_files`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FilesAnswer {
    /// The files finished, in order.
    pub files: Vec<FileSummary>,
}

/// `analyzer_overview`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct OverviewAnswer {
    /// The headline figures.
    pub overview: AnalysisOverview,
    /// The charts as SVG text, when `charts_width` was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub charts: Option<Charts>,
}

/// `analyzer_usage`: the report, or the same as CSV.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(untagged)]
pub enum UsageAnswer {
    /// Rows and totals.
    Report(Box<UsageReport>),
    /// `csv: true`.
    Csv {
        /// The report as CSV text, a header row first.
        csv: String,
    },
}

/// `analyzer_list`.
pub type ListAnswer = ConversationList;

/// `analyzer_view`: one branch, or the same as Markdown.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(untagged)]
pub enum ViewAnswer {
    /// The branch's messages.
    Conversation(ConversationView),
    /// `markdown: true`.
    Markdown {
        /// The branch as Markdown.
        markdown: String,
    },
}

/// `analyzer_close`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ClosedAnswer {
    /// The analyzer's name.
    pub analyzer: String,
    /// Always `true`.
    pub closed: bool,
}
