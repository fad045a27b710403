//! What the mirror reads and how often: each setting from its flag, else its environment
//! variable, else the `[mirror]` table of `.baton/config.toml`, else its default. A value that
//! makes no sense (an interval of 0, a word where a number goes) is never obeyed: the default
//! is used and a warning names the variable and what it said.

use baton_core::transcripts::Provider;
use baton_core::transcripts::providers::{Kind, REGISTRY};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

/// How often `--follow` looks when the platform gives no notifications (and the default).
pub const DEFAULT_POLL: Duration = Duration::from_secs(2);

/// Each provider's something, in the registry's order.
pub type PerProvider<T> = BTreeMap<Provider, T>;

/// The mirror's settings, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// Each provider's folders: Claude Code's `projects/`, Codex's `sessions/`, the folders
    /// where exports are dropped, zipped or not (empty: that provider is not mirrored).
    pub folders: PerProvider<Vec<PathBuf>>,
    /// The largest export file read, per export.
    pub max_bytes: PerProvider<u64>,
    /// How often a `--follow` without notifications looks for changes.
    pub poll: Duration,
    /// Whether files already there at their first sight are read from their start (else only
    /// what is appended to them later is kept; new files are read whole).
    pub backfill: bool,
}

impl Settings {
    /// One provider's folders.
    pub fn folders_of(&self, provider: Provider) -> &[PathBuf] {
        self.folders.get(&provider).map_or(&[], Vec::as_slice)
    }

    /// Every folder read.
    pub fn roots(&self) -> impl Iterator<Item = &PathBuf> {
        self.folders.values().flatten()
    }

    /// The files the folders hold now.
    pub fn sources(&self) -> Vec<super::pass::Source> {
        super::pass::discover(&self.folders)
    }

    /// Whose transcript a file under the folders is; `None` outside them.
    pub fn provider_of(&self, path: &std::path::Path) -> Option<Provider> {
        self.folders
            .iter()
            .find(|(_, dirs)| dirs.iter().any(|d| path.starts_with(d)))
            .map(|(provider, _)| *provider)
    }

    /// How a pass reads, from these settings.
    pub fn pass_options(&self, backfill: bool, sweep_missing: bool) -> super::pass::PassOptions {
        let mut max_bytes = [super::pass::DEFAULT_EXPORT_MAX_BYTES; Provider::ALL.len()];
        for (provider, bytes) in &self.max_bytes {
            max_bytes[*provider as usize] = *bytes;
        }
        super::pass::PassOptions {
            backfill,
            sweep_missing,
            max_bytes,
            read_ahead: true,
        }
    }
}

/// What the command line said (each `None` or empty when it said nothing).
#[derive(Debug, Clone, Default)]
pub struct Flags {
    /// `--claude-dir`, `--codex-dir`, `--chatgpt-dir`, `--claude-ai-dir`: the folders named,
    /// by provider.
    pub folders: PerProvider<Vec<PathBuf>>,
    /// `--poll-secs`.
    pub poll_secs: Option<u64>,
    /// `--no-backfill`.
    pub no_backfill: bool,
}

/// Where the settings come from besides the flags: the environment and `config.toml`.
pub struct Context<'a> {
    /// An environment variable's value.
    pub env: &'a dyn Fn(&str) -> Option<String>,
    /// The `[mirror]` table of `config.toml`, when there is one.
    pub config: Option<&'a toml::Table>,
    /// Each provider's default folders.
    pub defaults: PerProvider<Vec<PathBuf>>,
}

impl std::fmt::Debug for Context<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("config", &self.config)
            .field("defaults", &self.defaults)
            .finish_non_exhaustive()
    }
}

/// A value as it was given, and where.
struct Given {
    text: String,
    source: String,
}

impl Context<'_> {
    /// The variable's value, else the config key's (as text).
    fn given(&self, variable: &str, key: &str) -> Option<Given> {
        if let Some(text) = (self.env)(variable).filter(|t| !t.trim().is_empty()) {
            return Some(Given {
                text,
                source: variable.to_owned(),
            });
        }
        let value = self.config?.get(key)?;
        let text = match value {
            toml::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        Some(Given {
            text,
            source: format!("[mirror] {key} in config.toml"),
        })
    }

    fn switch(&self, variable: &str, key: &str, default: bool, warn: &mut Vec<String>) -> bool {
        let Some(given) = self.given(variable, key) else {
            return default;
        };
        match given.text.trim().to_ascii_lowercase().as_str() {
            "1" | "true" | "yes" | "on" => true,
            "0" | "false" | "no" | "off" => false,
            _ => {
                warn.push(format!(
                    "{} is {:?}, not true or false: using the default ({default})",
                    given.source, given.text
                ));
                default
            }
        }
    }

    fn folders(&self, variable: &str, key: &str, default: Vec<PathBuf>) -> Vec<PathBuf> {
        if let Some(text) = (self.env)(variable).filter(|t| !t.trim().is_empty()) {
            return std::env::split_paths(&text)
                .filter(|p| !p.as_os_str().is_empty())
                .collect();
        }
        match self.config.and_then(|c| c.get(key)) {
            Some(toml::Value::String(one)) => vec![PathBuf::from(one)],
            Some(toml::Value::Array(many)) => many
                .iter()
                .filter_map(|v| v.as_str())
                .map(PathBuf::from)
                .collect(),
            _ => default,
        }
    }
}

/// One provider's folders: the flag's, else (when switched on) the variable's, the config's
/// or the default.
fn provider_folders(
    context: &Context<'_>,
    flag: &[PathBuf],
    name: &str,
    key: &str,
    default: &[PathBuf],
    warnings: &mut Vec<String>,
) -> Vec<PathBuf> {
    let on = context.switch(&format!("BATON_MIRROR_{name}_ENABLED"), key, true, warnings);
    if !flag.is_empty() {
        flag.to_vec()
    } else if on {
        context.folders(
            &format!("BATON_MIRROR_{name}_DIR"),
            &format!("{key}_dirs"),
            default.to_vec(),
        )
    } else {
        Vec::new()
    }
}

/// A size in bytes from its variable or config key, else `default`.
fn byte_cap(
    context: &Context<'_>,
    variable: &str,
    key: &str,
    default: u64,
    warnings: &mut Vec<String>,
) -> u64 {
    let Some(given) = context.given(variable, key) else {
        return default;
    };
    match given.text.trim().parse::<u64>() {
        Ok(bytes) if bytes > 0 => bytes,
        _ => {
            warnings.push(format!(
                "{} is {:?}, not a whole number of bytes above 0: using the default ({} MiB)",
                given.source,
                given.text,
                default >> 20
            ));
            default
        }
    }
}

/// Resolves every setting; `warnings` gets one line per value that was not obeyed.
pub fn resolve(flags: &Flags, context: &Context<'_>, warnings: &mut Vec<String>) -> Settings {
    let mut folders = PerProvider::new();
    let mut max_bytes = PerProvider::new();
    for entry in &REGISTRY {
        let word = entry.setting;
        let key = word.to_ascii_lowercase();
        let flag = flags
            .folders
            .get(&entry.provider)
            .map_or(&[][..], Vec::as_slice);
        let default = context
            .defaults
            .get(&entry.provider)
            .map_or(&[][..], Vec::as_slice);
        folders.insert(
            entry.provider,
            provider_folders(context, flag, word, &key, default, warnings),
        );
        if entry.kind == Kind::Export {
            max_bytes.insert(
                entry.provider,
                byte_cap(
                    context,
                    &format!("BATON_MIRROR_{word}_MAX_BYTES"),
                    &format!("{key}_max_bytes"),
                    super::pass::DEFAULT_EXPORT_MAX_BYTES,
                    warnings,
                ),
            );
        }
    }
    let poll = match flags.poll_secs {
        Some(0) => {
            warnings.push(format!(
                "--poll-secs 0 would never rest: using the default ({} s)",
                DEFAULT_POLL.as_secs()
            ));
            DEFAULT_POLL
        }
        Some(secs) => Duration::from_secs(secs),
        None => match context.given("BATON_MIRROR_POLL_SECS", "poll_secs") {
            None => DEFAULT_POLL,
            Some(given) => match given.text.trim().parse::<u64>() {
                Ok(secs) if secs > 0 => Duration::from_secs(secs),
                _ => {
                    warnings.push(format!(
                        "{} is {:?}, not a whole number of seconds above 0: using the default ({} s)",
                        given.source,
                        given.text,
                        DEFAULT_POLL.as_secs()
                    ));
                    DEFAULT_POLL
                }
            },
        },
    };
    let backfill =
        !flags.no_backfill && context.switch("BATON_MIRROR_BACKFILL", "backfill", true, warnings);
    Settings {
        folders,
        max_bytes,
        poll,
        backfill,
    }
}

/// Resolves the settings on this machine: its environment, the ledger's `config.toml` (a
/// file that is not TOML refuses the command, see [`crate::config`]), its default folders.
pub fn on_this_machine(
    flags: &Flags,
    ledger_dir: Option<&std::path::Path>,
    warnings: &mut Vec<String>,
) -> Result<Settings, baton_core::Error> {
    let config = ledger_dir
        .map(crate::config::ConfigFile::read)
        .transpose()?;
    let env = |name: &str| crate::os::env::var(name).ok();
    let context = Context {
        env: &env,
        config: config.as_deref().and_then(|c| c.table("mirror")),
        defaults: Provider::ALL
            .into_iter()
            .map(|p| (p, crate::os::places::provider_dirs(p)))
            .collect(),
    };
    Ok(resolve(flags, &context, warnings))
}

/// The mirror's settings on this machine ([`on_this_machine`]), each value that was not obeyed
/// said through the warnings sink.
pub fn resolved(
    flags: &Flags,
    ledger_dir: Option<&std::path::Path>,
) -> Result<Settings, baton_core::Error> {
    let mut warnings = Vec::new();
    let settings = on_this_machine(flags, ledger_dir, &mut warnings)?;
    for warning in &warnings {
        crate::os::warnings::warn(warning);
    }
    Ok(settings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use baton_core::transcripts::Provider as P;

    fn defaults() -> PerProvider<Vec<PathBuf>> {
        PerProvider::from([
            (
                P::ClaudeCode,
                vec![PathBuf::from("/home/u/.claude/projects")],
            ),
            (P::Codex, vec![PathBuf::from("/home/u/.codex/sessions")]),
            (P::Gemini, vec![PathBuf::from("/home/u/.gemini/tmp")]),
            (P::Qwen, vec![PathBuf::from("/home/u/.qwen/projects")]),
            (
                P::Opencode,
                vec![PathBuf::from("/home/u/.local/share/opencode")],
            ),
            (P::Kilo, vec![PathBuf::from("/home/u/.local/share/kilo")]),
            (
                P::CopilotCli,
                vec![PathBuf::from("/home/u/.copilot/session-state")],
            ),
            (
                P::Amp,
                vec![PathBuf::from("/home/u/.local/share/amp/threads")],
            ),
            // The repository the command runs in.
            (P::Aider, vec![PathBuf::from("/home/u/code/app")]),
            (
                P::CopilotChat,
                vec![PathBuf::from("/home/u/.config/Code/User/workspaceStorage")],
            ),
            // Each editor's extension folder (one named here for the test).
            (
                P::Cline,
                vec![PathBuf::from(
                    "/home/u/.config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks",
                )],
            ),
            (
                P::RooCode,
                vec![PathBuf::from(
                    "/home/u/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks",
                )],
            ),
            (
                P::KiloCode,
                vec![PathBuf::from(
                    "/home/u/.config/Code/User/globalStorage/kilocode.kilo-code/tasks",
                )],
            ),
            (
                P::Cursor,
                vec![PathBuf::from("/home/u/.config/Cursor/User/globalStorage")],
            ),
            (
                P::CursorTranscripts,
                vec![PathBuf::from("/home/u/.cursor/projects")],
            ),
            (P::CursorCli, vec![PathBuf::from("/home/u/.cursor/chats")]),
            (P::Chatgpt, vec![PathBuf::from("/home/u/.chatgpt/exports")]),
            (P::ClaudeAi, vec![PathBuf::from("/home/u/.claude/exports")]),
        ])
    }

    fn resolve_with(vars: &[(&str, &str)], config: &str, flags: Flags) -> (Settings, Vec<String>) {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        let env = move |name: &str| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
        let table: toml::Table = toml::from_str(config).unwrap();
        let mut warnings = Vec::new();
        let context = Context {
            env: &env,
            config: Some(&table),
            defaults: defaults(),
        };
        (resolve(&flags, &context, &mut warnings), warnings)
    }

    #[test]
    fn defaults_read_every_agent_every_two_seconds_with_backfill() {
        let (settings, warnings) = resolve_with(&[], "", Flags::default());
        assert_eq!(
            settings,
            Settings {
                folders: defaults(),
                max_bytes: PerProvider::from([(P::Chatgpt, 256 << 20), (P::ClaudeAi, 256 << 20)]),
                poll: DEFAULT_POLL,
                backfill: true,
            }
        );
        assert!(warnings.is_empty());
    }

    #[test]
    fn a_flag_beats_the_environment_which_beats_the_config() {
        let config = "poll_secs = 9\ncodex_dirs = [\"/c1\", \"/c2\"]\nclaude_dirs = \"/cfg\"\nbackfill = false";
        let (settings, warnings) = resolve_with(
            &[
                ("BATON_MIRROR_CLAUDE_DIR", "/e1:/e2"),
                ("BATON_MIRROR_POLL_SECS", "5"),
            ],
            config,
            Flags::default(),
        );
        assert_eq!(
            settings.folders_of(P::ClaudeCode),
            [PathBuf::from("/e1"), PathBuf::from("/e2")]
        );
        assert_eq!(
            settings.folders_of(P::Codex),
            [PathBuf::from("/c1"), PathBuf::from("/c2")]
        );
        assert_eq!(settings.poll, Duration::from_secs(5));
        assert!(!settings.backfill);
        assert!(warnings.is_empty());
        let flags = Flags {
            folders: PerProvider::from([(P::ClaudeCode, vec![PathBuf::from("/flag")])]),
            poll_secs: Some(1),
            ..Flags::default()
        };
        let (settings, _) = resolve_with(&[("BATON_MIRROR_POLL_SECS", "5")], config, flags);
        assert_eq!(settings.folders_of(P::ClaudeCode), [PathBuf::from("/flag")]);
        assert_eq!(settings.poll, Duration::from_secs(1));
    }

    #[test]
    fn a_switched_off_agent_is_not_read() {
        let (settings, _) = resolve_with(
            &[
                ("BATON_MIRROR_CODEX_ENABLED", "false"),
                ("BATON_MIRROR_CLAUDE_AI_ENABLED", "off"),
            ],
            "claude = false\nchatgpt = false",
            Flags::default(),
        );
        assert!(settings.folders_of(P::ClaudeCode).is_empty());
        assert!(settings.folders_of(P::Codex).is_empty());
        assert!(settings.folders_of(P::Chatgpt).is_empty());
        assert!(settings.folders_of(P::ClaudeAi).is_empty());
    }

    #[test]
    fn export_folders_and_caps_come_from_the_environment_or_the_config() {
        let (settings, warnings) = resolve_with(
            &[
                ("BATON_MIRROR_CHATGPT_DIR", "/drops/gpt"),
                ("BATON_MIRROR_CHATGPT_MAX_BYTES", "1048576"),
            ],
            "claude_ai_dirs = [\"/drops/claude\"]\nclaude_ai_max_bytes = 4096",
            Flags::default(),
        );
        assert_eq!(
            settings.folders_of(P::Chatgpt),
            [PathBuf::from("/drops/gpt")]
        );
        assert_eq!(
            settings.folders_of(P::ClaudeAi),
            [PathBuf::from("/drops/claude")]
        );
        assert_eq!(
            (
                settings.max_bytes[&P::Chatgpt],
                settings.max_bytes[&P::ClaudeAi]
            ),
            (1 << 20, 4096)
        );
        assert!(warnings.is_empty());
        assert_eq!(
            settings.provider_of(std::path::Path::new("/drops/claude/a.zip")),
            Some(P::ClaudeAi)
        );
        assert_eq!(
            settings.provider_of(std::path::Path::new("/else/a.zip")),
            None
        );
    }

    #[test]
    fn a_bad_value_falls_back_to_the_default_with_a_warning_naming_it() {
        for (name, value) in [
            ("BATON_MIRROR_POLL_SECS", "0"),
            ("BATON_MIRROR_POLL_SECS", "soon"),
            ("BATON_MIRROR_POLL_SECS", "-3"),
            ("BATON_MIRROR_BACKFILL", "maybe"),
            ("BATON_MIRROR_CODEX_ENABLED", "2"),
            ("BATON_MIRROR_CHATGPT_MAX_BYTES", "0"),
            ("BATON_MIRROR_CLAUDE_AI_MAX_BYTES", "big"),
        ] {
            let (settings, warnings) = resolve_with(&[(name, value)], "", Flags::default());
            assert_eq!(settings.poll, DEFAULT_POLL, "{name}={value}");
            assert!(settings.backfill, "{name}={value}");
            assert!(!settings.folders_of(P::Codex).is_empty(), "{name}={value}");
            assert_eq!(
                settings.max_bytes[&P::Chatgpt],
                crate::ops::mirror::pass::DEFAULT_EXPORT_MAX_BYTES
            );
            assert_eq!(
                settings.max_bytes[&P::ClaudeAi],
                crate::ops::mirror::pass::DEFAULT_EXPORT_MAX_BYTES
            );
            assert_eq!(warnings.len(), 1, "{name}={value}: {warnings:?}");
            assert!(
                warnings[0].contains(name) && warnings[0].contains(value),
                "{}",
                warnings[0]
            );
        }
        let (_, warnings) = resolve_with(&[], "poll_secs = \"often\"", Flags::default());
        assert!(warnings[0].contains("[mirror] poll_secs in config.toml"));
    }
}
