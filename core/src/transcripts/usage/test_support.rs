//! What the usage tests build their cases from: responses of a made-up model at $1 per
//! million tokens, its price table, and work sessions started with an agent session id.

use crate::ledger::event::{Line, decode_line};
use crate::ledger::fold::SessionHistory;
use crate::ledger::session::Session;
use crate::time::Timestamp;
use crate::tokens::TokenTotals;
use crate::transcripts::usage::PriceTable;
use crate::transcripts::{Provider, UsageEntry};
use std::sync::Arc;

/// An instant written in RFC 3339.
pub(crate) fn at(text: &str) -> Timestamp {
    Timestamp::parse(text).expect("a time")
}

/// A Claude Code response in `/work/app` of `tokens` output tokens of `test-model` (a million
/// cost a dollar under [`unit_prices`]).
pub(crate) fn response(when: &str, session: &str, tokens: u64) -> UsageEntry {
    UsageEntry {
        provider: Provider::ClaudeCode,
        at: at(when),
        session: Arc::from(session),
        project: Some(Arc::from("/work/app")),
        model: Some(Arc::from("test-model")),
        tokens: TokenTotals {
            output_tokens: tokens,
            ..Default::default()
        },
        cache_creation_1h_tokens: 0,
        request_context_tokens: None,
        recorded_cost_micro_usd: None,
        fast: false,
        web_searches: 0,
        delegated: false,
    }
}

/// `test-model` at $1 per million tokens of every class.
pub(crate) fn unit_prices() -> PriceTable {
    PriceTable::parse(
        r#"{"source":"test","date":"2026-12-01","models":{"test-model":{"input":1.0,"output":1.0,"cache_read":1.0,"cache_write_5m":1.0}}}"#,
    )
    .expect("a price table")
}

/// Work session `id` of `project`, Claude's, started at `started` with agent session
/// `provider_id`; `extra` adds fields to its start (`,"branch":"x"`).
pub(crate) fn work_session(
    id: &str,
    provider_id: &str,
    started: &str,
    project: &str,
    extra: &str,
) -> Session {
    let line = format!(
        r#"{{"v":1,"id":"{}","session":"{id}","kind":"started","at":"{started}","actor":{{"kind":"agent","name":"claude"}},"data":{{"project":"{project}","agent":"claude","provider_session_id":"{provider_id}"{extra}}}}}"#,
        id.replacen("7000", "7001", 1)
    );
    let Line::Event(event) = decode_line(line.as_bytes()) else {
        panic!("a started event: {line}");
    };
    let mut history = SessionHistory::default();
    history.insert(*event);
    history.session().expect("a session")
}
