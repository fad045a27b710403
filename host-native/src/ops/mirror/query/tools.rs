//! The tool calls of one conversation, from the index: `baton transcripts tools`.

use super::*;

/// One tool's use across the kept conversations.
#[derive(Debug, Clone, Serialize)]
pub struct ToolUse {
    /// The tool's name as the agent called it.
    pub name: String,
    /// Calls.
    pub calls: i64,
    /// Calls whose result reported an error.
    pub errors: i64,
    /// Conversations that called it.
    pub conversations: i64,
    /// The last call (ms), when its message is dated.
    pub last_at: Option<i64>,
}

/// Tools by how often they were called.
#[derive(Debug, Clone, Serialize)]
pub struct ToolPage {
    /// Tools called in all.
    pub total: i64,
    /// Calls in all.
    pub calls: i64,
    /// This page, most called first.
    pub tools: Vec<ToolUse>,
}

/// The tools the filtered conversations called, most called first, with how often each
/// failed.
pub fn tools(
    connection: &Connection,
    path: &Path,
    filters: &Filters,
    limit: i64,
) -> Result<ToolPage, Error> {
    let from = "FROM tool_calls t JOIN conversations c ON c.id = t.conversation
         LEFT JOIN messages m ON m.id = t.message
         WHERE t.name IS NOT NULL AND (?1 IS NULL OR c.provider = ?1)
         AND (?2 IS NULL OR instr(c.project, ?2) > 0)
         AND (?3 IS NULL OR m.at >= ?3) AND (?4 IS NULL OR m.at <= ?4)";
    let (total, calls): (i64, i64) = connection
        .query_row(
            &format!("SELECT count(DISTINCT t.name), count(*) {from}"),
            params![
                filters.provider,
                filters.project,
                filters.since,
                filters.until
            ],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .map_err(sql(path))?;
    let mut statement = connection
        .prepare(&format!(
            "SELECT t.name, count(*), sum(coalesce(t.is_error, 0)), count(DISTINCT t.conversation),
                    max(m.at)
             {from} GROUP BY t.name ORDER BY count(*) DESC, t.name LIMIT ?5"
        ))
        .map_err(sql(path))?;
    let tools = statement
        .query_map(
            params![
                filters.provider,
                filters.project,
                filters.since,
                filters.until,
                limit
            ],
            |r| {
                Ok(ToolUse {
                    name: r.get(0)?,
                    calls: r.get(1)?,
                    errors: r.get(2)?,
                    conversations: r.get(3)?,
                    last_at: r.get(4)?,
                })
            },
        )
        .map_err(sql(path))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(sql(path))?;
    Ok(ToolPage {
        total,
        calls,
        tools,
    })
}
