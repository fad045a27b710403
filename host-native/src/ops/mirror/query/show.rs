//! One conversation read back from the index: which one a reference names, and its messages
//! on the branch asked for.

use super::*;

/// A conversation as kept: rebuilt from its stored lines (an export's: its own JSON) by the
/// same core readers that read the sources, so what `show` prints is what `analyze` would
/// print of the original files.
#[derive(Debug)]
pub struct Shown {
    /// Its row.
    pub row: ConversationRow,
    /// The branches asked for as Markdown: the active one, or every one (active first).
    pub markdown: String,
    /// How many branches the conversation has.
    pub branches: usize,
    /// The conversation, every branch, as JSON.
    pub json: serde_json::Value,
    /// The ids of the active branch's messages, root first.
    pub active_branch: Vec<String>,
}

/// Which branches `show` writes as Markdown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Branches {
    /// The one the provider marked active (else the last written).
    #[default]
    Active,
    /// Every branch, the active one first.
    All,
}

/// The conversation `reference` names: the index's number, the provider's id, or 8 or more
/// characters from the start of it (unique).
pub fn resolve(
    connection: &Connection,
    path: &Path,
    reference: &str,
) -> Result<ConversationRow, Error> {
    let reference = reference.trim();
    let mut statement = connection
        .prepare(
            "SELECT id, provider, provider_id, title, project, started_at, updated_at, messages
             FROM conversations
             WHERE CAST(id AS TEXT) = ?1 OR provider_id = ?1
                OR (length(?1) >= 8 AND substr(provider_id, 1, length(?1)) = ?1)
             ORDER BY id LIMIT 11",
        )
        .map_err(sql(path))?;
    let rows = statement
        .query_map([reference], ConversationRow::read)
        .map_err(sql(path))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(sql(path))?;
    // An exact id wins over prefixes it happens to share.
    let row = match rows
        .iter()
        .find(|r| r.provider_id == reference || r.id.to_string() == reference)
    {
        Some(row) => row.clone(),
        None => match rows.as_slice() {
            [one] => one.clone(),
            [] => {
                return Err(Error::invalid(
                    "conversation",
                    format!("no kept conversation matches `{reference}`; `baton transcripts list` shows them"),
                )
                .with("reference", reference));
            }
            several => {
                return Err(Error::invalid(
                    "conversation",
                    format!(
                        "{} kept conversations start with `{reference}`; give more of the id",
                        several.len()
                    ),
                )
                .with("reference", reference)
                .with(
                    "candidates",
                    serde_json::Value::from(
                        several
                            .iter()
                            .map(|r| r.provider_id.clone())
                            .collect::<Vec<_>>(),
                    ),
                ));
            }
        },
    };
    Ok(row)
}

/// A file a conversation's messages were read from.
#[derive(Debug, Clone)]
pub struct KeptSource {
    /// The index's id of it.
    pub id: i64,
    /// Where it was.
    pub path: String,
    /// How far it was read (the end of its last whole line).
    pub read_to: i64,
}

/// The files the messages of conversation `id` were read from, by path.
pub fn sources_of(connection: &Connection, path: &Path, id: i64) -> Result<Vec<KeptSource>, Error> {
    connection
        .prepare_cached(
            "SELECT DISTINCT s.id, s.path, s.cursor FROM messages m JOIN sources s ON s.id = m.source
             WHERE m.conversation = ?1 ORDER BY s.path",
        )
        .and_then(|mut s| {
            s.query_map([id], |r| {
                Ok(KeptSource {
                    id: r.get(0)?,
                    path: r.get(1)?,
                    read_to: r.get(2)?,
                })
            })?
            .collect()
        })
        .map_err(sql(path))
}

/// The conversation `reference` names (see [`resolve`]) in full, rebuilt from what was kept.
pub fn show(
    connection: &Connection,
    path: &Path,
    reference: &str,
    branches: Branches,
) -> Result<Shown, Error> {
    let row = resolve(connection, path, reference)?;
    let (analyzer, index) = read_back(connection, path, &row)?;
    let views = analyzer.branches(index)?;
    let markdown = match branches {
        Branches::Active => baton_core::analyzer::export::markdown(&views[0]),
        Branches::All => {
            let mut out = String::new();
            for (n, view) in views.iter().enumerate() {
                let fork = view
                    .messages
                    .iter()
                    .zip(&views[0].messages)
                    .take_while(|(a, b)| a.id == b.id)
                    .count();
                out.push_str(&format!(
                    "> **Branch {} of {}**{}\n\n",
                    n + 1,
                    views.len(),
                    if n == 0 {
                        ", the active one".to_owned()
                    } else {
                        format!(": leaves the active one after its message {fork}")
                    }
                ));
                out.push_str(&baton_core::analyzer::export::markdown(view));
                out.push_str("\n---\n\n");
            }
            out
        }
    };
    let json = serde_json::from_str(&analyzer.conversation_json(index)?)
        .map_err(|e| Error::internal(format!("encoding the conversation: {e}")))?;
    Ok(Shown {
        row,
        markdown,
        branches: views.len(),
        json,
        active_branch: views[0].messages.iter().map(|m| m.id.clone()).collect(),
    })
}

/// Conversation `row` rebuilt from what was kept, by the same core readers that read the
/// sources: the analyzer holding it, and its number there.
pub fn read_back(
    connection: &Connection,
    path: &Path,
    row: &ConversationRow,
) -> Result<(baton_core::analyzer::Analyzer, usize), Error> {
    let mut inflater = crate::ops::mirror::packing::Inflater::new();
    let mut inflate = |raw: &[u8]| {
        inflater
            .inflate(connection, raw)
            .map_err(|e| Error::internal(format!("a stored line would not inflate: {e}")))
    };
    let mut analyzer = baton_core::analyzer::Analyzer::new();
    use baton_core::transcripts::providers::Kind;
    let kind = baton_core::transcripts::Provider::named(&row.provider).map(|p| p.entry().kind);
    let read_whole = matches!(kind, Some(Kind::Database | Kind::Document | Kind::Export));
    if read_whole {
        // An export's item, or a database's or a document's conversation, is kept as read.
        if matches!(kind, Some(Kind::Database | Kind::Document)) {
            // The conversation and its parts (a sub-agent's thread kept from its own file).
            let raws: Vec<Vec<u8>> = connection
                .prepare(
                    "SELECT raw FROM export_items WHERE provider = ?1 AND (provider_id = ?2
                         OR (provider_id >= ?2 || '#' AND provider_id < ?2 || '$'))
                     ORDER BY length(provider_id), provider_id",
                )
                .and_then(|mut s| {
                    s.query_map([&row.provider, &row.provider_id], |r| r.get(0))?
                        .collect()
                })
                .map_err(sql(path))?;
            if raws.is_empty() {
                return Err(sql(path)(rusqlite::Error::QueryReturnedNoRows));
            }
            for raw in raws {
                let conversation = serde_json::from_slice(&inflate(&raw)?).map_err(|e| {
                    Error::internal(format!("a kept conversation would not read: {e}"))
                })?;
                analyzer.add_conversation(conversation);
            }
        } else {
            let raw: Vec<u8> = connection
                .query_row(
                    "SELECT raw FROM export_items WHERE provider = ?1 AND provider_id = ?2",
                    [&row.provider, &row.provider_id],
                    |r| r.get(0),
                )
                .map_err(sql(path))?;
            let raw = inflate(&raw)?;
            let mut bytes = b"[".to_vec();
            bytes.extend_from_slice(&raw);
            bytes.push(b']');
            analyzer.add_file("conversations.json", &bytes)?;
        }
    } else {
        let sources = sources_of(connection, path, row.id)?;
        let mut lines = connection
            .prepare("SELECT raw FROM lines WHERE source = ?1 ORDER BY offset")
            .map_err(sql(path))?;
        for KeptSource {
            id: source,
            path: name,
            ..
        } in &sources
        {
            let mut bytes = Vec::new();
            let raws = lines
                .query_map([source], |r| r.get::<_, Vec<u8>>(0))
                .map_err(sql(path))?;
            for raw in raws {
                bytes.extend_from_slice(&inflate(&raw.map_err(sql(path))?)?);
                bytes.push(b'\n');
            }
            // Read as the agent's whatever its first lines hold (the mirror read it so); a
            // file that no longer parses on its own still leaves the others to read.
            let _ = match baton_core::transcripts::Provider::named(&row.provider) {
                Some(provider) => analyzer.add_known_file(name, provider, &bytes),
                None => analyzer.add_file(name, &bytes),
            };
        }
    }
    let index = analyzer
        .conversations()
        .iter()
        .position(|c| {
            c.id == row.provider_id
                || (c.id.is_empty() && crate::ops::mirror::pass::anchor_id(c) == row.provider_id)
        })
        .ok_or_else(|| {
            Error::internal(format!(
                "conversation {} is indexed but what was kept does not hold it",
                row.provider_id
            ))
        })?;
    Ok((analyzer, index))
}
