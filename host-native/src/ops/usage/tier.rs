//! Codex's service tier: its rollouts do not say which tier served a turn, so Baton takes the
//! one Codex's own `config.toml` asks for (`service_tier = "priority"`, or the older `"fast"`)
//! and prices Codex's responses at the model's priority rates when it does. Read once a
//! process, from each Codex home (`CODEX_HOME`, else `~/.codex`); one asking for priority is
//! enough, as Codex applies it to every turn while it is set.

use baton_core::transcripts::{Provider, UsageEntry};

/// Whether a Codex home's `config.toml` asks for the priority tier.
pub fn codex_priority() -> bool {
    static ASKED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ASKED.get_or_init(|| {
        crate::os::places::provider_dirs(Provider::Codex)
            .iter()
            .filter_map(|sessions| sessions.parent())
            .any(|home| asks_priority(&home.join("config.toml")))
    })
}

/// Whether the config file at `path` sets `service_tier` to `priority` (or `fast`).
fn asks_priority(path: &std::path::Path) -> bool {
    let Ok(text) = crate::os::files::read_regular_text(path, 1 << 20) else {
        return false;
    };
    let Ok(table) = text.parse::<toml::Table>() else {
        return false;
    };
    matches!(
        table.get("service_tier").and_then(toml::Value::as_str),
        Some("priority" | "fast")
    )
}

/// Marks `entries`' Codex responses as served fast when Codex asks for the priority tier.
pub fn mark(entries: &mut [UsageEntry]) {
    if entries.iter().any(|e| e.provider == Provider::Codex) && codex_priority() {
        for entry in entries.iter_mut().filter(|e| e.provider == Provider::Codex) {
            entry.fast = true;
        }
    }
}
