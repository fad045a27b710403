//! Codex's service tier: its rollouts do not say which tier served a turn, so Baton takes the
//! one Codex's own `config.toml` asks for (`service_tier = "priority"`, or the older `"fast"`)
//! and prices Codex's responses at the model's priority rates from the time that file was last
//! written (when the setting can have begun) on. Read once a process, from each Codex home
//! (`CODEX_HOME`, else `~/.codex`); one asking for priority is enough, as Codex applies it to
//! every turn while it is set.

use baton_core::Timestamp;
use baton_core::transcripts::{Provider, UsageEntry};

/// Since when Codex has asked for the priority tier: the last change of a Codex home's
/// `config.toml` that sets it (the earliest, when several do); `None` when none does.
pub fn codex_priority_since() -> Option<Timestamp> {
    static SINCE: std::sync::OnceLock<Option<Timestamp>> = std::sync::OnceLock::new();
    *SINCE.get_or_init(|| {
        crate::os::places::provider_dirs(Provider::Codex)
            .iter()
            .filter_map(|sessions| sessions.parent())
            .filter_map(|home| asks_priority(&home.join("config.toml")))
            .min()
    })
}

/// When the config file at `path` was last written, if it sets `service_tier` to `priority`
/// (or `fast`).
fn asks_priority(path: &std::path::Path) -> Option<Timestamp> {
    let text = crate::os::files::read_regular_text(path, 1 << 20).ok()?;
    let table = text.parse::<toml::Table>().ok()?;
    let asked = matches!(
        table.get("service_tier").and_then(toml::Value::as_str),
        Some("priority" | "fast")
    );
    let written = std::fs::metadata(path).ok()?.modified().ok()?;
    let millis = written
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_millis();
    asked.then(|| Timestamp::from_millis(i64::try_from(millis).unwrap_or(i64::MAX)))
}

/// Whether `entry` was served at Codex's priority tier (see the module's rule).
pub fn is_priority(entry: &UsageEntry) -> bool {
    entry.provider == Provider::Codex
        && codex_priority_since().is_some_and(|since| entry.at >= since)
}

/// Marks `entries`' Codex responses served at the priority tier as served fast.
pub fn mark(entries: &mut [UsageEntry]) {
    if !entries.iter().any(|e| e.provider == Provider::Codex) {
        return;
    }
    for entry in entries.iter_mut() {
        if is_priority(entry) {
            entry.fast = true;
        }
    }
}
