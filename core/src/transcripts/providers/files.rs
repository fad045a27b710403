//! Which files are a provider's: by their names and the folders they sit in, the files a
//! host walking folders passes over, and the agent a transcript's name points to.

use super::{Entry, Kind, REGISTRY};
use crate::transcripts::Provider;

/// The agent whose transcript a file named `name` is, by the start of its name: an agent
/// whose files have a prefix of their own when the name has it, else the agent whose files have
/// none (Claude Code, named by its session id).
pub fn agent_of_transcript(name: &str) -> Option<Provider> {
    let agents = || REGISTRY.iter().filter(|e| e.kind == Kind::Agent);
    agents()
        .find(|e| e.gives.file_prefix.is_some_and(|p| name.starts_with(p)))
        .or_else(|| agents().find(|e| e.gives.file_prefix.is_none()))
        .map(|e| e.provider)
}

/// Whether a host walking folders a person named passes over the file at `path` (`/` or `\`
/// separated): a file that ends like an agent's transcript but is its bookkeeping
/// (`.ledger.jsonl`), and a file under an agent's own folder (`.gemini/…`) that is not one of
/// its transcripts (its settings, credentials, logs and usage files).
pub fn passed_over(path: &str) -> bool {
    let folders: Vec<&str> = path.split(['/', '\\']).filter(|f| !f.is_empty()).collect();
    REGISTRY
        .iter()
        .filter(|e| matches!(e.kind, Kind::Agent | Kind::Document))
        .any(|entry| {
            let name = folders.last().copied().unwrap_or("");
            if entry.names.not_ending.iter().any(|e| name.ends_with(e))
                || entry.names.beside.contains(&name)
                || entry.names.above.iter().any(|above| above.name == name)
            {
                return true;
            }
            let Some(own) = entry.names.own_folder else {
                return false;
            };
            let Some(at) = folders.iter().position(|f| *f == own) else {
                return false;
            };
            // One of the files of an agent whose home is there (`.cursor` holds Cursor's
            // agent transcripts and `cursor-agent`'s chats).
            let below = folders[at..].join("/");
            let wanted = REGISTRY.iter().any(|other| {
                other.homes.linux.iter().any(|place| {
                    below
                        .strip_prefix(place.path)
                        .is_some_and(|rest| rest.starts_with('/'))
                }) && other.wants_file(path)
            });
            !wanted
        })
}

/// Which of `paths` (files found under folders a person named) a host passes over: an
/// export's side files and a ledger's state
/// ([`crate::transcripts::export_files::skipped_export_files`]), and an agent's files that are
/// not its transcripts ([`passed_over`]). One flag per path, in order.
pub fn skipped_files<S: AsRef<str>>(paths: &[S]) -> Vec<bool> {
    let mut skipped = crate::transcripts::export_files::skipped_export_files(paths);
    for (flag, path) in skipped.iter_mut().zip(paths) {
        *flag |= passed_over(path.as_ref());
    }
    skipped
}

/// The keys of the agents among `found` whose files keep no token counts (Cursor), in the
/// registry's order: a usage report names them rather than count them as zero. Exports are
/// not agents and are left out.
pub fn without_tokens(found: impl IntoIterator<Item = Provider>) -> Vec<String> {
    let found: std::collections::BTreeSet<Provider> = found.into_iter().collect();
    REGISTRY
        .iter()
        .filter(|e| !e.gives.tokens && e.kind != Kind::Export && found.contains(&e.provider))
        .map(|e| e.key.to_owned())
        .collect()
}

/// Whether `extension` (without the dot) is one an agent's database has (`db`, Cursor's
/// `vscdb`): such a file may have a write-ahead log beside it.
pub fn is_database_extension(extension: &str) -> bool {
    REGISTRY
        .iter()
        .filter(|e| e.kind == Kind::Database)
        .any(|e| e.extensions.contains(&extension))
}

/// Whether the file at `path` is one that is given the companions found beside it (a
/// registry entry's `only_named` transcript, when the entry has companions).
pub fn takes_companions(path: &str) -> bool {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    REGISTRY
        .iter()
        .any(|entry| !entry.names.companions.is_empty() && entry.names.only_named == Some(name))
}

/// Whether the file at `path` is one an agent's readers are given beside its transcript (a
/// registry entry's `companions`, by its name).
pub fn is_companion(path: &str) -> bool {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    REGISTRY
        .iter()
        .any(|entry| entry.names.companions.contains(&name))
}

/// How far above a transcript's folder the file at `path` may sit and still say where the
/// transcripts below it were made (the registry's `above`: VS Code's `workspace.json`), when
/// it is such a file found in a folder. A host reading a folder's files gives it to each
/// transcript that many folders below it or fewer.
pub fn above_levels(path: &str) -> Option<usize> {
    let (folder, name) = path.rsplit_once(['/', '\\'])?;
    if folder.is_empty() {
        return None;
    }
    REGISTRY
        .iter()
        .flat_map(|entry| entry.names.above)
        .filter(|above| above.name == name)
        .map(|above| above.levels)
        .max()
}

impl Entry {
    /// Whether the file at `path` (`/` or `\` separated, from the provider's folder or whole)
    /// is one of its sources: a transcript by its ending and the folders its transcripts sit
    /// in; for an export, a zip archive or a conversations file (`conversations.json`, or a
    /// numbered part of a large export).
    pub fn wants_file(&self, path: &str) -> bool {
        let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
        match self.kind {
            Kind::Agent | Kind::Document => {
                let ends = self.has_extension(name);
                let mut folders = path.split(['/', '\\']).rev().skip(1);
                // A folder named so, or whose name ends so (`emptyWindowChatSessions`).
                let within = self.names.within.is_none_or(|folder| {
                    folders.any(|f| {
                        f == folder
                            || (f.len() > folder.len()
                                && f.to_ascii_lowercase()
                                    .ends_with(&folder.to_ascii_lowercase()))
                    })
                });
                let named = self.names.only_named.is_none_or(|only| {
                    name == only
                        || (self.names.or_session_named
                            && name
                                .rsplit_once('.')
                                .is_some_and(|(stem, _)| uuid::Uuid::try_parse(stem).is_ok()))
                });
                // A document's name may start as its agent names them (Amp's `T-`).
                let prefixed = self.kind == Kind::Agent
                    || self.gives.file_prefix.is_none_or(|p| name.starts_with(p));
                ends && within
                    && named
                    && prefixed
                    && !self.names.not_ending.iter().any(|e| name.ends_with(e))
            }
            Kind::Database => self.has_extension(name),
            Kind::Export => {
                name.ends_with(".zip")
                    || crate::transcripts::export_files::is_conversations_entry(name)
            }
        }
    }

    /// Whether the file name `name` ends in one of the entry's extensions (after a dot).
    fn has_extension(&self, name: &str) -> bool {
        self.extensions
            .iter()
            .any(|e| name.strip_suffix(e).is_some_and(|s| s.ends_with('.')))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_recognised_by_kind() {
        let claude = Provider::ClaudeCode.entry();
        assert!(claude.wants_file("0199.jsonl"));
        assert!(!claude.wants_file("notes.json"));
        assert!(!claude.wants_file("jsonl"));
        let chatgpt = Provider::Chatgpt.entry();
        assert!(chatgpt.wants_file("export.zip"));
        assert!(chatgpt.wants_file("conversations.json"));
        assert!(!chatgpt.wants_file("user.json"));
        assert_eq!(
            agent_of_transcript("rollout-2026-07-18T20-00-00-0199.jsonl"),
            Some(Provider::Codex)
        );
        assert_eq!(
            agent_of_transcript("0199c0de.jsonl"),
            Some(Provider::ClaudeCode)
        );
        let gemini = Provider::Gemini.entry();
        assert!(gemini.wants_file("/h/.gemini/tmp/app/chats/session-2026-08-21T16-16-3f2a.jsonl"));
        assert!(gemini.wants_file("app\\chats\\3f2a\\agent.jsonl"));
        assert!(!gemini.wants_file("/h/.gemini/tmp/app/logs/session-3f2a.jsonl"));
        assert!(!gemini.wants_file("/h/.gemini/tmp/chats"));
        let qwen = Provider::Qwen.entry();
        assert!(qwen.wants_file("p/chats/69f0814a-8bfc-4c8e-93d3-05757f17b96f.jsonl"));
        assert!(!qwen.wants_file("p/chats/69f0814a.ledger.jsonl"));
        assert!(passed_over(".gemini/oauth_creds.json"));
        assert!(passed_over("me/.gemini/tmp/app/logs/session-1.jsonl"));
        assert!(!passed_over("me/.gemini/tmp/app/chats/session-1.jsonl"));
        assert!(passed_over(".qwen/usage/token-usage-2026-08.jsonl"));
        assert!(passed_over("projects/p/chats/69f0814a.ledger.jsonl"));
        assert!(passed_over("projects/p/chats/69f0814a.runtime.json"));
        assert!(!passed_over(".qwen/projects/p/chats/69f0814a.jsonl"));
        assert!(!passed_over(".claude/projects/p/s.jsonl"));
        assert!(!passed_over("exports/conversations.json"));
        let copilot = Provider::CopilotCli.entry();
        assert!(copilot.wants_file("/h/.copilot/session-state/3f2a/events.jsonl"));
        assert!(copilot.wants_file("3f2a/events.jsonl"));
        let flat = "c98e7b07-9eaa-47f0-8d65-b63a8f42ff5f.jsonl";
        assert!(copilot.wants_file(&format!("/h/.copilot/session-state/{flat}")));
        assert!(copilot.wants_file(flat));
        assert!(!copilot.wants_file("/h/.copilot/session-state/3f2a/files/data.jsonl"));
        assert!(!copilot.wants_file("/h/.copilot/otel/trace.jsonl"));
        assert!(passed_over("h/.copilot/otel/trace.jsonl"));
        let aider = Provider::Aider.entry();
        assert!(aider.wants_file("/w/app/.aider.chat.history.md"));
        assert!(!aider.wants_file("/w/app/README.md"));
        assert!(!aider.wants_file("/w/app/0199c0de-0000-7000-8000-000000000001.md"));
        let amp = Provider::Amp.entry();
        assert!(amp.wants_file("/h/.local/share/amp/threads/T-019ca26f-aaaa.json"));
        assert!(!amp.wants_file("/h/.local/share/amp/threads/settings.json"));
        assert!(!passed_over("h/.copilot/session-state/3f2a/events.jsonl"));
        let roo = Provider::RooCode.entry();
        let tasks = "/h/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks/019c";
        assert!(roo.wants_file(&format!("{tasks}/ui_messages.json")));
        assert!(!roo.wants_file(&format!("{tasks}/api_conversation_history.json")));
        assert!(!roo.wants_file(&format!("{tasks}/ui_messages.json.tmp.17.ab.json")));
        assert!(is_companion(&format!("{tasks}/history_item.json")));
        assert!(!is_companion(&format!("{tasks}/ui_messages.json")));
        let workspace = "/h/.config/Code/User/workspaceStorage/455c";
        assert_eq!(
            above_levels(&format!("{workspace}/workspace.json")),
            Some(1)
        );
        assert_eq!(
            above_levels(&format!("{workspace}/chatSessions/a.jsonl")),
            None
        );
        assert_eq!(above_levels("workspace.json"), None);
        assert_eq!(above_levels("me/.gemini/projects.json"), Some(4));
        assert!(passed_over(&format!("{workspace}/workspace.json")));
        assert!(passed_over("me/.gemini/projects.json"));
        // The files beside a task's panel file are its own: not passed over as another's.
        assert!(!passed_over(
            &format!("{tasks}/api_conversation_history.json")[1..]
        ));
    }
}
