//! The ABI's analyzers: transcript and export bytes pushed in chunks into a named analyzer that
//! lives between calls, then asked for usage rows, the overview, the conversation list (with
//! search) and one conversation — the page's protocol, for any host.

use super::answers::{
    BegunAnswer, ClosedAnswer, FilesAnswer, OpenedAnswer, OverviewAnswer, PushedAnswer,
    UsageAnswer, ViewAnswer,
};
use super::{Answer, to_json};
use crate::analyzer::{Analyzer, ListQuery};
use crate::error::{Error, Result};
use crate::transcripts::conversation::ReadOptions;
use crate::transcripts::usage::GroupBy;
use base64::Engine as _;
use serde::Deserialize;
use std::collections::BTreeMap;

/// How many analyzers one embedding keeps open at once; opening another asks the host to
/// close one first (each holds everything pushed into it).
pub const MAX_OPEN_ANALYZERS: usize = 64;

/// How many bytes of an archive's work one step of `analyzer_finish` does at a time.
const PUMP_BUDGET: usize = 1 << 20;

/// A request to an analyzer; every one names it with `analyzer`.
#[derive(Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "op", deny_unknown_fields)]
pub(super) enum AnalyzerRequest {
    #[serde(rename = "analyzer_open")]
    Open {
        analyzer: String,
        #[serde(default)]
        include_hidden: bool,
    },
    #[serde(rename = "analyzer_begin")]
    Begin { analyzer: String, name: String },
    #[serde(rename = "analyzer_push")]
    Push {
        analyzer: String,
        #[serde(default)]
        text: Option<String>,
        #[serde(default)]
        base64: Option<String>,
    },
    #[serde(rename = "analyzer_finish")]
    Finish { analyzer: String },
    #[serde(rename = "analyzer_close")]
    Close { analyzer: String },
    #[serde(rename = "analyzer_files")]
    Files { analyzer: String },
    #[serde(rename = "analyzer_overview")]
    Overview {
        analyzer: String,
        #[serde(default)]
        charts_width: Option<u32>,
    },
    #[serde(rename = "analyzer_usage")]
    Usage {
        analyzer: String,
        group_by: GroupBy,
        #[serde(default)]
        csv: bool,
    },
    #[serde(rename = "analyzer_list")]
    List {
        analyzer: String,
        #[serde(default)]
        query: ListQuery,
    },
    #[serde(rename = "analyzer_view")]
    View {
        analyzer: String,
        index: usize,
        #[serde(default)]
        through: Option<String>,
        #[serde(default)]
        markdown: bool,
    },
    #[serde(rename = "analyzer_work")]
    Work { analyzer: String },
}

/// The analyzers an embedding holds, by the names its host gave them.
#[derive(Debug, Default)]
pub(super) struct Analyzers {
    open: BTreeMap<String, Analyzer>,
}

impl Analyzers {
    fn get(&mut self, name: &str) -> Result<&mut Analyzer> {
        if !self.open.contains_key(name) {
            let open: Vec<String> = self.open.keys().cloned().collect();
            return Err(Error::invalid(
                "analyzer",
                format!("no analyzer named `{name}` is open: open it with `analyzer_open` first"),
            )
            .with("open", open));
        }
        self.open
            .get_mut(name)
            .ok_or_else(|| Error::internal("an open analyzer went missing"))
    }

    /// Answers one analyzer request.
    pub(super) fn answer(&mut self, request: AnalyzerRequest) -> Result<Answer> {
        use AnalyzerRequest::*;
        // A question about what is loaded sees a tree of files loaded last read whole.
        if let Files { analyzer }
        | Overview { analyzer, .. }
        | Usage { analyzer, .. }
        | List { analyzer, .. }
        | View { analyzer, .. }
        | Work { analyzer } = &request
            && let Ok(loaded) = self.get(analyzer)
        {
            loaded.settle();
        }
        match request {
            Open {
                analyzer,
                include_hidden,
            } => {
                if !self.open.contains_key(&analyzer) && self.open.len() >= MAX_OPEN_ANALYZERS {
                    return Err(Error::invalid(
                        "analyzer",
                        format!(
                            "{MAX_OPEN_ANALYZERS} analyzers are open already: close one with `analyzer_close`"
                        ),
                    ));
                }
                if analyzer.is_empty() {
                    return Err(Error::invalid("analyzer", "give the analyzer a name"));
                }
                let mut fresh = Analyzer::new();
                fresh.set_read_options(ReadOptions { include_hidden });
                let replaced = self.open.insert(analyzer.clone(), fresh).is_some();
                to_json(&OpenedAnswer { analyzer, replaced })
            }
            Begin { analyzer, name } => {
                self.get(&analyzer)?.begin(&name);
                to_json(&BegunAnswer {
                    analyzer,
                    file: name,
                })
            }
            Push {
                analyzer,
                text,
                base64,
            } => {
                let bytes = match (text, base64) {
                    (Some(text), None) => text.into_bytes(),
                    (None, Some(encoded)) => base64::engine::general_purpose::STANDARD
                        .decode(encoded.as_bytes())
                        .map_err(|e| Error::invalid("base64", format!("not base64: {e}")))?,
                    _ => {
                        return Err(Error::invalid(
                            "chunk",
                            "give the chunk as exactly one of `text` (UTF-8) or `base64` (any bytes)",
                        ));
                    }
                };
                self.get(&analyzer)?.push(&bytes)?;
                to_json(&PushedAnswer {
                    analyzer,
                    bytes: bytes.len(),
                })
            }
            Finish { analyzer } => {
                let loaded = self.get(&analyzer)?;
                while !loaded.pump(PUMP_BUDGET)?.done {}
                to_json(&loaded.finish()?)
            }
            Close { analyzer } => {
                self.get(&analyzer)?;
                self.open.remove(&analyzer);
                to_json(&ClosedAnswer {
                    analyzer,
                    closed: true,
                })
            }
            Files { analyzer } => to_json(&FilesAnswer {
                files: self.get(&analyzer)?.files().to_vec(),
            }),
            Overview {
                analyzer,
                charts_width,
            } => {
                let loaded = self.get(&analyzer)?;
                let answer = match charts_width {
                    Some(width) => {
                        let report = loaded.report_at(width.clamp(200, 4000));
                        OverviewAnswer {
                            overview: report.overview,
                            charts: Some(report.charts),
                        }
                    }
                    None => OverviewAnswer {
                        overview: loaded.overview(),
                        charts: None,
                    },
                };
                to_json(&answer)
            }
            Usage {
                analyzer,
                group_by,
                csv,
            } => {
                let report = self.get(&analyzer)?.usage(group_by);
                to_json(&if csv {
                    UsageAnswer::Csv {
                        csv: report.to_csv(),
                    }
                } else {
                    UsageAnswer::Report(Box::new(report))
                })
            }
            List { analyzer, query } => to_json(&self.get(&analyzer)?.list(&query)),
            View {
                analyzer,
                index,
                through,
                markdown,
            } => {
                let view = self.get(&analyzer)?.view(index, through.as_deref())?;
                to_json(&if markdown {
                    ViewAnswer::Markdown {
                        markdown: crate::analyzer::markdown(&view),
                    }
                } else {
                    ViewAnswer::Conversation(view)
                })
            }
            Work { analyzer } => to_json(&self.get(&analyzer)?.work_overview()?),
        }
    }
}
