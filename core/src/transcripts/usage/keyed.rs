//! Usage rows a key makes one: the agents whose files write a response's counts more than
//! once (Gemini CLI writes a message again whenever it changes, Qwen Code writes a response's
//! counts in a telemetry record and in the response) give each row the key of its response.
//! Of a key's rows the last read counts, unless it leaves out the model or the project an
//! earlier one named (a Qwen sub-agent's round names no model; a Gemini session copied into an
//! old hash-named folder names no project): the read order is the files' order, then the
//! lines'.

use crate::transcripts::UsageEntry;
use std::collections::HashMap;

/// Rows counted so far, one per key.
#[derive(Debug, Default, Clone)]
pub struct KeyedRows {
    places: HashMap<u128, usize, crate::transcripts::Fingerprinted>,
    rows: Vec<UsageEntry>,
    /// Rows a later row with the same key replaced, or that gave way to an earlier one.
    pub replaced: u64,
}

/// What a row names that another row of its key may leave out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Named {
    /// Its model.
    pub model: bool,
    /// Its project.
    pub project: bool,
}

impl Named {
    /// What `entry` names.
    pub fn of(entry: &UsageEntry) -> Named {
        Named {
            model: entry.model.is_some(),
            project: entry.project.is_some(),
        }
    }

    /// Whether a row naming this, read later, replaces the kept row naming `kept`: unless it
    /// leaves out what the kept one named.
    fn replaces(self, kept: Named) -> bool {
        (self.model || !kept.model) && (self.project || !kept.project)
    }
}

impl KeyedRows {
    /// Nothing counted.
    pub fn new() -> KeyedRows {
        KeyedRows::default()
    }

    /// Counts a row read after every row counted so far.
    pub fn add(&mut self, entry: UsageEntry, key: u128) {
        match self.places.get(&key) {
            Some(&at) => {
                self.replaced += 1;
                if Named::of(&entry).replaces(Named::of(&self.rows[at])) {
                    self.rows[at] = entry;
                }
            }
            None => {
                self.places.insert(key, self.rows.len());
                self.rows.push(entry);
            }
        }
    }

    /// Counts the rows of files read after this one's.
    pub fn merge(&mut self, other: KeyedRows) {
        let mut by_place: Vec<(usize, u128)> =
            other.places.into_iter().map(|(k, at)| (at, k)).collect();
        by_place.sort_unstable();
        self.replaced += other.replaced;
        let mut rows: Vec<Option<UsageEntry>> = other.rows.into_iter().map(Some).collect();
        for (at, key) in by_place {
            if let Some(entry) = rows[at].take() {
                self.add(entry, key);
            }
        }
    }

    /// How many rows count.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether none does.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The rows that count, in the order their keys were first read.
    pub fn into_entries(self) -> Vec<UsageEntry> {
        self.rows
    }

    /// Of one key's rows, in read order (each with what it names), the one that counts: the
    /// rule [`KeyedRows::add`] keeps, for a host that keeps every row (the mirror).
    pub fn counted_position(named: &[Named]) -> Option<usize> {
        let mut kept: Option<usize> = None;
        for (at, &row) in named.iter().enumerate() {
            match kept {
                Some(k) if !row.replaces(named[k]) => {}
                _ => kept = Some(at),
            }
        }
        kept
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Timestamp;
    use crate::transcripts::Provider;
    use std::sync::Arc;

    fn row(output: u64, model: Option<&str>) -> UsageEntry {
        UsageEntry {
            provider: Provider::Gemini,
            at: Timestamp::from_millis(0),
            session: Arc::from("s"),
            project: Some(Arc::from("p")),
            model: model.map(Arc::from),
            tokens: crate::tokens::TokenTotals {
                output_tokens: output,
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

    #[test]
    fn the_last_row_of_a_key_counts_unless_it_drops_the_model() {
        let mut rows = KeyedRows::new();
        rows.add(row(1, Some("m")), 7);
        rows.add(row(2, None), 8);
        rows.add(row(3, Some("m")), 7);
        rows.add(row(4, None), 7);
        let mut other = KeyedRows::new();
        other.add(row(5, Some("n")), 8);
        rows.merge(other);
        assert_eq!(rows.replaced, 3);
        let outputs: Vec<u64> = rows
            .into_entries()
            .iter()
            .map(|e| e.tokens.output_tokens)
            .collect();
        assert_eq!(outputs, [3, 5]);
        let model = |model: bool| Named {
            model,
            project: true,
        };
        let rule = [model(true), model(false), model(true), model(false)];
        assert_eq!(KeyedRows::counted_position(&rule), Some(2));
        assert_eq!(
            KeyedRows::counted_position(&[model(false), model(false)]),
            Some(1)
        );
        assert_eq!(KeyedRows::counted_position(&[]), None);
    }

    #[test]
    fn a_later_copy_without_the_project_gives_way() {
        let mut rows = KeyedRows::new();
        rows.add(row(1, Some("m")), 7);
        let mut copy = row(2, Some("m"));
        copy.project = None;
        rows.add(copy, 7);
        assert_eq!(rows.into_entries()[0].tokens.output_tokens, 1);
        let project = |project: bool| Named {
            model: true,
            project,
        };
        assert_eq!(
            KeyedRows::counted_position(&[project(true), project(false)]),
            Some(0)
        );
        assert_eq!(
            KeyedRows::counted_position(&[project(false), project(true)]),
            Some(1)
        );
    }
}
