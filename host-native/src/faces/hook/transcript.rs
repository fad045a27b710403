//! What a hook reads from the agent's transcript: the session's goal, Codex's rollout for a
//! thread, and the usage each turn recorded.

use super::*;

/// Records a transcript's usage for a work session: the totals recorded so far for that
/// transcript plus what its complete lines after that offset hold, counted by the core's
/// Claude Code reader and priced by the shipped table. Only the new bytes are read. A work
/// session taking over a transcript an earlier one recorded (`claude --resume` after an end)
/// counts from where that one stopped, so no turn is charged twice.
/// Gives a session a hook opened the goal its transcript names (Claude Code's title, else the
/// first prompt typed), once there is one and the session has none: `list` then says what
/// each agent session is about. A few words for the log; nothing when there is nothing to do.
pub(super) fn goal_from_transcript(
    ledger: &Ledger,
    session: &baton_core::ledger::session::Session,
    transcript: &str,
    agent_id: &str,
    acting: &Acting,
) -> String {
    use baton_core::transcripts::ingest::{Decoded, FileIngest};
    if session.goal.is_some() {
        return String::new();
    }
    // The start of the transcript says it: read at most 4 MiB, whole lines only.
    let path = std::path::Path::new(transcript);
    if !std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file()) {
        return String::new();
    }
    let Ok(read) = crate::os::files::whole_lines_after(path, 0, 4 << 20) else {
        return String::new();
    };
    if read.bytes.is_empty() {
        return String::new();
    }
    let Ok(ingested) = FileIngest::read_all(transcript, &read.bytes) else {
        return String::new();
    };
    let title = ingested.parts.into_iter().find_map(|part| match part {
        Decoded::Conversations { parsed, .. } => parsed
            .conversations
            .into_iter()
            .find(|c| c.id == agent_id)
            .map(|c| c.display_title()),
        _ => None,
    });
    let Some(goal) = title.filter(|t| t != baton_core::transcripts::conversation::title::UNTITLED)
    else {
        return String::new();
    };
    match engine::run_as(
        ledger,
        &Request::Correct(baton_core::commands::CorrectParams {
            session_id: session.session_id.to_string(),
            goal: Some(goal.clone()),
            summary: None,
        }),
        acting,
    ) {
        Ok(_) => format!("; goal: {goal}"),
        Err(err) => format!("; goal not recorded: {err}"),
    }
}

/// The rollout Codex writes for `thread` (`<sessions>/YYYY/MM/DD/rollout-<time>-<thread>.jsonl`),
/// the newest day first; none when no such file is found.
pub(super) fn codex_rollout(thread: &str) -> Option<std::path::PathBuf> {
    let suffix = format!("-{thread}.jsonl");
    let sorted = |dir: &std::path::Path| -> Vec<std::path::PathBuf> {
        let mut entries: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        entries.sort();
        entries.reverse();
        entries
    };
    for root in crate::os::places::provider_dirs(baton_core::transcripts::Provider::Codex) {
        for year in sorted(&root) {
            for month in sorted(&year) {
                for day in sorted(&month) {
                    if let Some(found) = sorted(&day).into_iter().find(|p| {
                        p.file_name()
                            .is_some_and(|n| n.to_string_lossy().ends_with(&suffix))
                    }) {
                        return Some(found);
                    }
                }
            }
        }
    }
    None
}

/// Records a Codex thread's usage so far from its rollout (Codex's totals are cumulative: the
/// whole lines are read again and the fold keeps the furthest record); a few words for the log.
pub(super) fn record_codex_usage(
    ledger: &Ledger,
    session: &baton_core::ledger::session::Session,
    thread: &str,
    acting: &Acting,
) -> Result<String, Error> {
    let Some(path) = codex_rollout(thread) else {
        return Ok("; no rollout of the thread found to count".to_owned());
    };
    let source = path.display().to_string();
    let meta = std::fs::metadata(&path).map_err(|e| Error::store_io("read", &source, e))?;
    if !meta.is_file() {
        return Ok(String::new());
    }
    let recorded = session
        .usage_sources
        .iter()
        .find(|s| s.source == source)
        .map(|s| s.offset);
    if recorded == Some(meta.len()) {
        return Ok(String::new());
    }
    let bytes = crate::os::files::whole_lines_after(&path, 0, 512 << 20)
        .map_err(|e| Error::store_io("read", &source, e))?
        .bytes;
    if bytes.is_empty() {
        return Ok(String::new());
    }
    let offset = bytes.len() as u64;
    if recorded == Some(offset) {
        return Ok(String::new());
    }
    let mut reader = baton_core::transcripts::usage::codex::CodexUsage::new(thread);
    reader.push_bytes(&bytes);
    let (mut entries, _) = reader.finish();
    crate::ops::usage::tier::mark(&mut entries);
    record_totals(ledger, session, source, offset, &entries, acting)
}

/// Records the totals so far of one transcript (`entries`, up to byte `offset`), priced by the
/// shipped table; a few words for the log.
fn record_totals(
    ledger: &Ledger,
    session: &baton_core::ledger::session::Session,
    source: String,
    offset: u64,
    entries: &[baton_core::transcripts::UsageEntry],
    acting: &Acting,
) -> Result<String, Error> {
    let (totals, cost) = baton_core::transcripts::usage::totals_and_cost(
        entries,
        &baton_core::transcripts::usage::PriceTable::shipped(),
    );
    engine::run_as(
        ledger,
        &Request::RecordUsage(baton_core::commands::UsageParams {
            session_id: session.session_id.to_string(),
            source,
            offset,
            totals,
            cost_micro_usd: Some(cost),
        }),
        acting,
    )?;
    Ok(format!(
        "; usage recorded: {} tokens to byte {offset}",
        totals.total()
    ))
}

/// Records the usage so far of a transcript its agent rewrites as it goes (Gemini CLI writes a
/// response again whole as it changes, the last copy counting): the whole lines are read again
/// by the core's reader for `provider`, each response once, and the totals replace those
/// recorded before; a few words for the log.
pub(super) fn record_whole_usage(
    ledger: &Ledger,
    session: &baton_core::ledger::session::Session,
    provider: baton_core::transcripts::Provider,
    transcript: &str,
    acting: &Acting,
) -> Result<String, Error> {
    let path = std::path::Path::new(transcript);
    if !std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file()) {
        return Ok(format!("; no transcript at {transcript} to count"));
    }
    let bytes = crate::os::files::whole_lines_after(path, 0, 512 << 20)
        .map_err(|e| Error::store_io("read the transcript", transcript, e))?
        .bytes;
    let offset = bytes.len() as u64;
    let recorded = session
        .usage_sources
        .iter()
        .find(|s| s.source == transcript)
        .map(|s| s.offset);
    if bytes.is_empty() || recorded == Some(offset) {
        return Ok(String::new());
    }
    let mut tally = baton_core::transcripts::tally::UsageTally::new();
    let mut ingest = tally.ingest(provider, transcript);
    let read = ingest.push(&bytes);
    tally.absorb(ingest, read).1?;
    let (entries, _) = tally.finish();
    record_totals(
        ledger,
        session,
        transcript.to_owned(),
        offset,
        &entries,
        acting,
    )
}

pub(super) fn record_usage(
    ledger: &Ledger,
    session: &baton_core::ledger::session::Session,
    transcript: &str,
    acting: &Acting,
) -> Result<String, Error> {
    let recorded = session
        .usage_sources
        .iter()
        .find(|s| s.source == transcript);
    let from = match recorded {
        Some(r) => r.offset,
        None => ledger
            .snapshot()?
            .all_sessions()?
            .iter()
            .filter(|s| s.session_id != session.session_id)
            .flat_map(|s| &s.usage_sources)
            .filter(|s| s.source == transcript)
            .map(|s| s.offset)
            .max()
            .unwrap_or(0),
    };
    let tail = match crate::ops::usage::claude_tail(transcript, from, u64::MAX) {
        Ok(tail) => tail,
        // Nothing written yet (or moved away): nothing to count.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(format!("; no transcript at {transcript} to count"));
        }
        Err(e) => return Err(Error::store_io("read the transcript", transcript, e)),
    };
    // Only whole lines: a line still being written is counted next time.
    if tail.end == from {
        return Ok(String::new());
    }
    let (delta, cost) = baton_core::transcripts::usage::totals_and_cost(
        &tail.entries,
        &baton_core::transcripts::usage::PriceTable::shipped(),
    );
    let mut totals = recorded.map(|r| r.totals).unwrap_or_default();
    totals.add(&delta);
    let cost = recorded
        .map_or(Some(0), |r| r.cost_micro_usd)
        .map(|before| before.saturating_add(cost));
    let offset = tail.end;
    engine::run_as(
        ledger,
        &Request::RecordUsage(baton_core::commands::UsageParams {
            session_id: session.session_id.to_string(),
            source: transcript.to_owned(),
            offset,
            totals,
            cost_micro_usd: cost,
        }),
        acting,
    )?;
    Ok(format!(
        "; usage recorded: {} tokens to byte {offset}",
        totals.total()
    ))
}
