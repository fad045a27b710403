//! The sources a usage report looked in that gave nothing, and what a person reads of them.

use crate::transcripts::Provider;
use serde::{Deserialize, Serialize};

/// A transcript folder that gave nothing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MissingSource {
    /// Whose transcripts were looked for.
    pub provider: Provider,
    /// The folder.
    pub path: String,
    /// `not_found` (no such folder or file), `no_transcripts` (no transcript file in it) or
    /// `no_usage` (its files hold no usage of this provider: another tool's folder?).
    pub reason: String,
}

impl MissingSource {
    /// What a person reads about it.
    pub fn describe(&self) -> String {
        let whose = self.provider.entry().title;
        match self.reason.as_str() {
            "not_found" => format!("no {whose} transcripts: {} does not exist", self.path),
            "no_usage" => format!(
                "no {whose} usage in {}: its files hold none (is it another tool's folder?)",
                self.path
            ),
            _ => format!(
                "no {whose} transcripts in {} (no {} files)",
                self.path,
                self.provider
                    .entry()
                    .extensions
                    .iter()
                    .map(|e| format!(".{e}"))
                    .collect::<Vec<_>>()
                    .join(" or ")
            ),
        }
    }
}

/// What a person reads about the sources that gave nothing, in order: an agent whose every
/// default folder is absent said once (an editor extension has a folder in each editor),
/// the others one by one.
pub fn describe_missing(missing: &[MissingSource]) -> Vec<String> {
    let mut lines = Vec::new();
    let mut at = 0;
    while at < missing.len() {
        let provider = missing[at].provider;
        let run = missing[at..]
            .iter()
            .take_while(|m| m.provider == provider && m.reason == "not_found")
            .count();
        if run > 1 {
            lines.push(format!(
                "no {} transcripts: {} does not exist, nor do the {} other folders it may use",
                provider.entry().title,
                missing[at].path,
                run - 1
            ));
            at += run;
        } else {
            lines.push(missing[at].describe());
            at += 1;
        }
    }
    lines
}
