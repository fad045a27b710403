//! Claude Code transcripts: usage counted once per API response.
//!
//! Claude Code writes one line per content block of a response; the lines share `message.id`
//! and `requestId` and repeat the usage, with a placeholder `output_tokens` on all but the last.
//! The key is (`message.id`, `requestId`), or the session and `message.id` when the request id
//! is missing; of the copies the non-sidechain one wins, then the larger total (the final
//! count). A resumed file that repeats lines therefore counts them once, and sub-agent files
//! (real spend) count like any other. A sidechain line that replays a main-conversation
//! response (same `message.id`, a new `requestId`, as `/btw` side questions do) is not spend
//! and is dropped, whichever of the two is read first.
//!
//! A sub-agent's responses also reach the parent's file inside `progress` lines
//! (`data.type: "agent_progress"`, the sub-agent's assistant message under `data.message`):
//! they count when the sub-agent's own file is gone, and not at all when a line of that file
//! (any line with the same `message.id`, whatever its request id) is there.
//!
//! A session's project is its first working directory (the `cwd` of its earliest response), so
//! an agent changing directory does not split it (see [`super::project_key`]); a session whose
//! lines record none takes the project folder its file lives in, when the host names it.

use crate::time::Timestamp;
use crate::transcripts::lines::LineSplitter;
use crate::transcripts::{Fingerprinted, Provider, ReadStats, UsageEntry, contains, fingerprint};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

mod kept;
mod line;
#[cfg(test)]
pub(crate) mod line_tests;

use kept::{Kept, Names};
use line::Line;
pub(crate) use line::Usage;

/// One response line's usage before it is counted: the entry (its project still the line's
/// own `cwd`) and what decides whether it counts. A host that keeps these per line (the
/// mirror) replays them with [`ClaudeCodeUsage::replay`] and gets the report the files give,
/// without the files.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Response {
    /// The usage, as the line records it.
    pub entry: UsageEntry,
    /// The project folder the line's file lives in (`projects/<folder>/…`), when the host said.
    pub folder: Option<Arc<str>>,
    /// A sub-agent's line (or one relayed by its parent).
    pub sidechain: bool,
    /// Relayed in a parent's `progress` line (counted only when the sub-agent's own file is
    /// not there).
    pub relayed: bool,
    /// The dedup key: (`message.id`, `requestId`), or the session and `message.id`.
    pub key: Option<u128>,
    /// The fingerprint of `message.id`.
    pub message_id: Option<u128>,
}

impl Response {
    /// A row keyed by its response (an agent read through keyed rows): the key names the
    /// message, nothing else is known of it.
    pub fn keyed(entry: &UsageEntry, key: u128) -> Response {
        Response {
            entry: entry.clone(),
            folder: None,
            sidechain: false,
            relayed: false,
            key: Some(key),
            message_id: Some(key),
        }
    }
}

/// The dedup key of a response: its `message.id` with its `requestId` (a response written
/// again keeps both), else with its session when the line has no request id.
pub fn response_key(session: &str, message_id: &str, request_id: Option<&str>) -> u128 {
    match request_id.filter(|r| !r.is_empty()) {
        Some(request) => fingerprint(&[b"r", message_id.as_bytes(), request.as_bytes()]),
        None => fingerprint(&[b"s", session.as_bytes(), message_id.as_bytes()]),
    }
}

/// The Claude Code project folder a transcript's path names: `projects/<folder>/<session>.jsonl`,
/// or `projects/<folder>/<session>/subagents/agent-….jsonl` (either separator).
pub fn project_folder_of(path: &str) -> Option<&str> {
    let parts: Vec<&str> = path.split(['/', '\\']).collect();
    let at = parts.iter().rposition(|p| *p == "projects")?;
    (at + 2 < parts.len())
        .then(|| parts[at + 1])
        .filter(|f| !f.is_empty())
}

/// Reads the usage of Claude Code transcript lines, across any number of files.
#[derive(Debug, Default, Clone)]
pub struct ClaudeCodeUsage {
    entries: Vec<Option<Kept>>,
    index: HashMap<u128, usize, Fingerprinted>,
    /// Message ids seen on main-conversation lines.
    main_messages: HashSet<u128, Fingerprinted>,
    /// Sidechain entries by message id, to drop when a main line with that id shows up.
    sidechain_by_message: HashMap<u128, Vec<usize>, Fingerprinted>,
    /// The project folder of the file being read.
    folder: Option<Arc<str>>,
    /// Sub-agent responses relayed in `progress` lines, by message id: counted at the end
    /// unless a line of their own (the sub-agent's file) has the same message id.
    relayed: HashMap<u128, Kept, Fingerprinted>,
    /// Relayed responses without a message id (nothing to match them by: counted).
    relayed_without_id: Vec<Kept>,
    names: Names,
    /// When set, responses are collected here instead of counted (see [`ClaudeCodeUsage::collecting`]).
    collected: Option<Vec<Response>>,
    /// How many responses were offered or relayed (the next one's place).
    offered: usize,
    /// What was read.
    pub stats: ReadStats,
}

impl ClaudeCodeUsage {
    /// A reader that counts nothing: each response line read is collected as a [`Response`]
    /// (take them with [`ClaudeCodeUsage::take_collected`]); the stats count what lines held
    /// except duplicates, which only counting finds.
    pub fn collecting() -> ClaudeCodeUsage {
        ClaudeCodeUsage {
            collected: Some(Vec::new()),
            ..ClaudeCodeUsage::default()
        }
    }

    /// The responses collected since the last call (none unless [`ClaudeCodeUsage::collecting`]).
    pub fn take_collected(&mut self) -> Vec<Response> {
        self.collected
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// Counts a response collected earlier, as if its line were read now.
    pub fn replay(&mut self, mut response: Response) {
        // Its texts shared with the reader's own (kept once however many responses name them).
        let entry = &mut response.entry;
        entry.session = self.names.shared(&entry.session);
        entry.project = entry.project.as_ref().map(|p| self.names.shared(p));
        entry.model = entry.model.as_ref().map(|m| self.names.shared(m));
        response.folder = response.folder.as_ref().map(|f| self.names.shared(f));
        let kept = self.place(response);
        if kept.relayed() {
            self.relay(kept);
        } else {
            self.offer(kept);
        }
    }

    fn place(&mut self, response: Response) -> Kept {
        let origin = self.next_place();
        Kept::new(response, origin, &mut self.names)
    }

    /// The next response's place among those offered.
    fn next_place(&mut self) -> usize {
        self.offered += 1;
        self.offered - 1
    }

    /// Which of `responses`, replayed in the order given, count: their positions, in order.
    /// The rule only ever compares responses with the same `message_id`, so a host that keeps
    /// responses (the mirror) can settle each message id's group alone, and a response without
    /// one always counts.
    pub fn counted_positions(responses: Vec<Response>) -> Vec<usize> {
        let mut usage = ClaudeCodeUsage::new();
        for response in responses {
            usage.replay(response);
        }
        let mut positions: Vec<usize> = usage
            .settle()
            .into_iter()
            .flatten()
            .map(|k| k.origin)
            .collect();
        positions.sort_unstable();
        positions
    }

    /// Adds what other reads met (lines, malformed, synthetic, repaired) to the stats.
    pub fn add_stats(&mut self, stats: &ReadStats) {
        self.stats.add(stats);
    }

    /// A reader with nothing read.
    pub fn new() -> ClaudeCodeUsage {
        ClaudeCodeUsage::default()
    }

    /// Names the Claude Code project folder (`projects/<folder>/…`) of the file about to be
    /// read: the project of a session none of whose lines records a `cwd`.
    pub fn set_project_folder(&mut self, folder: Option<&str>) {
        self.folder = folder.map(|f| self.names.share(f));
    }

    /// Feeds one line (without its newline).
    pub fn push_line(&mut self, line: &[u8]) {
        self.stats.lines += 1;
        if !contains(line, b"\"usage\"") {
            self.stats.without_usage += 1;
            return;
        }
        match line::read(line) {
            Some(parsed) => self.take(parsed),
            None => match crate::transcripts::repair_line(line) {
                Some(repaired) => match line::read(&repaired) {
                    Some(parsed) => {
                        self.stats.repaired_surrogates += 1;
                        self.take(parsed);
                    }
                    None => self.stats.malformed += 1,
                },
                None => self.stats.malformed += 1,
            },
        }
    }

    fn take(&mut self, parsed: Line<'_>) {
        if parsed.kind.as_deref() == Some("progress") {
            self.take_progress(parsed);
            return;
        }
        let sidechain = parsed.is_sidechain.unwrap_or(false);
        if let Some(response) = self.response(parsed, sidechain, None) {
            match &mut self.collected {
                Some(collected) => collected.push(response),
                None => {
                    let kept = self.place(response);
                    self.offer(kept);
                }
            }
        }
    }

    /// A sub-agent's response relayed in its parent's `progress` line: a sidechain line of
    /// the parent's session.
    fn take_progress(&mut self, parsed: Line<'_>) {
        let Some(data) = parsed.data else {
            return;
        };
        if data.kind.as_deref() != Some("agent_progress") {
            return;
        }
        let Some(mut inner) = data.message.map(|m| *m) else {
            return;
        };
        if inner.timestamp.is_none() {
            inner.timestamp = parsed.timestamp;
        }
        if inner.cwd.is_none() {
            inner.cwd = parsed.cwd;
        }
        let session = parsed.session_id;
        let Some(response) = self.response(inner, true, session) else {
            return;
        };
        let response = Response {
            relayed: true,
            ..response
        };
        match &mut self.collected {
            Some(collected) => collected.push(response),
            None => {
                let kept = self.place(response);
                self.relay(kept);
            }
        }
    }

    /// Keeps a relayed response until the end, the copy with the larger total of each message.
    fn relay(&mut self, kept: Kept) {
        let Some(id) = kept.message_id() else {
            self.relayed_without_id.push(kept);
            return;
        };
        match self.relayed.get(&id) {
            Some(old) if old.total() >= kept.total() => {
                self.stats.duplicates += 1;
            }
            Some(_) => {
                self.stats.duplicates += 1;
                self.relayed.insert(id, kept);
            }
            None => {
                self.relayed.insert(id, kept);
            }
        }
    }

    /// One response line as a usage entry, with its dedup keys.
    fn response(
        &mut self,
        parsed: Line<'_>,
        sidechain: bool,
        parent_session: Option<Cow<'_, str>>,
    ) -> Option<Response> {
        let message = parsed.message?;
        let usage = message.usage?;
        if message.model.as_deref() == Some("<synthetic>") {
            self.stats.synthetic += 1;
            return None;
        }
        let Some(at) = parsed
            .timestamp
            .as_deref()
            .and_then(|t| Timestamp::parse(t).ok())
        else {
            self.stats.malformed += 1;
            return None;
        };
        let session = parent_session
            .as_deref()
            .or(parsed.session_id.as_deref())
            .unwrap_or("");
        let (tokens, one_hour) = usage.totals();
        let entry = UsageEntry {
            provider: Provider::ClaudeCode,
            at,
            session: self.names.share(session),
            project: parsed.cwd.as_deref().map(|c| self.names.share(c)),
            model: message.model.as_deref().map(|m| self.names.share(m)),
            tokens,
            cache_creation_1h_tokens: one_hour,
            request_context_tokens: None,
            recorded_cost_micro_usd: parsed.cost_usd.map(super::prices::micro_usd_of_dollars),
            fast: usage.fast,
            web_searches: usage.web_searches(),
            delegated: sidechain,
        };
        let id = message.id.as_deref().filter(|id| !id.is_empty());
        let key = id.map(|id| response_key(session, id, parsed.request_id.as_deref()));
        Some(Response {
            entry,
            folder: self.folder.clone(),
            sidechain,
            relayed: false,
            key,
            message_id: id.map(|id| fingerprint(&[id.as_bytes()])),
        })
    }

    /// Keeps an entry, or the better of it and the copy already kept under its key.
    fn offer(&mut self, kept: Kept) {
        if let Some(id) = kept.message_id() {
            if kept.sidechain() && self.main_messages.contains(&id) {
                self.stats.duplicates += 1;
                return;
            }
            if !kept.sidechain() && self.main_messages.insert(id) {
                for at in self.sidechain_by_message.remove(&id).unwrap_or_default() {
                    if let Some(replay) = self.entries[at].take() {
                        self.stats.duplicates += 1;
                        if let Some(key) = replay.key() {
                            self.index.remove(&key);
                        }
                    }
                }
            }
        }
        let Some(key) = kept.key() else {
            self.entries.push(Some(kept));
            return;
        };
        match self.index.get(&key).copied() {
            Some(at) => {
                self.stats.duplicates += 1;
                let better = match &self.entries[at] {
                    Some(old) => {
                        (old.sidechain() && !kept.sidechain())
                            || (old.sidechain() == kept.sidechain() && kept.total() > old.total())
                    }
                    None => true,
                };
                if better {
                    self.entries[at] = Some(kept);
                }
            }
            None => {
                let at = self.entries.len();
                self.index.insert(key, at);
                if kept.sidechain()
                    && let Some(id) = kept.message_id()
                {
                    self.sidechain_by_message.entry(id).or_default().push(at);
                }
                self.entries.push(Some(kept));
            }
        }
    }

    /// Merges another reader's responses (read in parallel from other files), deduplicating
    /// across both by the same rule.
    pub fn merge(&mut self, other: ClaudeCodeUsage) {
        let ClaudeCodeUsage {
            entries,
            index,
            main_messages,
            sidechain_by_message,
            relayed,
            relayed_without_id,
            names,
            stats,
            ..
        } = other;
        // The other reader's maps are let go before this one's grow.
        drop((index, main_messages, sidechain_by_message));
        let map = self.names.absorb(&names);
        drop(names);
        super::drain_in_order(entries, |kept| {
            if let Some(kept) = kept {
                let kept = kept.renamed(&map, self.next_place());
                self.offer(kept);
            }
        });
        let mut relayed: Vec<Kept> = relayed.into_values().collect();
        relayed.sort_by_key(|kept| kept.origin);
        for kept in relayed {
            let kept = kept.renamed(&map, self.next_place());
            self.relay(kept);
        }
        for kept in relayed_without_id {
            let kept = kept.renamed(&map, self.next_place());
            self.relayed_without_id.push(kept);
        }
        self.stats.add(&stats);
    }

    /// Feeds a whole file's bytes.
    pub fn push_bytes(&mut self, bytes: &[u8]) {
        let mut lines = LineSplitter::new();
        lines.push(bytes, |line| self.push_line(line));
        lines.finish(|line| self.push_line(line));
        self.stats.too_long += lines.too_long();
    }

    /// The responses, each counted once, in the order first seen; each carries its session's
    /// project (the working directory of the session's earliest response).
    pub fn finish(mut self) -> (Vec<UsageEntry>, ReadStats) {
        let counted = self.settle();
        let names = &self.names;
        let mut by_session: HashMap<&Arc<str>, Vec<ProjectClue<'_>>> = HashMap::new();
        for kept in counted.iter().flatten() {
            by_session.entry(kept.session(names)).or_default().push((
                kept.at(),
                kept.project(names).map(|p| &**p),
                kept.folder(names).map(|f| &**f),
            ));
        }
        let projects: HashMap<Arc<str>, String> = by_session
            .into_iter()
            .filter_map(|(session, responses)| {
                project_of(responses).map(|project| (session.clone(), project))
            })
            .collect();
        let projects: HashMap<Arc<str>, Arc<str>> = projects
            .into_iter()
            .map(|(session, project)| (session, self.names.share(&project)))
            .collect();
        let names = &self.names;
        let mut entries = Vec::new();
        super::move_onto(counted, &mut entries, |kept| {
            kept.map(|kept| {
                let project = projects.get(kept.session(names)).cloned();
                kept.entry(names, project)
            })
        });
        (entries, self.stats)
    }

    /// The responses that count, in order: the lines kept, as first seen; then the relayed
    /// responses no line of their own repeats (by time, then as offered); then the relayed
    /// ones without a message id. (Each is `Some`: the kept lines' vector is reused.)
    fn settle(&mut self) -> Vec<Option<Kept>> {
        let mut counted = std::mem::take(&mut self.entries);
        counted.retain(Option::is_some);
        let written: HashSet<u128, Fingerprinted> = counted
            .iter()
            .flatten()
            .filter_map(Kept::message_id)
            .collect();
        let mut relayed: Vec<Kept> = std::mem::take(&mut self.relayed).into_values().collect();
        relayed.sort_by_key(|kept| (kept.at(), kept.origin));
        for kept in relayed {
            if kept.message_id().is_some_and(|id| written.contains(&id)) {
                self.stats.duplicates += 1;
            } else {
                counted.push(Some(kept));
            }
        }
        counted.extend(self.relayed_without_id.drain(..).map(Some));
        counted
    }
}

/// What a response tells of its session's project: (time, working directory, project
/// folder of its file).
pub type ProjectClue<'a> = (Timestamp, Option<&'a str>, Option<&'a str>);

/// A session's project from its counted responses, in the order counted, each as (time,
/// working directory, project folder of its file): the working directory of the earliest
/// that records one (of two at the same instant, the first), as a project key; else the
/// folder of the first whose file names one.
pub fn project_of<'a>(responses: impl IntoIterator<Item = ProjectClue<'a>>) -> Option<String> {
    let mut earliest: Option<(Timestamp, &str)> = None;
    let mut folder: Option<&str> = None;
    for (at, cwd, file_folder) in responses {
        if let Some(cwd) = cwd
            && earliest.is_none_or(|(first, _)| at < first)
        {
            earliest = Some((at, cwd));
        }
        if folder.is_none() {
            folder = file_folder;
        }
    }
    match earliest {
        Some((_, cwd)) => Some(super::project_key(cwd)),
        None => folder.map(str::to_owned),
    }
}

impl crate::transcripts::lines::LineReader for ClaudeCodeUsage {
    fn push_line(&mut self, line: &[u8]) {
        ClaudeCodeUsage::push_line(self, line);
    }
}
