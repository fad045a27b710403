//! What a pass stores of a conversation: its messages, tool calls and excerpts, and what a re-
//! read forgets.

use super::*;

/// How much of a message's tool input its excerpt keeps, for snippets.
pub(super) const EXCERPT_TOOL_CHARS: usize = 400;

/// How much of each end of a message's tool output its excerpt keeps: an error a person
/// pastes is most often at the start of what a command printed, or at its end.
pub(super) const EXCERPT_OUTPUT_CHARS: usize = 600;

/// The start and the end of a tool's output, for snippets (all of it when short).
pub(super) fn output_ends(output: &str) -> String {
    let count = output.chars().count();
    if count <= 2 * EXCERPT_OUTPUT_CHARS {
        return output.to_owned();
    }
    let head: String = output.chars().take(EXCERPT_OUTPUT_CHARS).collect();
    let tail: String = output.chars().skip(count - EXCERPT_OUTPUT_CHARS).collect();
    format!("{head}\n…\n{tail}")
}

/// Records a message's tool calls (by the call's id, with the tool's name) and results
/// (whether the tool failed). A result read before its call, or in another pass, meets it
/// on the call's id.
pub(super) fn store_tool_calls(
    transaction: &Connection,
    conversation_id: i64,
    message_id: i64,
    blocks: &[baton_core::transcripts::conversation::Block],
) -> rusqlite::Result<()> {
    use baton_core::transcripts::conversation::Block;
    for block in blocks {
        match block {
            Block::ToolCall { id, name, .. } if !id.is_empty() => {
                transaction
                    .prepare_cached(
                        "INSERT INTO tool_calls (conversation, call_id, message, name)
                         VALUES (?1, ?2, ?3, ?4)
                         ON CONFLICT (conversation, call_id) DO UPDATE SET
                             message = excluded.message, name = excluded.name",
                    )?
                    .execute(params![conversation_id, id, message_id, name])?;
            }
            Block::ToolResult {
                call_id, is_error, ..
            } if !call_id.is_empty() => {
                transaction
                    .prepare_cached(
                        "INSERT INTO tool_calls (conversation, call_id, is_error)
                         VALUES (?1, ?2, ?3)
                         ON CONFLICT (conversation, call_id) DO UPDATE SET
                             is_error = excluded.is_error",
                    )?
                    .execute(params![conversation_id, call_id, is_error])?;
            }
            _ => {}
        }
    }
    Ok(())
}

/// Removes what the index holds of a source before it is read again; returns the
/// conversations its messages belonged to (see [`settle`]).
pub(super) fn forget_rows(
    transaction: &Connection,
    packer: &mut Packer,
    source_id: i64,
) -> rusqlite::Result<Vec<i64>> {
    let conversations: Vec<i64> = transaction
        .prepare("SELECT DISTINCT conversation FROM messages WHERE source = ?1")?
        .query_map([source_id], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    transaction.execute(
        "DELETE FROM tool_calls WHERE message IN (SELECT id FROM messages WHERE source = ?1)",
        [source_id],
    )?;
    for conversation in &conversations {
        // Results whose call was never read belong to no message; they are read again too.
        transaction.execute(
            "DELETE FROM tool_calls WHERE conversation = ?1 AND message IS NULL",
            [conversation],
        )?;
    }
    transaction.execute(
        "DELETE FROM messages_fts WHERE rowid IN (SELECT id FROM messages WHERE source = ?1)",
        [source_id],
    )?;
    transaction.execute("DELETE FROM messages WHERE source = ?1", [source_id])?;
    transaction.execute("DELETE FROM lines WHERE source = ?1", [source_id])?;
    transaction.execute("DELETE FROM skipped_lines WHERE source = ?1", [source_id])?;
    packer.dirty.delete(
        transaction,
        "DELETE FROM usage WHERE source = ?1 RETURNING message_key",
        [source_id],
    )?;
    Ok(conversations)
}

/// After a source was read again: the conversations its old messages belonged to that it no
/// longer holds are recounted, and one left with no message at all (it was known only from
/// this source) is forgotten with its tool calls.
pub(super) fn settle(
    transaction: &Connection,
    forgotten: &[i64],
    stored: &[Conversation],
) -> rusqlite::Result<()> {
    for id in forgotten {
        let provider_id: Option<String> = transaction
            .query_row(
                "SELECT provider_id FROM conversations WHERE id = ?1",
                [id],
                |r| r.get(0),
            )
            .optional()?;
        let Some(provider_id) = provider_id else {
            continue;
        };
        if stored.iter().any(|c| c.id == provider_id) {
            continue; // stored again: its count is current
        }
        let messages: i64 = transaction.query_row(
            "SELECT count(*) FROM messages WHERE conversation = ?1",
            [id],
            |r| r.get(0),
        )?;
        if messages == 0 {
            transaction.execute("DELETE FROM tool_calls WHERE conversation = ?1", [id])?;
            transaction.execute("DELETE FROM conversations WHERE id = ?1", [id])?;
        } else {
            transaction.execute(
                "UPDATE conversations SET messages = ?2 WHERE id = ?1",
                params![id, messages],
            )?;
        }
    }
    Ok(())
}

/// A conversation's messages that are a copy's ([`COPY_MARK`], `~`): a range of the
/// `(conversation, message_id)` index (`~` is 0x7e), so each check is one seek.
pub(super) const COPY_MESSAGES: &str =
    "conversation = ?1 AND message_id >= '~' AND message_id < char(127)";

// The ranges above are the copy mark's.
const _: () = assert!(COPY_MARK == '~');

/// A conversation's messages that are not a copy's.
pub(super) const FULLER_MESSAGES: &str =
    "conversation = ?1 AND (message_id < '~' OR message_id >= char(127))";

/// Whether the conversation `conversation_id` has messages in `range` ([`COPY_MESSAGES`],
/// [`FULLER_MESSAGES`]): one seek of the index.
pub(super) fn has_messages(
    transaction: &Connection,
    conversation_id: i64,
    range: &str,
) -> rusqlite::Result<bool> {
    transaction
        .prepare_cached(&format!(
            "SELECT EXISTS (SELECT 1 FROM messages WHERE {range})"
        ))?
        .query_row([conversation_id], |r| r.get(0))
}

/// One rule with [`baton_core::transcripts::conversation::Conversation::absorb`]: a copy
/// ([`COPY_MARK`]) gives way to the fuller form of its conversation. A copy's messages are
/// not stored when the conversation has others (`false`); the fuller form's arriving
/// forgets the copy's.
fn give_way_to_copies(
    transaction: &Connection,
    conversation_id: i64,
    conversation: &Conversation,
) -> rusqlite::Result<bool> {
    if conversation.is_copy() {
        return Ok(!has_messages(
            transaction,
            conversation_id,
            FULLER_MESSAGES,
        )?);
    }
    if conversation.messages.is_empty()
        || !has_messages(transaction, conversation_id, COPY_MESSAGES)?
    {
        return Ok(true);
    }
    let copies = format!("SELECT id FROM messages WHERE {COPY_MESSAGES}");
    transaction
        .prepare_cached(&format!(
            "DELETE FROM tool_calls WHERE conversation = ?1 AND message IN ({copies})"
        ))?
        .execute([conversation_id])?;
    transaction
        .prepare_cached(&format!(
            "DELETE FROM messages_fts WHERE rowid IN ({copies})"
        ))?
        .execute([conversation_id])?;
    transaction
        .prepare_cached(&format!("DELETE FROM messages WHERE {COPY_MESSAGES}"))?
        .execute([conversation_id])?;
    Ok(true)
}

/// The next free message number in the slot of the minute `at` falls in (see
/// [`slot_start`]): a message's number orders it by when it was written (to the minute; in
/// the order read within one), and the search index, whose row is the message's number, can
/// then list matches newest first without sorting them. Minutes, not milliseconds: the index
/// stores the gaps between the numbers of the messages holding a word, and a minute's slot
/// keeps those gaps a byte or two. A full slot (256 messages in one minute: an import, a
/// chat with no times) spills into the minutes after it; past an hour of them, or in an
/// index made before numbers were slotted (whose 1, 2, 3… sit below every slot), a message
/// gets the number after every other: out of order, never one already taken.
pub(crate) fn time_ordered_id(transaction: &Connection, at: Option<i64>) -> rusqlite::Result<i64> {
    let mut first = slot_start(at.unwrap_or(0));
    for _ in 0..SPILL_MINUTES {
        let end = first + SLOT_SIZE;
        let taken: Option<i64> = transaction
            .prepare_cached("SELECT max(id) FROM messages WHERE id >= ?1 AND id < ?2")?
            .query_row(params![first, end], |r| r.get(0))?;
        match taken {
            None => return Ok(first),
            Some(id) if id + 1 < end => return Ok(id + 1),
            Some(_) => first = end,
        }
    }
    transaction
        .prepare_cached("SELECT coalesce(max(id), 0) + 1 FROM messages")?
        .query_row([], |r| r.get(0))
}

/// How many message numbers each minute has.
pub(crate) const SLOT_SIZE: i64 = 1 << 8;

/// How many minutes a full minute's messages may spill over: a message's number is at most
/// this many slots past its own minute's (unless every one of them is full).
pub(crate) const SPILL_MINUTES: i64 = 60;

/// The first message number of the minute of `at` (milliseconds; before 1970 is 1970's first
/// minute, and a time past what fits the last).
pub(crate) fn slot_start(at: i64) -> i64 {
    (at.max(0) / 60_000).min(i64::MAX / SLOT_SIZE - 2) * SLOT_SIZE
}

/// Adds a conversation's messages (each once) and keeps its row current; returns how many
/// messages were new.
pub(super) fn store_conversation(
    transaction: &Connection,
    packer: &mut Packer,
    source_id: i64,
    provider: Provider,
    conversation: &Conversation,
) -> rusqlite::Result<u64> {
    // The conversation's own provider: a copy read from another provider's files (Cursor's
    // agent transcripts) is kept as the conversation it copies.
    let owner = conversation.provider;
    if conversation.id.is_empty()
        || packer.is_removed(transaction, owner.key(), &conversation.id)?
    {
        return Ok(0);
    }
    // One title rule with the readers (see `Conversation::absorb`): the provider's title
    // (rank 3; one from a copy at least as new replaces it), else the main thread's first
    // prompt (2), else the prompt of the sub-agent that started first (1), which names the
    // conversation only until its main thread is read: a sub-agent's file is often read
    // before its parent's.
    let main_thread = conversation.messages.iter().any(|m| !m.side_chain);
    let first_text = conversation.messages.iter().find_map(|m| {
        (m.role == baton_core::transcripts::conversation::Role::User && !m.side_chain)
            .then(|| indexed_fields(m).text)
            .filter(|t| !t.trim().is_empty())
    });
    let (title, rank) = match (&conversation.title, &conversation.first_prompt) {
        (Some(title), _) => (Some(title.clone()), 3),
        (None, Some(prompt)) => (Some(prompt.clone()), if main_thread { 2 } else { 1 }),
        (None, None) => (first_text, 2),
    };
    let title = title.map(|t| t.chars().take(120).collect::<String>());
    let millis = |t: Option<baton_core::Timestamp>| t.map(|t| t.millis());
    // When a batch's title replaces the kept one, written once for both columns it sets.
    macro_rules! title_wins {
        () => {
            "excluded.title IS NOT NULL AND (conversations.title IS NULL
                OR excluded.title_rank > COALESCE(conversations.title_rank, 2)
                OR (excluded.title_rank = 3 AND COALESCE(excluded.updated_at, 0)
                    >= COALESCE(conversations.updated_at, 0))
                OR (excluded.title_rank = 1 AND conversations.title_rank = 1
                    AND excluded.started_at < conversations.started_at))"
        };
    }
    transaction
        .prepare_cached(concat!(
        "INSERT INTO conversations (provider, provider_id, title, project, started_at, updated_at,
             title_rank)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
         ON CONFLICT (provider, provider_id) DO UPDATE SET
             title = CASE WHEN ", title_wins!(), " THEN excluded.title ELSE conversations.title END,
             title_rank = CASE WHEN ", title_wins!(),
        " THEN excluded.title_rank ELSE conversations.title_rank END,
             project = COALESCE(conversations.project, excluded.project),
             started_at = MIN(COALESCE(conversations.started_at, excluded.started_at),
                              COALESCE(excluded.started_at, conversations.started_at)),
             updated_at = MAX(COALESCE(conversations.updated_at, excluded.updated_at),
                              COALESCE(excluded.updated_at, conversations.updated_at))"
    ))?
        .execute(params![
            owner.key(),
            conversation.id,
            title,
            conversation.project,
            millis(conversation.started_at),
            millis(conversation.updated_at),
            rank,
        ])?;
    let conversation_id: i64 = transaction
        .prepare_cached("SELECT id FROM conversations WHERE provider = ?1 AND provider_id = ?2")?
        .query_row(params![owner.key(), conversation.id], |row| row.get(0))?;
    if !give_way_to_copies(transaction, conversation_id, conversation)? {
        return Ok(0);
    }
    let replaced_by_id = provider.entry().gives.replaced_by_id;
    let mut added = 0;
    for message in &conversation.messages {
        let fields = indexed_fields(message);
        // What snippets are cut from: the text and thinking, the start of the tool input (a
        // call's command or path, so a hit on a tool call shows what was run) and both ends of
        // the tool output (where errors are; the whole output stays in the lines).
        let tool_start: String = fields.tool_input.chars().take(EXCERPT_TOOL_CHARS).collect();
        let output = output_ends(&fields.tool_output);
        let excerpt: String = [
            fields.text.as_str(),
            fields.thinking.as_str(),
            tool_start.as_str(),
            output.as_str(),
        ]
        .iter()
        .filter(|t| !t.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join("\n");
        // Compressed when that makes it smaller (a blob), else kept as it is (text).
        let packed = packer.pack(provider, excerpt.as_bytes());
        let excerpt_value = if excerpt.is_empty() {
            rusqlite::types::Value::Null
        } else if packed.len() < excerpt.len() {
            rusqlite::types::Value::Blob(packed)
        } else {
            rusqlite::types::Value::Text(excerpt)
        };
        let model = packer.name(transaction, message.model.as_deref())?;
        // A new message's number says when it was written (see `time_ordered_id`): the search
        // index lists matches newest first by it, stopping at a page's worth.
        let at = message
            .at
            .or(conversation.updated_at)
            .or(conversation.started_at);
        let id = time_ordered_id(transaction, at.map(|t| t.millis()))?;
        let inserted = transaction
            .prepare_cached(
                "INSERT OR IGNORE INTO messages
                 (id, conversation, source, message_id, role, at, model, excerpt)
             VALUES (?8, ?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?
            .execute(params![
                conversation_id,
                source_id,
                message.id,
                crate::wire_name(&message.role),
                millis(message.at),
                model,
                excerpt_value,
                id
            ])?;
        let rowid = if inserted == 1 {
            added += 1;
            transaction.last_insert_rowid()
        } else if replaced_by_id {
            // A later copy of a message already kept: it replaces the kept one in its place.
            let Some(rowid) = transaction
                .prepare_cached(
                    "SELECT id FROM messages WHERE conversation = ?1 AND message_id = ?2",
                )?
                .query_row(params![conversation_id, message.id], |r| r.get::<_, i64>(0))
                .optional()?
            else {
                continue;
            };
            transaction
                .prepare_cached(
                    "UPDATE messages SET source = ?2, role = ?3, at = ?4, model = ?5, excerpt = ?6
                     WHERE id = ?1",
                )?
                .execute(params![
                    rowid,
                    source_id,
                    crate::wire_name(&message.role),
                    millis(message.at),
                    model,
                    excerpt_value
                ])?;
            transaction
                .prepare_cached("DELETE FROM messages_fts WHERE rowid = ?1")?
                .execute([rowid])?;
            // Its time moved past what its number says (a copy that knows when it was
            // written, of one that did not): numbered again, so search finds it by its time.
            let first = slot_start(at.map_or(0, |t| t.millis()));
            if rowid < first || rowid >= first + SPILL_MINUTES * SLOT_SIZE {
                transaction
                    .prepare_cached("UPDATE messages SET id = ?2 WHERE id = ?1")?
                    .execute(params![rowid, id])?;
                transaction
                    .prepare_cached("UPDATE tool_calls SET message = ?2 WHERE message = ?1")?
                    .execute(params![rowid, id])?;
                id
            } else {
                rowid
            }
        } else {
            continue;
        };
        if !fields.is_empty() {
            transaction
                .prepare_cached(
                    "INSERT INTO messages_fts (rowid, text, thinking, tool_input, tool_output)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                )?
                .execute(params![
                    rowid,
                    fields.text,
                    fields.thinking,
                    fields.tool_input,
                    fields.tool_output
                ])?;
            packer.vocabulary.note(transaction, &fields)?;
        }
        store_tool_calls(transaction, conversation_id, rowid, &message.blocks)?;
    }
    transaction.prepare_cached(
        "UPDATE conversations SET messages = (SELECT count(*) FROM messages WHERE conversation = ?1)
         WHERE id = ?1")?.execute(
        [conversation_id],
    )?;
    Ok(added)
}
