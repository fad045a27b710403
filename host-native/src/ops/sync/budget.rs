//! The team budget in the team database (`baton_budget`, written by a person through
//! `baton team budget set`), and what measuring it needs from there: the other machines' usage
//! in the budget's periods, summed per 15-minute slot, model and price tier as each machine's
//! own index sums it. A pull never waits long on the network: the server gets a short time to
//! answer, and what it last said is kept in the user's cache folder and used when it does not.

use super::connect::{self, TeamSettings, pg_error, sync_error};
use super::schema;
use crate::ops::mirror::tally;
use crate::store::Ledger;
use baton_core::lifecycle::budget::BudgetPolicy;
use baton_core::tokens::TokenTotals;
use baton_core::transcripts::usage::summed_windows::Sum;
use baton_core::transcripts::{Provider, UsageEntry};
use baton_core::{Error, Timestamp};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::time::Duration;

/// How long a pull waits for the team database before it uses what it last said.
const PULL_WAIT: Duration = Duration::from_millis(800);

/// How long a command that shows the budget waits.
const SHOW_WAIT: Duration = Duration::from_secs(10);

/// How long what the server said stands for a pull before it is asked again.
const FRESH_MS: i64 = 30_000;

/// The team budget as the team database holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TeamBudget {
    /// Its rules (over all of the team's work).
    pub policy: BudgetPolicy,
    /// The database role that set it.
    pub set_by: String,
    /// When.
    pub set_at: Timestamp,
}

/// One slot of another machine's usage: what the tallies hold per 15 minutes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TeamSlot {
    provider: String,
    slot: i64,
    model: Option<String>,
    tier: i64,
    recorded: bool,
    /// Input, output, cache writes, cache reads, reasoning, one-hour cache writes.
    tokens: [i64; 6],
    recorded_cost_micro_usd: i64,
    web_searches: i64,
    responses: i64,
}

impl TeamSlot {
    /// The slot as a sum the core measures (`None` for a provider this build does not know).
    fn sum(&self, tiers: &[u64]) -> Option<Sum> {
        let count = |n: i64| u64::try_from(n).unwrap_or(0);
        Some(Sum {
            entry: UsageEntry {
                provider: Provider::named(&self.provider)?,
                at: Timestamp::from_millis(self.slot.saturating_mul(tally::SLOT_MILLIS)),
                session: Arc::from(""),
                project: None,
                model: self.model.as_deref().map(Arc::from),
                tokens: TokenTotals {
                    input_tokens: count(self.tokens[0]),
                    output_tokens: count(self.tokens[1]),
                    cache_creation_tokens: count(self.tokens[2]),
                    cache_read_tokens: count(self.tokens[3]),
                    reasoning_tokens: count(self.tokens[4]),
                },
                cache_creation_1h_tokens: count(self.tokens[5]),
                request_context_tokens: Some(tally::context_of_tier(self.tier, tiers)),
                recorded_cost_micro_usd: self.recorded.then(|| count(self.recorded_cost_micro_usd)),
                fast: tally::fast_of_tier(self.tier),
                web_searches: count(self.web_searches),
                delegated: false,
            },
            responses: count(self.responses),
        })
    }
}

/// What the team database said for a measure: its budget and the other machines' usage.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TeamFigures {
    /// The server (its URL without a password).
    pub server: String,
    /// This machine's id (its own rows are read from its index, not the server).
    pub machine: String,
    /// When the server said it.
    pub fetched_at: Timestamp,
    /// The budget; `None` when the team has none.
    pub budget: Option<TeamBudget>,
    /// The other machines that sent usage in the budget's periods.
    pub machines: usize,
    /// Their usage since `since`.
    slots: Vec<TeamSlot>,
    /// From when the slots were read.
    pub since: Option<Timestamp>,
    /// When the server was last asked and did not answer (after `fetched_at`), and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed: Option<(Timestamp, String)>,
}

impl TeamFigures {
    /// The other machines' usage as sums, in time order.
    pub fn sums(&self, tiers: &[u64]) -> Vec<Sum> {
        self.slots.iter().filter_map(|s| s.sum(tiers)).collect()
    }
}

/// The team's figures and where they came from this time.
#[derive(Debug, Clone)]
pub struct TeamRead {
    /// The figures.
    pub figures: TeamFigures,
    /// Whether the server was asked now (else what it said last was used).
    pub asked: bool,
}

/// The team database's URL for the ledger: `BATON_TEAM_URL`, else `url` under `[team]` or
/// `[sync]` in its config.toml, else `BATON_SYNC_URL`.
pub fn team_url(ledger: &Ledger) -> Result<Option<String>, Error> {
    if let Ok(url) = crate::os::env::var("BATON_TEAM_URL") {
        return Ok(Some(url));
    }
    if let Some(url) = TeamSettings::read(ledger.dir())?.url(&["team", "sync"]) {
        return Ok(Some(url));
    }
    Ok(crate::os::env::var("BATON_SYNC_URL").ok())
}

/// The team budget, or `None` when the team has none (or the server's schema predates it).
pub fn read(url: &str) -> Result<Option<TeamBudget>, Error> {
    connect::block_on(async {
        let client = connect::connect(url).await?;
        read_with(&client).await
    })
}

async fn read_with(client: &tokio_postgres::Client) -> Result<Option<TeamBudget>, Error> {
    // One round trip: a server whose schema predates the table has no budget.
    let rows = client
        .query_typed(
            "SELECT policy, set_by::text, (extract(epoch FROM set_at) * 1000)::bigint
             FROM baton_budget WHERE team = ''",
            &[],
        )
        .await;
    let rows = match rows {
        Ok(rows) => rows,
        Err(e) => {
            let code = e.as_db_error().map(|db| db.code().clone());
            if code == Some(tokio_postgres::error::SqlState::UNDEFINED_TABLE) {
                return Ok(None);
            }
            let err = pg_error("read the team budget", e);
            if code == Some(tokio_postgres::error::SqlState::INSUFFICIENT_PRIVILEGE) {
                let message = format!(
                    "{}: this role may not read the team budget; the schema's owner grants it once: GRANT SELECT ON baton_budget TO baton_writer, baton_reader",
                    err.message
                );
                return Err(Error::new(err.code, message).with("operation", "read the team budget"));
            }
            return Err(err);
        }
    };
    let Some(row) = rows.first() else {
        return Ok(None);
    };
    let policy: BudgetPolicy = serde_json::from_str(row.get::<_, &str>(0)).map_err(|e| {
        sync_error(
            "read the team budget",
            format!("the server's budget was set by a newer Baton ({e}): update Baton"),
        )
    })?;
    Ok(Some(TeamBudget {
        policy,
        set_by: row.get(1),
        set_at: Timestamp::from_millis(row.get(2)),
    }))
}

/// Sets the team budget to `policy` (checked as a team budget), or removes it (`None`); the
/// schema brought up to date first. Returns what the server then holds.
pub fn write(url: &str, policy: Option<&BudgetPolicy>) -> Result<Option<TeamBudget>, Error> {
    if let Some(policy) = policy {
        policy.check_team()?;
        if policy.is_empty() && policy.warn_percent.is_some() {
            return Err(Error::invalid(
                "budget",
                "a warning share alone limits nothing: set a limit too (day_usd, week_usd, month_usd or window_usd), or `baton team budget clear`",
            ));
        }
    }
    connect::block_on(async {
        let mut client = connect::connect(url).await?;
        schema::migrate(&mut client).await?;
        let denied = |e: tokio_postgres::Error| {
            let refused = e.as_db_error().is_some_and(|db| {
                db.code() == &tokio_postgres::error::SqlState::INSUFFICIENT_PRIVILEGE
            });
            let err = pg_error("set the team budget", e);
            if refused {
                let message = format!(
                    "{}: this role may not set the team budget; the schema's owner sets it (or grants a role the right: see the README's \"Team budget\")",
                    err.message
                );
                return Error::new(err.code, message).with("operation", "set the team budget");
            }
            err
        };
        match policy.filter(|p| !p.is_empty()) {
            Some(policy) => {
                let text = serde_json::to_string(policy)
                    .map_err(|e| sync_error("set the team budget", e))?;
                let written = client
                    .execute(
                        "INSERT INTO baton_budget (team, policy) VALUES ('', $1)
                         ON CONFLICT (team) DO UPDATE
                         SET policy = excluded.policy, set_by = current_user, set_at = now()",
                        &[&text],
                    )
                    .await
                    .map_err(denied)?;
                if written == 0 {
                    return Err(sync_error(
                        "set the team budget",
                        "the server kept the old budget: this role may not change it",
                    ));
                }
            }
            None => {
                client
                    .execute("DELETE FROM baton_budget WHERE team = ''", &[])
                    .await
                    .map_err(denied)?;
            }
        }
        let held = read_with(&client).await?;
        if policy.is_none() && held.is_some() {
            return Err(sync_error(
                "clear the team budget",
                "the server kept the budget: this role may not change it",
            ));
        }
        Ok(held)
    })
}

/// The budget and the usage of every machine but `machine` since the instant `since_of` gives
/// for the budget (none read without a budget or an instant).
async fn fetch(
    url: &str,
    machine: uuid::Uuid,
    since_of: &dyn Fn(&BudgetPolicy) -> Option<Timestamp>,
    now: Timestamp,
    tiers: &[u64],
) -> Result<TeamFigures, Error> {
    let client = connect::connect(url).await?;
    let budget = read_with(&client).await?;
    let since = budget.as_ref().and_then(|b| since_of(&b.policy));
    let mut figures = TeamFigures {
        server: connect::redacted(url),
        machine: machine.to_string(),
        fetched_at: now,
        budget,
        machines: 0,
        slots: Vec::new(),
        since,
        failed: None,
    };
    let Some(since) = since else {
        return Ok(figures);
    };
    let tier = tally::tier_expression("", tiers, tally::Dialect::Postgres);
    // Each response once, whichever machines sent it (two workspaces of one user send the
    // same index), and none this machine sent (its own come from its index).
    let query = format!(
        "WITH rows AS (
             SELECT DISTINCT ON (key, provider_session, at) *
             FROM baton_usage
             WHERE machine <> $1 AND at >= to_timestamp($2::bigint / 1000.0)
               AND (key, provider_session, at) NOT IN (
                   SELECT key, provider_session, at FROM baton_usage
                   WHERE machine = $1 AND at >= to_timestamp($2::bigint / 1000.0))
             ORDER BY key, provider_session, at, machine)
         SELECT provider, floor(extract(epoch FROM at) * 1000 / {slot})::bigint AS slot, model,
                {tier} AS tier, recorded_cost_micro_usd IS NOT NULL AS recorded,
                sum(input_tokens)::bigint, sum(output_tokens)::bigint,
                sum(cache_creation_tokens)::bigint, sum(cache_read_tokens)::bigint,
                sum(reasoning_tokens)::bigint,
                sum(least(cache_creation_1h_tokens, cache_creation_tokens))::bigint,
                coalesce(sum(recorded_cost_micro_usd), 0)::bigint, sum(web_searches)::bigint,
                count(*), (SELECT count(DISTINCT machine) FROM rows)
         FROM rows
         GROUP BY 1, 2, 3, 4, 5 ORDER BY 2",
        slot = tally::SLOT_MILLIS,
    );
    let rows = client
        .query_typed(
            &query,
            &[
                (&machine, tokio_postgres::types::Type::UUID),
                (&since.millis(), tokio_postgres::types::Type::INT8),
            ],
        )
        .await
        .map_err(|e| pg_error("read the team's usage", e))?;
    figures.machines = rows
        .first()
        .map_or(0, |row| usize::try_from(row.get::<_, i64>(14)).unwrap_or(0));
    figures.slots = rows
        .iter()
        .map(|row| TeamSlot {
            provider: row.get(0),
            slot: row.get(1),
            model: row.get(2),
            tier: i64::from(row.get::<_, i32>(3)),
            recorded: row.get(4),
            tokens: [
                row.get(5),
                row.get(6),
                row.get(7),
                row.get(8),
                row.get(9),
                row.get(10),
            ],
            recorded_cost_micro_usd: row.get(11),
            web_searches: row.get(12),
            responses: row.get(13),
        })
        .collect();
    Ok(figures)
}

/// Forgets what the server last said for the ledger's machine (its budget was just changed
/// here: the next pull asks again).
pub fn forget(ledger: &Ledger) {
    let machine = existing_machine_id(ledger).unwrap_or(uuid::Uuid::nil());
    if let Some(path) = cache_path(machine) {
        let _ = std::fs::remove_file(path);
    }
}

/// Where what the server last said is kept for the ledger's machine.
fn cache_path(machine: uuid::Uuid) -> Option<std::path::PathBuf> {
    crate::os::places::cache_dir()
        .map(|dir| dir.join("team-budget").join(format!("{machine}.json")))
}

/// The team's budget and the other machines' usage for a measure at `now`, when the ledger
/// has a team database: asked of the server (waiting at most a moment on a pull, `pull`),
/// else what it said last. A pull within a short while of the last time it was asked does not
/// ask again. `None` when there is no team database; an error when it has never answered.
pub fn figures(
    ledger: &Ledger,
    since_of: &dyn Fn(&BudgetPolicy) -> Option<Timestamp>,
    now: Timestamp,
    pull: bool,
    tiers: &[u64],
) -> Result<Option<TeamRead>, Error> {
    let Some(url) = team_url(ledger)? else {
        return Ok(None);
    };
    // This machine's id, when it has synced (a ledger that never did has no rows there).
    let machine = existing_machine_id(ledger).unwrap_or(uuid::Uuid::nil());
    let path = cache_path(machine);
    let kept: Option<TeamFigures> = path
        .as_ref()
        .and_then(|path| {
            let text = crate::os::files::read_regular_text(path, 64 << 20).ok()?;
            serde_json::from_str(&text).ok()
        })
        .filter(|k: &TeamFigures| k.server == connect::redacted(&url));
    let keep = |figures: &TeamFigures| {
        if let Some(path) = &path {
            if let Some(dir) = path.parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            if let Ok(text) = serde_json::to_vec(figures) {
                let _ = crate::os::files::write_whole(path, &text);
            }
        }
    };
    if pull && let Some(kept) = &kept {
        let asked_at = kept
            .failed
            .as_ref()
            .map_or(kept.fetched_at, |(at, _)| (*at).max(kept.fetched_at));
        if (0..FRESH_MS).contains(&(now.millis() - asked_at.millis())) {
            return Ok(Some(TeamRead {
                figures: kept.clone(),
                asked: false,
            }));
        }
    }
    let wait = if pull { PULL_WAIT } else { SHOW_WAIT };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| sync_error("start the runtime", e))?;
    let asked = runtime.block_on(async {
        tokio::time::timeout(wait, fetch(&url, machine, since_of, now, tiers))
            .await
            .unwrap_or_else(|_| {
                Err(sync_error(
                    "read the team budget",
                    format!("no answer within {} ms", wait.as_millis()),
                ))
            })
    });
    // Not waiting for what the timeout left behind (a name lookup runs on a thread of its
    // own, and would hold the pull until the resolver gives up).
    runtime.shutdown_background();
    match (asked, kept) {
        (Ok(figures), _) => {
            keep(&figures);
            Ok(Some(TeamRead {
                figures,
                asked: true,
            }))
        }
        (Err(err), Some(mut kept)) => {
            kept.failed = Some((now, err.message));
            keep(&kept);
            Ok(Some(TeamRead {
                figures: kept,
                asked: false,
            }))
        }
        (Err(err), None) => {
            // Said once, and asked again only after a while: a server that never answered
            // holds up no pull for long.
            keep(&TeamFigures {
                server: connect::redacted(&url),
                machine: machine.to_string(),
                fetched_at: Timestamp::from_millis(0),
                budget: None,
                machines: 0,
                slots: Vec::new(),
                since: None,
                failed: Some((now, err.message.clone())),
            });
            Err(err)
        }
    }
}

/// This ledger's machine id when it has one (`baton sync` makes it); never made here.
fn existing_machine_id(ledger: &Ledger) -> Option<uuid::Uuid> {
    let text = crate::os::files::read_regular_text(ledger.dir().join("machine-id"), 4096).ok()?;
    uuid::Uuid::parse_str(text.trim()).ok()
}
