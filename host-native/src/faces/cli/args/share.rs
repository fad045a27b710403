//! The arguments of `baton share`.

use super::{QueryIndex, TranscriptFilters};
use clap::{Args, ValueEnum};
use std::path::PathBuf;

#[derive(Debug, Args)]
pub(crate) struct ShareArgs {
    /// The conversation: the index's number, the provider's id, or 8+ characters of it
    #[arg(required_unless_present_any = ["session", "search"], conflicts_with_all = ["session", "search"])]
    pub(crate) reference: Option<String>,
    /// Share a work session instead: its facts, timeline, cost and linked conversations
    #[arg(long, value_name = "ID", conflicts_with = "search")]
    pub(crate) session: Option<String>,
    /// Share the hits of a search instead (every word must appear, as `baton search`)
    #[arg(long, value_name = "WORDS")]
    pub(crate) search: Option<String>,
    #[command(flatten)]
    pub(crate) filters: TranscriptFilters,
    /// How many search hits
    #[arg(long, default_value_t = 50)]
    pub(crate) limit: u32,
    #[command(flatten)]
    pub(crate) index: QueryIndex,
    /// Where to write it, `-` for standard output [default: a file named after its title, in
    /// the current folder]
    #[arg(short, long, value_name = "FILE")]
    pub(crate) output: Option<PathBuf>,
    /// html, markdown or json [default: from the output's extension, else html]
    #[arg(long, value_enum)]
    pub(crate) format: Option<ShareFormat>,
    /// What to leave out: none, secrets, share or strict (share, and every host and URL)
    #[arg(long, value_name = "PROFILE", default_value = "share")]
    pub(crate) redact: String,
    /// A word to leave out too (again for more)
    #[arg(long = "redact-word", value_name = "WORD")]
    pub(crate) redact_words: Vec<String>,
    /// A value to leave as it is though the profile masks it: a false positive the preview
    /// showed (again for more)
    #[arg(long, value_name = "VALUE")]
    pub(crate) keep: Vec<String>,
    /// List what would be replaced, grouped and counted, and write nothing
    #[arg(long)]
    pub(crate) preview: bool,
    /// Lock the HTML file with a password: asked twice on the terminal, or read from
    /// BATON_SHARE_PASSWORD
    #[arg(long)]
    pub(crate) password: bool,
    /// Lock it with the password on the first line of this file
    #[arg(long, value_name = "FILE", conflicts_with = "password")]
    pub(crate) password_file: Option<PathBuf>,
    /// Replace the output file if it exists
    #[arg(long)]
    pub(crate) force: bool,
}

/// The forms a chat service's conversation is restored in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum RestoreFormat {
    /// One HTML file that opens offline.
    Html,
    /// Markdown.
    Markdown,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ShareFormat {
    /// One HTML file that opens offline.
    Html,
    /// Markdown.
    Markdown,
    /// JSON.
    Json,
}
