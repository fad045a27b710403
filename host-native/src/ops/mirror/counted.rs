//! The usage rows that count (each response once), as entries with their sessions' projects: a
//! Claude Code session's project is found by the core's rule from its counted rows, in the
//! order a read of the files meets them (a Codex row carries its own). Every row, the rows of
//! a focus (since an instant, and the sessions it names), or the rows between two instants
//! (by the index of counted rows' times, with projects settled from the rows of their files).

use super::rows::{
    CountedRow, REST, asked_provider, entry_of, provider_of, select, sql, usage_query,
};
use crate::ops::usage::UsageOptions;
use baton_core::transcripts::usage::claude_code::project_of;
use baton_core::transcripts::{Provider, UsageEntry};
use baton_core::{Error, Timestamp};
use rusqlite::Connection;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

/// What a counted Claude Code row tells of its session's project, and where it was read
/// (its source's place by path, its offset).
struct Clue {
    read_at: (usize, i64),
    at: Timestamp,
    cwd: Option<Arc<str>>,
    folder: Option<Arc<str>>,
}

/// Each Claude Code source's place in a read of the folders (by path), for the order of a
/// session's clues; sorting the few clues of each session beats sorting every row.
fn places(connection: &Connection, path: &Path) -> Result<HashMap<i64, usize>, Error> {
    let mut paths: Vec<(String, i64)> = connection
        .prepare("SELECT path, id FROM sources WHERE provider = 'claude_code'")
        .and_then(|mut s| {
            s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<rusqlite::Result<_>>()
        })
        .map_err(sql(path))?;
    paths.sort();
    Ok(paths
        .iter()
        .enumerate()
        .map(|(at, (_, id))| (*id, at))
        .collect())
}

/// Each session's project from its clues.
fn settle(clues: HashMap<Arc<str>, Vec<Clue>>) -> HashMap<Arc<str>, Option<Arc<str>>> {
    clues
        .into_iter()
        .map(|(session, mut clues)| {
            clues.sort_by_key(|clue| clue.read_at);
            let project = project_of(
                clues
                    .iter()
                    .map(|clue| (clue.at, clue.cwd.as_deref(), clue.folder.as_deref())),
            );
            (session, project.map(|p| Arc::from(p.as_str())))
        })
        .collect()
}

/// Every row that counts (those of the options' focus, when it has one), as an entry with its
/// session's project.
pub(super) fn counted_rows(
    connection: &Connection,
    path: &Path,
    options: &UsageOptions,
) -> Result<Vec<CountedRow>, Error> {
    let (names, mut statement) = usage_query(
        connection,
        path,
        "u.source, u.offset, u.dedup_key
                 FROM sources s JOIN usage u ON u.source = s.id
                 WHERE u.counted = 1
                   AND (?1 IS NULL OR u.at >= ?1 OR u.session IN (
                        SELECT id FROM names WHERE text IN (SELECT value FROM json_each(?2))))",
    )?;
    let name = |id: Option<i64>| id.and_then(|id| names.get(&id).cloned());
    let place = places(connection, path)?;
    let focus = options.work_focus.as_ref();
    let mut rows = statement
        .query(rusqlite::params![
            focus.map(|f| f.since.millis()),
            focus
                .map(|f| serde_json::to_string(&f.provider_ids).unwrap_or_default())
                .unwrap_or_else(|| "[]".to_owned()),
        ])
        .map_err(sql(path))?;
    let mut entries: Vec<CountedRow> = Vec::new();
    // Each Claude Code session's clues to its project, with where each was read.
    let mut clues: HashMap<Arc<str>, Vec<Clue>> = HashMap::new();
    while let Some(row) = rows.next().map_err(sql(path))? {
        let Some(provider) = asked_provider(row, path, options)? else {
            continue;
        };
        let id = |i: usize| -> Result<Option<i64>, Error> { row.get(i).map_err(sql(path)) };
        let entry = entry_of(row, path, provider, &names)?;
        if provider.entry().gives.project_from_clues {
            let source: i64 = row.get(REST).map_err(sql(path))?;
            clues.entry(entry.session.clone()).or_default().push(Clue {
                read_at: (
                    place.get(&source).copied().unwrap_or(usize::MAX),
                    row.get(REST + 1).map_err(sql(path))?,
                ),
                at: entry.at,
                cwd: entry.project.clone(),
                folder: name(id(13)?),
            });
        }
        entries.push(CountedRow {
            dedup_key: id(REST + 2)?,
            entry,
        });
    }
    let projects = settle(clues);
    for CountedRow { entry, .. } in &mut entries {
        if entry.provider.entry().gives.project_from_clues {
            entry.project = projects.get(&entry.session).cloned().flatten();
        }
    }
    Ok(entries)
}

/// The rest of the statement reading counted rows by time: the usage table drives, through
/// its index of counted rows' times.
const BETWEEN: &str = "u.source, u.offset
     FROM usage u CROSS JOIN sources s ON s.id = u.source
     WHERE u.counted = 1 AND u.at >= ?1 AND u.at < ?2
     ORDER BY u.at";

/// The rows that count written in `[start, end)` (`end` absent: to the last), of `providers`
/// (empty: all), in time order; `with_projects`, each with its session's project: found from
/// the counted rows of the files those rows are in (a session's rows in other files, older,
/// are not read: of a session resumed into a new file the project may then come from the new
/// file's first working directory). Without, a Claude Code row keeps its own working
/// directory (for a reader that ties no response to a project).
pub fn counted_between(
    connection: &Connection,
    path: &Path,
    start: Timestamp,
    end: Option<Timestamp>,
    providers: &[Provider],
    with_projects: bool,
) -> Result<Vec<UsageEntry>, Error> {
    let bounds = [start.millis(), end.map_or(i64::MAX, Timestamp::millis)];
    // Only the names these rows use, looked up as they come (a long history has tens of
    // thousands).
    let mut names: HashMap<i64, Arc<str>> = HashMap::new();
    let mut name_of = connection
        .prepare("SELECT text FROM names WHERE id = ?1")
        .map_err(sql(path))?;
    let mut statement = connection.prepare(&select(BETWEEN)).map_err(sql(path))?;
    let mut rows = statement.query(bounds).map_err(sql(path))?;
    let mut entries: Vec<UsageEntry> = Vec::new();
    // Each Claude Code row's file and session (by number), for its session's clues.
    let mut files: HashSet<i64> = HashSet::new();
    let mut sessions: HashSet<i64> = HashSet::new();
    while let Some(row) = rows.next().map_err(sql(path))? {
        let name = row.get_ref(0).map_err(sql(path))?.as_str().unwrap_or("");
        let Some(provider) =
            provider_of(name).filter(|p| providers.is_empty() || providers.contains(p))
        else {
            continue;
        };
        if provider.entry().gives.project_from_clues {
            files.insert(row.get(REST).map_err(sql(path))?);
            sessions.insert(row.get(2).map_err(sql(path))?);
        }
        // The session, project, model and folder.
        for column in [2, 3, 4, 13] {
            if let Some(id) = row.get::<_, Option<i64>>(column).map_err(sql(path))?
                && !names.contains_key(&id)
            {
                let text: String = name_of.query_row([id], |r| r.get(0)).map_err(sql(path))?;
                names.insert(id, Arc::from(text));
            }
        }
        entries.push(entry_of(row, path, provider, &names)?);
    }
    if files.is_empty() || !with_projects {
        return Ok(entries);
    }
    // The files in the order a read of the folders takes them (by path).
    let mut paths: Vec<(String, i64)> = Vec::with_capacity(files.len());
    let mut path_of = connection
        .prepare("SELECT path FROM sources WHERE id = ?1")
        .map_err(sql(path))?;
    for &file in &files {
        paths.push((
            path_of.query_row([file], |r| r.get(0)).map_err(sql(path))?,
            file,
        ));
    }
    paths.sort();
    let mut clues: HashMap<Arc<str>, Vec<Clue>> = HashMap::new();
    let mut statement = connection
        .prepare(
            "SELECT u.session, u.at, p.text, f.text, u.offset FROM usage u
             LEFT JOIN names p ON p.id = u.project LEFT JOIN names f ON f.id = u.folder
             WHERE u.source = ?1 AND u.counted = 1",
        )
        .map_err(sql(path))?;
    let text = |t: Option<String>| t.map(|t| Arc::<str>::from(t.as_str()));
    for (place, (_, file)) in paths.iter().enumerate() {
        let mut rows = statement.query([file]).map_err(sql(path))?;
        while let Some(row) = rows.next().map_err(sql(path))? {
            let session: i64 = row.get(0).map_err(sql(path))?;
            let Some(session) = sessions
                .contains(&session)
                .then(|| names.get(&session).cloned())
                .flatten()
            else {
                continue;
            };
            clues.entry(session).or_default().push(Clue {
                read_at: (place, row.get(4).map_err(sql(path))?),
                at: Timestamp::from_millis(row.get(1).map_err(sql(path))?),
                cwd: text(row.get(2).map_err(sql(path))?),
                folder: text(row.get(3).map_err(sql(path))?),
            });
        }
    }
    let projects = settle(clues);
    for entry in &mut entries {
        if entry.provider.entry().gives.project_from_clues {
            entry.project = projects.get(&entry.session).cloned().flatten();
        }
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    /// SQLite's plan for a statement, a step a line.
    fn plan(sql: &str) -> Vec<String> {
        let tmp = tempfile::tempdir().unwrap();
        let connection = crate::index::open(&tmp.path().join("index.sqlite"), true).unwrap();
        let mut statement = connection
            .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
            .unwrap();
        let steps = (1..=statement.parameter_count())
            .map(|_| rusqlite::types::Value::Null)
            .collect::<Vec<_>>();
        statement
            .query_map(rusqlite::params_from_iter(steps), |r| r.get::<_, String>(3))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }

    /// Rows by time are found through the index of counted rows' times, never by a pass over
    /// every usage row (SQLite would say `SCAN u`).
    #[test]
    fn the_index_of_times_drives_reads_by_time() {
        for sql in [
            super::super::rows::select(super::BETWEEN),
            super::super::windows::EDGE.replace("{order}", "DESC"),
        ] {
            let plan = plan(&sql);
            assert!(
                plan.iter().any(|step| step.starts_with("SEARCH u USING")
                    && step.contains("INDEX usage_by_time")),
                "{sql}: {plan:?}"
            );
            assert!(!plan.iter().any(|step| step == "SCAN u"), "{plan:?}");
        }
    }
}
