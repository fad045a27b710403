//! The team views (`baton team list|attention|show`): the events every machine synced, read
//! back from PostgreSQL and folded by the core exactly as one ledger is, with the collisions
//! only the union shows, and each session's machines.

use super::connect::{self, pg_error};
use super::schema;
use baton_core::Error;
use baton_core::commands::{self, Context, Request, Response};
use baton_core::ids::{EventId, SessionId};
use baton_core::ledger::fold::Fold;
use baton_core::time::Timestamp;
use serde::Serialize;
use std::collections::BTreeMap;

/// One machine a session has events on.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct MachineTag {
    /// Its id (`.baton/machine-id` there).
    pub machine: String,
    /// Its host name when it last synced.
    pub name: String,
}

/// A team view's answer: the core's answer over the union, and the machines of each session
/// it names.
#[derive(Debug)]
pub struct TeamAnswer {
    /// What the core answered.
    pub response: Response,
    /// The machines of each session, by session.
    pub machines: BTreeMap<SessionId, Vec<MachineTag>>,
    /// Events read from the server.
    pub events: usize,
    /// Collisions only the union shows (no machine recorded them), as opened in the view.
    pub unseen_collisions: Vec<UnseenCollision>,
}

/// A collision only the union shows: a change reported on one machine to a file a session
/// elsewhere stands on (or changed too).
#[derive(Debug, Clone, Serialize)]
pub struct UnseenCollision {
    /// The session whose work is affected.
    pub session_id: SessionId,
    /// The session whose change caused it.
    pub by_session: SessionId,
    /// The file.
    pub file: String,
    /// high (a declared dependency) or normal (changed by both).
    pub severity: baton_core::ledger::activity::Severity,
    /// When the change was reported.
    pub at: Timestamp,
}

/// Which events a view needs.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Scope {
    /// Those of sessions no machine has seen end.
    Live,
    /// Those, and those of every session whose id (32 hex digits) starts or ends with these.
    LiveAnd(String),
    /// All of them.
    All,
}

/// The hex digits a session reference names its session by: a whole id, a run of 8 or more
/// from its start or end, or a path's last word. `None` for anything else (read everything,
/// and let the core say what it makes of it).
fn id_digits(reference: &str) -> Option<String> {
    let reference = reference.trim();
    if let Ok(id) = uuid::Uuid::parse_str(reference) {
        return Some(id.simple().to_string());
    }
    let last = reference.rsplit(['/', '-']).next()?.to_ascii_lowercase();
    (last.len() >= 8 && last.len() <= 32 && last.chars().all(|c| c.is_ascii_hexdigit()))
        .then_some(last)
}

/// Answers a read-only request (list, attention, show) over every machine's events at `url`.
pub fn view(url: &str, request: &Request, now: Timestamp) -> Result<TeamAnswer, Error> {
    let scope = match request {
        Request::List(p) if !p.include_ended => Scope::Live,
        Request::Attention => Scope::Live,
        Request::Show(p) => id_digits(&p.session_id).map_or(Scope::All, Scope::LiveAnd),
        _ => Scope::All,
    };
    connect::block_on(async {
        let client = connect::connect(url).await?;
        schema::require_current(&client).await?;
        let (mut fold, events) = load(&client, &scope).await?;
        let mut unseen_collisions = Vec::new();
        let (collisions, health) = baton_core::lifecycle::collisions::unseen_with_health(&fold);
        for event in collisions {
            if let baton_core::ledger::event::Payload::Activity(
                baton_core::ledger::activity::Activity::CollisionOpened {
                    by_session,
                    file,
                    severity,
                },
            ) = &event.payload
            {
                unseen_collisions.push(UnseenCollision {
                    session_id: event.session,
                    by_session: *by_session,
                    file: file.clone(),
                    severity: *severity,
                    at: event.at,
                });
            }
            fold.apply(event);
        }
        for event in health {
            fold.apply(event);
        }
        let union = baton_core::ledger::store::MemoryLedger::from_fold(fold);
        let context = Context::new(
            now,
            EventId(crate::os::system::new_uuid()),
            SessionId(crate::os::system::new_uuid()),
        );
        let prepared = commands::prepare(&union, request)?;
        let response = commands::execute(&union, &prepared, &context)?.response;
        let mut named = sessions_named(&response);
        named.extend(unseen_collisions.iter().map(|c| c.session_id.0));
        named.extend(unseen_collisions.iter().map(|c| c.by_session.0));
        let machines = machines_of(&client, &named).await?;
        Ok(TeamAnswer {
            response,
            machines,
            events,
            unseen_collisions,
        })
    })
}

/// Reads the events of `scope` and folds them.
async fn load(client: &tokio_postgres::Client, scope: &Scope) -> Result<(Fold, usize), Error> {
    const LIVE: &str = "SELECT s.session FROM baton_machine_sessions s
                        WHERE NOT s.ended AND NOT EXISTS (
                            SELECT 1 FROM baton_machine_sessions x
                            WHERE x.session = s.session AND x.ended)";
    let rows = match scope {
        Scope::All => client
            .query("SELECT line FROM baton_events", &[])
            .await
            .map_err(|e| pg_error("read the events", e))?,
        Scope::Live => client
            .query(
                &format!("SELECT e.line FROM baton_events e WHERE e.session IN ({LIVE})"),
                &[],
            )
            .await
            .map_err(|e| pg_error("read the live sessions' events", e))?,
        // The live sessions too: the collisions only the union shows come from them.
        Scope::LiveAnd(digits) => client
            .query(
                &format!(
                    "SELECT e.line FROM baton_events e WHERE e.session IN (
                         {LIVE}
                         UNION
                         SELECT DISTINCT session FROM baton_machine_sessions
                         WHERE replace(session::text, '-', '') LIKE $1 || '%'
                            OR replace(session::text, '-', '') LIKE '%' || $1)"
                ),
                &[digits],
            )
            .await
            .map_err(|e| pg_error("read the session's events", e))?,
    };
    let mut fold = Fold::new();
    for (offset, row) in rows.iter().enumerate() {
        let line: &str = row.get(0);
        fold.apply_line(line.as_bytes(), "postgres", offset as u64);
    }
    Ok((fold, rows.len()))
}

/// The sessions an answer names.
fn sessions_named(response: &Response) -> Vec<uuid::Uuid> {
    match response {
        Response::List(list) => list.sessions.iter().map(|s| s.session_id.0).collect(),
        Response::Show(shown) => vec![shown.session.session_id.0],
        Response::Attention(attention) => attention
            .items
            .iter()
            .map(|item| item.session_id.0)
            .collect(),
        _ => Vec::new(),
    }
}

/// The machines that synced events of each of `sessions`.
async fn machines_of(
    client: &tokio_postgres::Client,
    sessions: &[uuid::Uuid],
) -> Result<BTreeMap<SessionId, Vec<MachineTag>>, Error> {
    let rows = client
        .query(
            "SELECT s.session, m.machine, m.name FROM baton_machine_sessions s
             JOIN baton_machines m ON m.machine = s.machine
             WHERE s.session = ANY($1)
             ORDER BY s.session, m.name, m.machine",
            &[&sessions],
        )
        .await
        .map_err(|e| pg_error("read the machines", e))?;
    let mut machines: BTreeMap<SessionId, Vec<MachineTag>> = BTreeMap::new();
    for row in rows {
        let machine: uuid::Uuid = row.get(1);
        machines
            .entry(SessionId(row.get(0)))
            .or_default()
            .push(MachineTag {
                machine: machine.to_string(),
                name: row.get(2),
            });
    }
    Ok(machines)
}

/// Brings the server's schema to this build's version (`baton team init`); returns it.
pub fn init(url: &str) -> Result<usize, Error> {
    connect::block_on(async {
        let mut client = connect::connect(url).await?;
        schema::migrate(&mut client).await
    })
}

/// One usage row as the server holds it, with the machine that sent it.
#[derive(Debug, Clone)]
pub struct TeamUsageRow {
    /// The response.
    pub entry: baton_core::transcripts::UsageEntry,
    /// The machine's tag.
    pub machine: MachineTag,
}

/// The usage rows every machine sent, written within a day of `since` and `until` (the core
/// cuts at the zone's day boundaries); a response sent by several workspaces of one user (each
/// sends the user's whole index) once, with the first of their machines.
pub fn usage_rows(
    url: &str,
    since: Option<Timestamp>,
    until: Option<Timestamp>,
) -> Result<Vec<TeamUsageRow>, Error> {
    use baton_core::transcripts::{Provider, UsageEntry};
    const DAY_MS: i64 = 86_400_000;
    connect::block_on(async {
        let client = connect::connect(url).await?;
        schema::require_current(&client).await?;
        let rows = client
            .query(
                "SELECT u.provider, u.provider_session, (extract(epoch FROM u.at) * 1000)::bigint,
                        u.project, u.model, u.input_tokens, u.output_tokens,
                        u.cache_creation_tokens, u.cache_read_tokens, u.reasoning_tokens,
                        u.cache_creation_1h_tokens, u.request_context_tokens,
                        u.recorded_cost_micro_usd, m.machine, m.name, u.fast, u.web_searches
                 FROM (SELECT DISTINCT ON (key, provider_session, at) * FROM baton_usage
                       WHERE ($1::bigint IS NULL OR at >= to_timestamp($1::bigint / 1000.0))
                         AND ($2::bigint IS NULL OR at <= to_timestamp($2::bigint / 1000.0))
                       ORDER BY key, provider_session, at, machine) u
                 JOIN baton_machines m ON m.machine = u.machine
                 ORDER BY u.at",
                &[
                    &since.map(|t| t.millis() - DAY_MS),
                    &until.map(|t| t.millis() + DAY_MS),
                ],
            )
            .await
            .map_err(|e| pg_error("read the usage rows", e))?;
        let count = |n: i64| u64::try_from(n).unwrap_or(0);
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            let Some(provider) = Provider::named(row.get::<_, &str>(0)) else {
                continue;
            };
            let machine: uuid::Uuid = row.get(13);
            out.push(TeamUsageRow {
                entry: UsageEntry {
                    provider,
                    at: Timestamp::from_millis(row.get(2)),
                    session: std::sync::Arc::from(row.get::<_, &str>(1)),
                    project: row.get::<_, Option<&str>>(3).map(std::sync::Arc::from),
                    model: row.get::<_, Option<&str>>(4).map(std::sync::Arc::from),
                    tokens: baton_core::tokens::TokenTotals {
                        input_tokens: count(row.get(5)),
                        output_tokens: count(row.get(6)),
                        cache_creation_tokens: count(row.get(7)),
                        cache_read_tokens: count(row.get(8)),
                        reasoning_tokens: count(row.get(9)),
                    },
                    cache_creation_1h_tokens: count(row.get(10)),
                    request_context_tokens: row.get::<_, Option<i64>>(11).map(count),
                    recorded_cost_micro_usd: row.get::<_, Option<i64>>(12).map(count),
                    fast: row.get(15),
                    web_searches: count(row.get(16)),
                    delegated: false,
                },
                machine: MachineTag {
                    machine: machine.to_string(),
                    name: row.get(14),
                },
            });
        }
        Ok(out)
    })
}

#[cfg(test)]
mod tests {
    use super::id_digits;

    #[test]
    fn a_reference_gives_the_digits_to_look_for() {
        assert_eq!(
            id_digits("01a2389c-30cd-7797-90e9-1ee4909ebc53").as_deref(),
            Some("01a2389c30cd779790e91ee4909ebc53")
        );
        assert_eq!(id_digits("909EBC53").as_deref(), Some("909ebc53"));
        assert_eq!(
            id_digits("shop/2026-12-02-2114-claude-909ebc53").as_deref(),
            Some("909ebc53")
        );
        assert_eq!(id_digits("909ebc5"), None, "fewer than 8");
        assert_eq!(id_digits("shop/2026-12-02-2114-claude"), None);
    }
}
