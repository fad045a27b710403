//! The tools over what the mirror keeps: searching, listing and reading transcripts, usage
//! from the index, and stored records (store, list, resume, export). Reads run off the async
//! threads.

use super::*;

/// `search_transcripts`' arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SearchTranscripts {
    /// Words (rare ones required; "quoted" a phrase).
    query: String,
    /// Comma-separated: text, thinking, tool_input, tool_output, tool [all].
    #[serde(default, rename = "in")]
    fields: Option<String>,
    #[serde(flatten)]
    filters: TranscriptFilters,
    /// Most hits (default 20).
    #[serde(default)]
    limit: Option<u32>,
    /// relevance (default) or newest.
    #[serde(default)]
    order: Option<String>,
}

/// Filters shared by the transcript tools.
#[derive(Debug, Deserialize, JsonSchema)]
struct TranscriptFilters {
    /// claude_code, codex, chatgpt or claude_ai.
    #[serde(default)]
    provider: Option<String>,
    /// Part of the project's path.
    #[serde(default)]
    project: Option<String>,
    /// First day, YYYY-MM-DD.
    #[serde(default)]
    since: Option<String>,
    /// Last day, YYYY-MM-DD.
    #[serde(default)]
    until: Option<String>,
}

/// `list_transcripts`' arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ListTranscripts {
    #[serde(flatten)]
    filters: TranscriptFilters,
    /// Most rows (default 20).
    #[serde(default)]
    limit: Option<u32>,
    /// Rows to skip.
    #[serde(default)]
    offset: Option<u32>,
}

/// `get_transcript`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct GetTranscript {
    /// The number list_transcripts gives, the provider's id, or 8+ characters of it.
    reference: String,
    /// Every branch instead of the active one only.
    #[serde(default)]
    all_branches: bool,
}

/// `get_usage`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct GetUsage {
    /// daily (default), weekly, monthly, session, model, project, branch, mission, pr, chain.
    #[serde(default)]
    group_by: Option<String>,
    /// claude_code or codex.
    #[serde(default)]
    provider: Option<String>,
    /// First day, YYYY-MM-DD.
    #[serde(default)]
    since: Option<String>,
    /// Last day, YYYY-MM-DD.
    #[serde(default)]
    until: Option<String>,
    /// Leave out sub-agents' responses (rows give delegated_cost_usd otherwise).
    #[serde(default)]
    own_only: bool,
}

/// `get_budgets`' arguments: none.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct GetBudgets {}

/// `get_usage_windows`' arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct GetUsageWindows {
    #[serde(default)]
    week: bool,
    /// active or recent (3 days) [all].
    #[serde(default)]
    only: Option<String>,
    /// Tokens, or max (highest past window).
    #[serde(default)]
    token_limit: Option<String>,
    #[serde(default)]
    by_session: bool,
    #[serde(default)]
    provider: Option<String>,
}

/// `session_store`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SessionStore {
    /// Verbatim text, not blank.
    content: String,
    /// Not blank when given.
    #[serde(default)]
    title: Option<String>,
    /// E.g. claude_code, codex; not blank.
    #[serde(default)]
    provider: Option<String>,
    /// The provider's session id; not blank.
    #[serde(default)]
    provider_session_id: Option<String>,
    /// None blank.
    #[serde(default)]
    tags: Vec<String>,
    /// A work session to attach it to.
    #[serde(default)]
    session_id: Option<String>,
}

/// `session_list`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SessionList {
    /// 1-200, default 20.
    #[serde(default)]
    limit: Option<i64>,
    /// Rows to skip.
    #[serde(default)]
    offset: Option<i64>,
    /// Exact provider.
    #[serde(default)]
    provider: Option<String>,
    /// Exact legacy agent_id.
    #[serde(default)]
    agent_id: Option<String>,
    /// RFC 3339, inclusive.
    #[serde(default)]
    since: Option<String>,
    /// stored (default), mirrored or all.
    #[serde(default)]
    include: Option<String>,
}

/// `session_resume`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SessionResume {
    /// Record id, or 8+ hex digits of either end.
    id: String,
}

/// `session_export`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SessionExport {
    /// Record id, or 8+ hex digits of either end.
    id: String,
    /// json (default) or markdown.
    #[serde(default)]
    format: Option<String>,
}

/// Each tool over the transcript index or the records in one row: its name and arguments,
/// annotations, description, and its work, run off the async threads by the method named
/// after `via` ([`BatonMcp::read_index`]: the index open for reading, and its path;
/// [`BatonMcp::records_call`]: the ledger and the index's path). rmcp's router must see every
/// `#[tool]` fn, so the whole impl is written here.
macro_rules! off_thread_tools {
    ($router:ident via $runner:ident: $(
        $name:ident($params:ty) [$($annotations:tt)*]
            $description:tt
            => |$p:ident, $first:ident, $second:ident| $body:block
    )*) => {
        #[tool_router(router = $router, vis = "pub(super)")]
        impl BatonMcp {
            $(
                #[tool(description = $description, annotations($($annotations)*))]
                async fn $name(
                    &self,
                    params: Parameters<$params>,
                ) -> Result<CallToolResult, ErrorData> {
                    Ok(self.$runner(params, move |$p, $first, $second| $body).await)
                }
            )*
        }
    };
}

#[tool_router(router = store_tools, vis = "pub(super)")]
impl BatonMcp {
    #[tool(
        description = "Keep a session record (summary, review, hand-off, transcript) verbatim.",
        annotations(destructive_hint = false, idempotent_hint = false)
    )]
    async fn session_store(
        &self,
        params: Parameters<SessionStore>,
        client: Client,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(self
            .records_call(params, move |p, ledger, index| {
                let acting = engine::Acting {
                    actor: None,
                    person: None,
                    caller: client.caller(),
                };
                let record = crate::ops::records::store(
                    ledger,
                    index,
                    baton_core::records::StoreRequest {
                        content: Some(p.content),
                        title: p.title,
                        provider: p.provider,
                        provider_session_id: p.provider_session_id,
                        tags: p.tags,
                    },
                    p.session_id.as_deref(),
                    &acting,
                )?;
                let mut summary = crate::ops::records::summary(&record);
                summary["content_bytes"] = Value::from(record.content.len());
                Ok((
                    format!("[ok] stored the record {}", record.id),
                    serde_json::json!({ "record": summary }),
                ))
            })
            .await)
    }
}

off_thread_tools! { record_tools via records_call:
    session_list(SessionList) [read_only_hint = true]
        "Stored records, newest first, with a total."
        => |p, ledger, index| {
            let query = baton_core::records::ListQuery::parse(
                p.limit,
                p.offset,
                p.provider,
                p.agent_id,
                p.since.as_deref(),
            )?;
            let include = crate::ops::records::include_of(
                p.include.as_deref(),
                baton_core::records::Include::Stored,
            )?;
            let listing = crate::ops::records::list_records(ledger, index, query, include)?;
            Ok(page_answer(listing.items.len(), listing.total, "row(s)", &listing))
        }
    get_usage(GetUsage) [read_only_hint = true]
        "Token usage and cost from the kept transcripts, by day, week, month, session, model, project, branch, mission, pr or chain."
        => |p, ledger, path| {
            use baton_core::transcripts::filters::{DayWindow, usage_provider};
            let zone = crate::os::zone::resolve(None)?;
            let providers = p.provider.as_deref().map(usage_provider).transpose()?;
            let days = DayWindow {
                since: p.since.clone(),
                until: p.until.clone(),
            };
            let (since, until) = days.resolve(&zone)?;
            let group_by: baton_core::transcripts::usage::GroupBy =
                p.group_by.as_deref().unwrap_or("daily").parse()?;
            let mut options = crate::ops::usage::UsageOptions {
                providers: providers.into_iter().collect(),
                since,
                until,
                own_only: p.own_only,
                ..crate::ops::usage::UsageOptions::everything(group_by, zone.clone())
            };
            if group_by.is_by_work() {
                crate::ops::usage::by_work_sessions(&mut options, ledger)?;
            }
            let connection = crate::index::open_existing(path)?;
            let report = crate::ops::mirror::usage::report(&connection, path, &options)?;
            let json = serde_json::to_value(&report).unwrap_or_default();
            Ok((
                format!(
                    "[ok] usage from the index: {} row(s), ${:.2} in all",
                    json["rows"].as_array().map_or(0, Vec::len),
                    json["totals"]["cost_usd"].as_f64().unwrap_or(0.0)
                ),
                json,
            ))
        }
    get_budgets(GetBudgets) [read_only_hint = true]
        "The [budget] rules measured now: spent, limit, level."
        => |_p, ledger, _index| {
            let policy = crate::ops::engine::policy(ledger)?;
            let Some(budgets) = crate::ops::budget::status(ledger, &policy)? else {
                return Ok((
                    "[ok] no budget is set".to_owned(),
                    serde_json::json!({ "rules": [], "configured": false }),
                ));
            };
            let over = budgets
                .status
                .rules
                .iter()
                .filter(|r| r.level == baton_core::lifecycle::budget::Level::Over)
                .count();
            Ok((
                format!(
                    "[ok] {} budget rule(s), {over} at the limit",
                    budgets.status.rules.len()
                ),
                serde_json::to_value(&budgets).unwrap_or_default(),
            ))
        }
    get_usage_windows(GetUsageWindows) [read_only_hint = true]
        "Usage by 5-hour plan window (7-day with week), open one first: cost, burn rate, projection, limit run-out, who used it."
        => |p, ledger, index| {
            use crate::ops::limits::{WindowAsk, parse_only, parse_token_limit};
            let providers = p
                .provider
                .as_deref()
                .map(baton_core::transcripts::filters::usage_provider)
                .transpose()?;
            let ask = WindowAsk {
                week: p.week,
                only: p.only.as_deref().map(parse_only).transpose()?,
                token_limit: p.token_limit.as_deref().map(parse_token_limit).transpose()?,
                by_session: p.by_session,
            };
            let mut options = crate::ops::usage::UsageOptions {
                providers: providers.into_iter().collect(),
                ..crate::ops::usage::UsageOptions::everything(
                    baton_core::transcripts::usage::GroupBy::Model,
                    crate::os::zone::resolve(None)?,
                )
            };
            options.windows = Some(ask.options(crate::os::system::now()?));
            if ask.by_session {
                crate::ops::usage::by_work_sessions(&mut options, ledger)?;
            }
            let connection = crate::index::open_existing(index)?;
            let report = crate::ops::mirror::usage::report(&connection, index, &options)?;
            let windows = report.windows.as_ref();
            let text = match windows.and_then(|w| w.active()) {
                Some(open) => format!(
                    "[ok] {} window(s); the open one: {} tokens, ${:.2}, {} tokens/h{}",
                    windows.map_or(0, |w| w.windows.len()),
                    open.total_tokens,
                    open.cost_usd,
                    open.burn.tokens_per_hour,
                    open.limit
                        .map(|l| format!(", {:.1} % of the limit", l.used_percent))
                        .unwrap_or_default()
                ),
                None => format!(
                    "[ok] {} window(s); none open now",
                    windows.map_or(0, |w| w.windows.len())
                ),
            };
            Ok((text, serde_json::to_value(&report).unwrap_or_default()))
        }
    session_resume(SessionResume) [read_only_hint = true]
        "One stored record in full, with its links."
        => |p, ledger, index| {
            let query = baton_core::records::IdQuery::parse(&p.id)?;
            let (snapshot, connection) = crate::ops::records::open_synced(ledger, index)?;
            let record = crate::ops::records::resolve(
                &connection,
                index,
                &snapshot,
                ledger.dir(),
                &query,
            )?;
            let links = crate::ops::records::links_of(
                &connection,
                index,
                &snapshot,
                ledger.dir(),
                &record,
            )?;
            let mut json = serde_json::to_value(&record).unwrap_or_default();
            json["links"] = serde_json::to_value(&links).unwrap_or_default();
            Ok((
                format!(
                    "[ok] the record {} ({} bytes)",
                    record.id,
                    record.content.len()
                ),
                serde_json::json!({ "record": json }),
            ))
        }
    session_export(SessionExport) [read_only_hint = true]
        "One stored record as json or markdown."
        => |p, ledger, index| {
            // The format is checked before the id is looked up.
            let format = baton_core::records::ExportFormat::parse(p.format.as_deref())?;
            let query = baton_core::records::IdQuery::parse(&p.id)?;
            let (snapshot, connection) = crate::ops::records::open_synced(ledger, index)?;
            let record = crate::ops::records::resolve(
                &connection,
                index,
                &snapshot,
                ledger.dir(),
                &query,
            )?;
            let document = crate::ops::records::export_document(&record, format);
            Ok((
                document.clone(),
                serde_json::json!({
                    "id": record.id.to_string(),
                    "format": format,
                    "document": document,
                }),
            ))
        }
}

off_thread_tools! { transcript_tools via read_index:
    search_transcripts(SearchTranscripts) [read_only_hint = true]
        "Search the kept transcripts (baton mirror keeps them): ranked messages with snippets."
        => |p, connection, path| {
            let fields = crate::ops::mirror::query::fields_named(p.fields.as_deref())?;
            let filters = transcript_filters(&p.filters)?;
            let page = crate::ops::mirror::query::search(
                connection,
                path,
                &p.query,
                &fields,
                &filters,
                baton_core::transcripts::search::Order::asked(p.order.as_deref())?,
                i64::from(p.limit.unwrap_or(20).clamp(1, 200)),
                160,
            )?;
            let json = crate::ops::mirror::restore::page_with_resumes(connection, path, &page)?;
            Ok(page_answer(page.hits.len(), page.total, "matching message(s)", &json))
        }
    list_transcripts(ListTranscripts) [read_only_hint = true]
        "The kept transcripts, newest first, with a total for paging."
        => |p, connection, path| {
            let filters = transcript_filters(&p.filters)?;
            let page = crate::ops::mirror::query::list(
                connection,
                path,
                &filters,
                i64::from(p.limit.unwrap_or(20).clamp(1, 500)),
                i64::from(p.offset.unwrap_or(0)),
            )?;
            Ok(page_answer(page.conversations.len(), page.total, "conversation(s)", &page))
        }
    get_transcript(GetTranscript) [read_only_hint = true]
        "One kept transcript as Markdown (the active branch unless all_branches)."
        => |p, connection, path| {
            use crate::ops::mirror::query::Branches;
            let branches = if p.all_branches {
                Branches::All
            } else {
                Branches::Active
            };
            let shown =
                crate::ops::mirror::query::show(connection, path, &p.reference, branches)?;
            let resume = crate::ops::mirror::restore::resume_of(connection, path, &shown.row)?;
            Ok((
                shown.markdown.trim_end().to_owned(),
                serde_json::json!({
                    "conversation": serde_json::to_value(&shown.row).unwrap_or_default(),
                    "branches": shown.branches,
                    "resume": resume,
                }),
            ))
        }
}

/// The transcript tools' filters, checked.
fn transcript_filters(
    filters: &TranscriptFilters,
) -> Result<crate::ops::mirror::query::Filters, Error> {
    crate::ops::mirror::query::Filters::read(&crate::ops::mirror::query::TranscriptFilter {
        provider: filters.provider.clone(),
        project: filters.project.clone(),
        days: baton_core::transcripts::filters::DayWindow {
            since: filters.since.clone(),
            until: filters.until.clone(),
        },
    })
}

/// A page's answer: `[ok] <shown> of <total> <what>`, and the page as JSON.
fn page_answer(
    shown: usize,
    total: impl std::fmt::Display,
    what: &str,
    page: &impl serde::Serialize,
) -> (String, Value) {
    (
        format!("[ok] {shown} of {total} {what}"),
        serde_json::to_value(page).unwrap_or_default(),
    )
}

/// A transcript tool's answer: its text (a human line, or the Markdown asked for), then its
/// JSON, which is also the structured content; an error as every tool's.
fn index_answer(result: Result<(String, Value), Error>) -> CallToolResult {
    match result {
        Ok((text, json)) => {
            let mut result =
                CallToolResult::success(vec![ContentBlock::text(format!("{text}\n{json}"))]);
            result.structured_content = Some(json);
            result
        }
        Err(err) => answer(Err(err)),
    }
}

/// The tools over the transcript index: offered once `baton mirror` has made one.
pub const INDEX_TOOLS: [&str; 6] = [
    "search_transcripts",
    "list_transcripts",
    "get_transcript",
    "get_usage",
    "get_usage_windows",
    "get_budgets",
];

impl BatonMcp {
    /// The transcript index this server reads.
    pub(super) fn index_path(&self) -> std::path::PathBuf {
        self.index
            .clone()
            .unwrap_or_else(|| crate::index::path_for(self.ledger.dir()))
    }

    /// A server over `ledger` that reads the transcript index at `index` (an embedding
    /// host's own, or a test's).
    pub fn with_index(ledger: Ledger, index: std::path::PathBuf) -> BatonMcp {
        BatonMcp {
            index: Some(index),
            ..BatonMcp::new(ledger)
        }
    }

    /// Runs a read of the transcript index off the async threads, with the tool's arguments
    /// (arguments it could not read are answered as every tool answers them).
    async fn read_index<P, F>(&self, params: Parameters<P>, work: F) -> CallToolResult
    where
        P: Send + 'static,
        F: FnOnce(P, &rusqlite::Connection, &std::path::Path) -> Result<(String, Value), Error>
            + Send
            + 'static,
    {
        let p = match params.0 {
            Ok(p) => p,
            Err(err) => return answer(Err(err)),
        };
        let path = self.index_path();
        let outcome = tokio::task::spawn_blocking(move || {
            let connection = crate::index::open_existing(&path)?;
            work(p, &connection, &path)
        })
        .await
        .unwrap_or_else(|e| Err(Error::internal(format!("the tool task failed: {e}"))));
        index_answer(outcome)
    }

    /// Runs a records tool off the async threads, with its arguments (arguments it could not
    /// read are answered as every tool answers them).
    async fn records_call<P, F>(&self, params: Parameters<P>, work: F) -> CallToolResult
    where
        P: Send + 'static,
        F: FnOnce(P, &Ledger, &std::path::Path) -> Result<(String, Value), Error> + Send + 'static,
    {
        let p = match params.0 {
            Ok(p) => p,
            Err(err) => return answer(Err(err)),
        };
        let (ledger, index) = (self.ledger.clone(), self.index_path());
        let outcome = tokio::task::spawn_blocking(move || work(p, &ledger, &index))
            .await
            .unwrap_or_else(|e| Err(Error::internal(format!("the tool task failed: {e}"))));
        index_answer(outcome)
    }
}
