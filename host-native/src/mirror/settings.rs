//! What the mirror reads and how often: each setting from its flag, else its environment
//! variable, else the `[mirror]` table of `.baton/config.toml`, else its default. A value that
//! makes no sense (an interval of 0, a word where a number goes) is never obeyed: the default
//! is used and a warning names the variable and what it said.

use std::path::PathBuf;
use std::time::Duration;

/// How often `--follow` looks when the platform gives no notifications (and the default).
pub const DEFAULT_POLL: Duration = Duration::from_secs(2);

/// The mirror's settings, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// Claude Code `projects/` folders (empty: Claude Code is not mirrored).
    pub claude_dirs: Vec<PathBuf>,
    /// Codex `sessions/` folders (empty: Codex is not mirrored).
    pub codex_dirs: Vec<PathBuf>,
    /// How often a `--follow` without notifications looks for changes.
    pub poll: Duration,
    /// Whether files already there at their first sight are read from their start (else only
    /// what is appended to them later is kept; new files are read whole).
    pub backfill: bool,
}

/// What the command line said (each `None` or empty when it said nothing).
#[derive(Debug, Clone, Default)]
pub struct Flags {
    /// `--claude-dir`.
    pub claude_dirs: Vec<PathBuf>,
    /// `--codex-dir`.
    pub codex_dirs: Vec<PathBuf>,
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
    /// The default Claude Code folders.
    pub default_claude_dirs: Vec<PathBuf>,
    /// The default Codex folders.
    pub default_codex_dirs: Vec<PathBuf>,
}

impl std::fmt::Debug for Context<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("config", &self.config)
            .field("default_claude_dirs", &self.default_claude_dirs)
            .field("default_codex_dirs", &self.default_codex_dirs)
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

/// Resolves every setting; `warnings` gets one line per value that was not obeyed.
pub fn resolve(flags: &Flags, context: &Context<'_>, warnings: &mut Vec<String>) -> Settings {
    let claude_on = context.switch("BATON_MIRROR_CLAUDE_ENABLED", "claude", true, warnings);
    let codex_on = context.switch("BATON_MIRROR_CODEX_ENABLED", "codex", true, warnings);
    let claude_dirs = if !flags.claude_dirs.is_empty() {
        flags.claude_dirs.clone()
    } else if claude_on {
        context.folders(
            "BATON_MIRROR_CLAUDE_DIR",
            "claude_dirs",
            context.default_claude_dirs.clone(),
        )
    } else {
        Vec::new()
    };
    let codex_dirs = if !flags.codex_dirs.is_empty() {
        flags.codex_dirs.clone()
    } else if codex_on {
        context.folders(
            "BATON_MIRROR_CODEX_DIR",
            "codex_dirs",
            context.default_codex_dirs.clone(),
        )
    } else {
        Vec::new()
    };
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
        claude_dirs,
        codex_dirs,
        poll,
        backfill,
    }
}

/// Resolves the settings on this machine: its environment, the ledger's `config.toml` (a
/// file that does not parse is warned about and left out), its default folders.
pub fn on_this_machine(
    flags: &Flags,
    ledger_dir: Option<&std::path::Path>,
    warnings: &mut Vec<String>,
) -> Settings {
    let config: Option<toml::Table> = ledger_dir.and_then(|dir| {
        let path = dir.join("config.toml");
        let text = crate::store::read_own_text(&path).ok()?;
        match toml::from_str::<toml::Table>(&text) {
            Ok(table) => match table.get("mirror") {
                Some(toml::Value::Table(mirror)) => Some(mirror.clone()),
                _ => None,
            },
            Err(err) => {
                warnings.push(format!(
                    "{} does not parse ({}): its [mirror] settings are not used",
                    path.display(),
                    err.message()
                ));
                None
            }
        }
    });
    let env = |name: &str| std::env::var(name).ok();
    let context = Context {
        env: &env,
        config: config.as_ref(),
        default_claude_dirs: crate::usage::default_claude_dirs(),
        default_codex_dirs: crate::usage::default_codex_dirs(),
    };
    resolve(flags, &context, warnings)
}

#[cfg(test)]
mod tests {
    use super::*;

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
            default_claude_dirs: vec![PathBuf::from("/home/u/.claude/projects")],
            default_codex_dirs: vec![PathBuf::from("/home/u/.codex/sessions")],
        };
        (resolve(&flags, &context, &mut warnings), warnings)
    }

    #[test]
    fn defaults_read_both_agents_every_two_seconds_with_backfill() {
        let (settings, warnings) = resolve_with(&[], "", Flags::default());
        assert_eq!(
            settings,
            Settings {
                claude_dirs: vec![PathBuf::from("/home/u/.claude/projects")],
                codex_dirs: vec![PathBuf::from("/home/u/.codex/sessions")],
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
            settings.claude_dirs,
            [PathBuf::from("/e1"), PathBuf::from("/e2")]
        );
        assert_eq!(
            settings.codex_dirs,
            [PathBuf::from("/c1"), PathBuf::from("/c2")]
        );
        assert_eq!(settings.poll, Duration::from_secs(5));
        assert!(!settings.backfill);
        assert!(warnings.is_empty());
        let flags = Flags {
            claude_dirs: vec![PathBuf::from("/flag")],
            poll_secs: Some(1),
            ..Flags::default()
        };
        let (settings, _) = resolve_with(&[("BATON_MIRROR_POLL_SECS", "5")], config, flags);
        assert_eq!(settings.claude_dirs, [PathBuf::from("/flag")]);
        assert_eq!(settings.poll, Duration::from_secs(1));
    }

    #[test]
    fn a_switched_off_agent_is_not_read() {
        let (settings, _) = resolve_with(
            &[("BATON_MIRROR_CODEX_ENABLED", "false")],
            "claude = false",
            Flags::default(),
        );
        assert!(settings.claude_dirs.is_empty());
        assert!(settings.codex_dirs.is_empty());
    }

    #[test]
    fn a_bad_value_falls_back_to_the_default_with_a_warning_naming_it() {
        for (name, value) in [
            ("BATON_MIRROR_POLL_SECS", "0"),
            ("BATON_MIRROR_POLL_SECS", "soon"),
            ("BATON_MIRROR_POLL_SECS", "-3"),
            ("BATON_MIRROR_BACKFILL", "maybe"),
            ("BATON_MIRROR_CODEX_ENABLED", "2"),
        ] {
            let (settings, warnings) = resolve_with(&[(name, value)], "", Flags::default());
            assert_eq!(settings.poll, DEFAULT_POLL, "{name}={value}");
            assert!(settings.backfill, "{name}={value}");
            assert!(!settings.codex_dirs.is_empty(), "{name}={value}");
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
