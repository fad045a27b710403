//! The usage of OpenCode sessions. A response's `step-finish` parts hold each step's tokens
//! and cost; the message's own `tokens` are only its last step's (its `cost` is their sum), so
//! the steps are the rows, keyed by their part, and a message with no step part (an old or
//! cut one) gives one row from its own tokens, keyed by the message. A sub-agent's steps count
//! in the session at the top of its chain.
//!
//! How OpenCode counts: `input` leaves out both cache reads and writes. Since about April
//! 2026 `output` leaves out the reasoning, which it held before; where `tokens.total` is
//! written it tells the two apart (it equals the sum of every field only when the reasoning
//! is apart), and without it the older meaning is taken. `cost` is 0 when the agent had no
//! price for the model: such a row is priced from Baton's table.

use super::{DataRow, Store};
use crate::Timestamp;
use crate::tokens::TokenTotals;
use crate::transcripts::{Interner, Provider, UsageEntry, fingerprint};
use serde_json::Value;
use std::collections::HashMap;

/// A `tokens` object in Baton's meaning (input without the cache, output with the reasoning).
pub(crate) fn tokens_of(tokens: &Value) -> TokenTotals {
    let n = |v: &Value| v.as_u64().unwrap_or(0);
    let (input, output, reasoning) = (
        n(&tokens["input"]),
        n(&tokens["output"]),
        n(&tokens["reasoning"]),
    );
    let (read, write) = (n(&tokens["cache"]["read"]), n(&tokens["cache"]["write"]));
    let apart = tokens["total"]
        .as_u64()
        .is_some_and(|total| reasoning > 0 && total == input + output + reasoning + read + write);
    TokenTotals {
        input_tokens: input,
        output_tokens: if apart { output + reasoning } else { output },
        cache_creation_tokens: write,
        cache_read_tokens: read,
        reasoning_tokens: if apart {
            reasoning
        } else {
            reasoning.min(output)
        },
    }
}

fn micro_usd(cost: &Value) -> Option<u64> {
    cost.as_f64()
        .filter(|c| c.is_finite() && *c > 0.0)
        .map(|c| (c * 1e6).round() as u64)
}

/// Every usage row of a database's sessions, each with its key.
pub fn usage_rows(provider: Provider, store: &Store) -> Vec<(UsageEntry, u128)> {
    let roots = store.roots();
    let directories: HashMap<&str, &str> = store
        .sessions
        .iter()
        .filter_map(|s| Some((s.id.as_str(), s.directory.as_deref()?)))
        .collect();
    let mut steps: HashMap<&str, Vec<&DataRow>> = HashMap::new();
    for part in &store.parts {
        if part.data["type"] == "step-finish" {
            steps.entry(part.message.as_str()).or_default().push(part);
        }
    }
    let mut strings = Interner::default();
    let mut rows = Vec::new();
    for message in &store.messages {
        let data = &message.data;
        if data["role"] != "assistant" {
            continue;
        }
        let root = roots
            .get(message.session.as_str())
            .copied()
            .unwrap_or(&message.session);
        let project = data["path"]["cwd"]
            .as_str()
            .or(directories.get(root).copied());
        let at = data["time"]["created"].as_i64().unwrap_or(message.created);
        let mut row = |tokens: &Value, cost: &Value, key: &str| {
            let tokens = tokens_of(tokens);
            if tokens == TokenTotals::default() {
                return;
            }
            let entry = UsageEntry {
                provider,
                at: Timestamp::from_millis(at),
                session: strings.get(root),
                project: project.map(|p| strings.get(p)),
                model: data["modelID"].as_str().map(|m| strings.get(m)),
                tokens,
                cache_creation_1h_tokens: 0,
                request_context_tokens: None,
                recorded_cost_micro_usd: micro_usd(cost),
                fast: false,
                web_searches: 0,
                delegated: false,
            };
            rows.push((
                entry,
                fingerprint(&[provider.key().as_bytes(), key.as_bytes()]),
            ));
        };
        match steps.get(message.id.as_str()) {
            Some(parts) => {
                for part in parts {
                    row(&part.data["tokens"], &part.data["cost"], &part.id);
                }
            }
            None => row(&data["tokens"], &data["cost"], &message.id),
        }
    }
    rows
}
