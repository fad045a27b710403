//! Which attention items are open (most urgent first) and which of them a request picks: read
//! by the attention list, by marking items done, and by the trust check on an agent's request.

use crate::commands::params::AttentionDoneParams;
use crate::error::{Error, Result};
use crate::ids::WORKSPACE_STREAM;
use crate::ledger::store::LedgerView;
use crate::lifecycle::verdict;
use crate::lifecycle::workspace::{AttentionItem, Workspace};

/// The attention items still open, most urgent first: an agent-gone item whose session has
/// ended meanwhile no longer needs anyone.
pub(crate) fn open_attention(view: &dyn LedgerView) -> Result<Vec<AttentionItem>> {
    let ws = Workspace::from_history(view.history(WORKSPACE_STREAM)?.as_ref());
    let mut items = ws.attention;
    let mut ended = std::collections::HashMap::new();
    for item in &items {
        if item.topic.as_deref() == Some(verdict::AGENT_GONE) {
            let live = view
                .history(item.session_id)?
                .and_then(|h| h.session())
                .is_some_and(|s| s.is_live());
            ended.insert(item.id, !live);
        }
    }
    items.retain(|item| !ended.get(&item.id).copied().unwrap_or(false));
    items.sort_by(|a, b| b.urgency.cmp(&a.urgency).then(a.number.cmp(&b.number)));
    Ok(items)
}

/// The open attention items `p` picks: those numbered, every one (`all`), or those raised at
/// least `older_than_seconds` before `now` (with numbers or `all`, only the old enough among
/// them). A number that names no open item is refused, with the open ones in the details.
pub(crate) fn picked_attention(
    view: &dyn LedgerView,
    p: &AttentionDoneParams,
    now: crate::time::Timestamp,
) -> Result<Vec<AttentionItem>> {
    let open = open_attention(view)?;
    if p.numbers.is_empty() && !p.all && p.older_than_seconds.is_none() {
        return Err(Error::invalid(
            "numbers",
            "name the items to mark done by number, or give all or older_than_seconds",
        ));
    }
    if let Some(missing) = p
        .numbers
        .iter()
        .find(|n| !open.iter().any(|item| item.number == **n))
    {
        let numbers: Vec<u32> = open.iter().map(|item| item.number).collect();
        return Err(Error::invalid(
            "numbers",
            format!(
                "no open attention item is numbered {missing}{}",
                if numbers.is_empty() {
                    " (none is open)".to_owned()
                } else {
                    format!(
                        "; the open ones are {}",
                        numbers
                            .iter()
                            .map(u32::to_string)
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                }
            ),
        )
        .with("open", numbers));
    }
    let cutoff = p.older_than_seconds.map(|seconds| {
        now.millis()
            .saturating_sub(i64::try_from(seconds.saturating_mul(1000)).unwrap_or(i64::MAX))
    });
    Ok(open
        .into_iter()
        .filter(|item| p.all || p.numbers.is_empty() || p.numbers.contains(&item.number))
        .filter(|item| cutoff.is_none_or(|cutoff| item.at.millis() <= cutoff))
        .collect())
}
