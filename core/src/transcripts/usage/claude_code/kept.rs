//! A response being counted, kept small: a year of transcripts is hundreds of thousands of
//! them, all held until the last file is read (a later line may replace any of them). Its
//! texts (session, working directory, model, project folder) are numbers into a table of
//! names, its optional numbers flags beside them; [`Kept::response`] gives back exactly the
//! [`Response`] it was made from.

use super::Response;
use crate::time::Timestamp;
use crate::tokens::TokenTotals;
use crate::transcripts::{Fingerprinted, Interner, Provider, UsageEntry};
use std::collections::HashMap;
use std::sync::Arc;

/// The texts responses name, each once, by number.
#[derive(Debug, Default, Clone)]
pub(super) struct Names {
    /// The one shared copy of each text.
    strings: Interner,
    list: Vec<Arc<str>>,
    /// By the address of the shared text (the reader's interned copies, held in `list`).
    by_address: HashMap<usize, u32, Fingerprinted>,
}

/// No text.
const NONE: u32 = u32::MAX;

impl Names {
    /// The one shared copy of `text`.
    pub(super) fn share(&mut self, text: &str) -> Arc<str> {
        self.strings.get(text)
    }

    /// `text` as the shared copy (a response made elsewhere: replayed, or another reader's).
    pub(super) fn shared(&mut self, text: &Arc<str>) -> Arc<str> {
        self.strings.get(text)
    }

    fn id(&mut self, text: &Arc<str>) -> u32 {
        let address = Arc::as_ptr(text) as *const u8 as usize;
        if let Some(&id) = self.by_address.get(&address) {
            return id;
        }
        let id = u32::try_from(self.list.len()).unwrap_or(NONE - 1);
        // Held in the list, the text's address is never reused for another.
        self.list.push(text.clone());
        self.by_address.insert(address, id);
        id
    }

    fn optional(&mut self, text: Option<&Arc<str>>) -> u32 {
        text.map_or(NONE, |t| self.id(t))
    }

    fn get(&self, id: u32) -> Option<&Arc<str>> {
        self.list.get(id as usize)
    }

    /// `other`'s numbers as this table's.
    pub(super) fn absorb(&mut self, other: &Names) -> Vec<u32> {
        other
            .list
            .iter()
            .map(|text| {
                let text = self.shared(text);
                self.id(&text)
            })
            .collect()
    }
}

const SIDECHAIN: u8 = 1;
const RELAYED: u8 = 2;
const HAS_KEY: u8 = 4;
const HAS_MESSAGE: u8 = 8;
const HAS_COST: u8 = 16;
const HAS_CONTEXT: u8 = 32;
const FAST: u8 = 64;

/// A response being counted, with its place among those offered (see
/// [`super::ClaudeCodeUsage::counted_positions`]).
#[derive(Debug, Clone)]
pub(super) struct Kept {
    at: Timestamp,
    tokens: TokenTotals,
    one_hour: u64,
    cost: u64,
    context: u64,
    /// Server-side web searches (saturated at `u32::MAX`: the struct stays 8-byte packed).
    searches: u32,
    /// Halves of the dedup key and of the message id's fingerprint (8-byte aligned: a `u128`
    /// would pad the whole to 16).
    key: [u64; 2],
    message_id: [u64; 2],
    session: u32,
    project: u32,
    model: u32,
    folder: u32,
    /// The place among the responses offered.
    pub(super) origin: usize,
    provider: Provider,
    flags: u8,
}

fn halves(n: Option<u128>) -> [u64; 2] {
    let n = n.unwrap_or(0);
    [n as u64, (n >> 64) as u64]
}

fn whole([low, high]: [u64; 2]) -> u128 {
    u128::from(low) | (u128::from(high) << 64)
}

impl Kept {
    pub(super) fn new(response: Response, origin: usize, names: &mut Names) -> Kept {
        let Response {
            entry,
            folder,
            sidechain,
            relayed,
            key,
            message_id,
        } = response;
        let flag = |on: bool, bit: u8| if on { bit } else { 0 };
        Kept {
            at: entry.at,
            tokens: entry.tokens,
            one_hour: entry.cache_creation_1h_tokens,
            cost: entry.recorded_cost_micro_usd.unwrap_or(0),
            context: entry.request_context_tokens.unwrap_or(0),
            searches: u32::try_from(entry.web_searches).unwrap_or(u32::MAX),
            key: halves(key),
            message_id: halves(message_id),
            session: names.id(&entry.session),
            project: names.optional(entry.project.as_ref()),
            model: names.optional(entry.model.as_ref()),
            folder: names.optional(folder.as_ref()),
            origin,
            provider: entry.provider,
            flags: flag(sidechain, SIDECHAIN)
                | flag(relayed, RELAYED)
                | flag(key.is_some(), HAS_KEY)
                | flag(message_id.is_some(), HAS_MESSAGE)
                | flag(entry.recorded_cost_micro_usd.is_some(), HAS_COST)
                | flag(entry.request_context_tokens.is_some(), HAS_CONTEXT)
                | flag(entry.fast, FAST),
        }
    }

    fn has(&self, bit: u8) -> bool {
        self.flags & bit != 0
    }

    pub(super) fn sidechain(&self) -> bool {
        self.has(SIDECHAIN)
    }

    pub(super) fn relayed(&self) -> bool {
        self.has(RELAYED)
    }

    pub(super) fn key(&self) -> Option<u128> {
        self.has(HAS_KEY).then(|| whole(self.key))
    }

    pub(super) fn message_id(&self) -> Option<u128> {
        self.has(HAS_MESSAGE).then(|| whole(self.message_id))
    }

    pub(super) fn at(&self) -> Timestamp {
        self.at
    }

    pub(super) fn total(&self) -> u64 {
        self.tokens.total()
    }

    pub(super) fn session<'a>(&self, names: &'a Names) -> &'a Arc<str> {
        // Every kept response's session is in its table.
        &names.list[self.session as usize]
    }

    pub(super) fn project<'a>(&self, names: &'a Names) -> Option<&'a Arc<str>> {
        names.get(self.project)
    }

    pub(super) fn folder<'a>(&self, names: &'a Names) -> Option<&'a Arc<str>> {
        names.get(self.folder)
    }

    /// The same response with its names numbered by another table (`map`, from
    /// [`Names::absorb`]) and a new place.
    pub(super) fn renamed(self, map: &[u32], origin: usize) -> Kept {
        let to = |id: u32| map.get(id as usize).copied().unwrap_or(NONE);
        Kept {
            session: to(self.session),
            project: to(self.project),
            model: to(self.model),
            folder: to(self.folder),
            origin,
            ..self
        }
    }

    /// The usage entry, its project as given.
    pub(super) fn entry(&self, names: &Names, project: Option<Arc<str>>) -> UsageEntry {
        UsageEntry {
            provider: self.provider,
            at: self.at,
            session: self.session(names).clone(),
            project,
            model: names.get(self.model).cloned(),
            tokens: self.tokens,
            cache_creation_1h_tokens: self.one_hour,
            request_context_tokens: self.has(HAS_CONTEXT).then_some(self.context),
            recorded_cost_micro_usd: self.has(HAS_COST).then_some(self.cost),
            fast: self.has(FAST),
            web_searches: u64::from(self.searches),
            delegated: self.sidechain(),
        }
    }

    /// The response it was made from.
    #[cfg(test)]
    pub(super) fn response(&self, names: &Names) -> Response {
        Response {
            entry: self.entry(names, self.project(names).cloned()),
            folder: self.folder(names).cloned(),
            sidechain: self.sidechain(),
            relayed: self.relayed(),
            key: self.key(),
            message_id: self.message_id(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_response_kept_is_given_back_whole() {
        let mut names = Names::default();
        let session: Arc<str> = Arc::from("s");
        let entry = |project: Option<&str>, cost, context, sidechain| UsageEntry {
            provider: Provider::ClaudeCode,
            at: Timestamp::from_millis(1_700_000_000_123),
            session: session.clone(),
            project: project.map(Arc::from),
            model: Some(Arc::from("claude-x")),
            tokens: TokenTotals {
                input_tokens: 1,
                output_tokens: u64::MAX,
                cache_creation_tokens: 3,
                cache_read_tokens: 4,
                reasoning_tokens: 5,
            },
            cache_creation_1h_tokens: 2,
            request_context_tokens: context,
            recorded_cost_micro_usd: cost,
            fast: false,
            web_searches: 0,
            delegated: sidechain,
        };
        for response in [
            Response {
                entry: entry(Some("/p"), Some(0), None, true),
                folder: Some(Arc::from("-p")),
                sidechain: true,
                relayed: false,
                key: Some(u128::MAX - 7),
                message_id: Some(0),
            },
            Response {
                entry: entry(None, None, Some(u64::MAX), false),
                folder: None,
                sidechain: false,
                relayed: true,
                key: None,
                message_id: None,
            },
        ] {
            let kept = Kept::new(response.clone(), 3, &mut names);
            assert_eq!(kept.response(&names), response);
            // Numbered by another table, the same.
            let mut other = Names::default();
            let map = other.absorb(&names);
            assert_eq!(kept.renamed(&map, 9).response(&other), response);
        }
        assert!(std::mem::size_of::<Kept>() <= 136);
    }
}
