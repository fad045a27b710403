//! Where the vault is and whether notes are kept: `--vault` and `--no-notes`, else
//! `BATON_VAULT` and `BATON_NOTES`, else the `[notes]` table of `.baton/config.toml`
//! (`enabled`, `vault`, `quiet_secs`), else `.baton/vault`, on.

use crate::store::Ledger;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

/// How long a note must have been left alone before Baton rewrites it (a person may be
/// typing in it), unless Baton wrote it last.
const DEFAULT_QUIET: Duration = Duration::from_secs(3);

/// The vault of a ledger, and what Baton keeps about it.
#[derive(Debug, Clone)]
pub struct Vault {
    /// The vault's folder.
    pub root: PathBuf,
    /// Baton's own state about the notes, in the ledger: locks, what it last wrote, what is
    /// deferred.
    pub state: PathBuf,
    /// How long a note must have been left alone before Baton rewrites it.
    pub quiet: Duration,
    /// Whether the vault is the default one inside the ledger (then, like the ledger's own
    /// folders, it may not be a symbolic link: a committed `.baton/` could point it anywhere).
    pub inside_ledger: bool,
    /// Tests only (`BATON_TEST_NOTE_PAUSE_MS`): a wait between writing an update's temporary
    /// and comparing the note, the window an editor's save or a SIGKILL needs.
    pub test_pause: Option<Duration>,
}

/// What the command line says about notes.
#[derive(Debug, Clone, Default)]
pub struct Choice {
    /// `--vault DIR`.
    pub vault: Option<PathBuf>,
    /// `--no-notes`.
    pub off: bool,
}

static CHOICE: OnceLock<Choice> = OnceLock::new();

/// Records the command line's choice for this process (the first call wins).
pub fn choose(choice: Choice) {
    let _ = CHOICE.set(choice);
}

fn switch_off(text: &str) -> Option<bool> {
    match text.trim().to_ascii_lowercase().as_str() {
        "0" | "false" | "no" | "off" => Some(true),
        "1" | "true" | "yes" | "on" => Some(false),
        _ => None,
    }
}

/// The `[notes]` table of the ledger's `config.toml`, if any (a file that is not TOML is
/// refused, see [`crate::config`]).
fn config_table(ledger: &Ledger) -> Result<Option<toml::Table>, baton_core::Error> {
    Ok(crate::config::ConfigFile::read(ledger.dir())?
        .table("notes")
        .cloned())
}

/// The vault for `ledger`, or `None` when notes are switched off. A setting that makes no
/// sense is warned about and its default used; a `config.toml` that is not TOML is refused.
pub fn resolve(
    ledger: &Ledger,
    warnings: &mut Vec<String>,
) -> Result<Option<Vault>, baton_core::Error> {
    let choice = CHOICE.get().cloned().unwrap_or_default();
    let config = config_table(ledger)?;
    let env = |name: &str| {
        crate::os::env::var(name)
            .ok()
            .filter(|v| !v.trim().is_empty())
    };
    let off = if choice.off {
        true
    } else if let Some(text) = env("BATON_NOTES") {
        switch_off(&text).unwrap_or_else(|| {
            warnings.push(format!(
                "BATON_NOTES is {text:?}, not on or off: notes stay on"
            ));
            false
        })
    } else {
        match config.as_ref().and_then(|c| c.get("enabled")) {
            Some(toml::Value::Boolean(on)) => !on,
            Some(other) => {
                warnings.push(format!(
                    "[notes] enabled in config.toml is {other}, not true or false: notes stay on"
                ));
                false
            }
            None => false,
        }
    };
    if off {
        return Ok(None);
    }
    // A relative vault in config.toml is the project's: beside the ledger's folder.
    let project = ledger.dir().parent().map(PathBuf::from).unwrap_or_default();
    let chosen = choice
        .vault
        .or_else(|| env("BATON_VAULT").map(PathBuf::from))
        .or_else(|| {
            config
                .as_ref()
                .and_then(|c| c.get("vault"))
                .and_then(|v| v.as_str())
                .map(|v| project.join(v))
        });
    let inside_ledger = chosen.is_none();
    // A vault named elsewhere is shown and locked by its real path (`../Obsidian` from the
    // config reads as `/home/me/Obsidian`); the default one is checked as the ledger's own.
    let root = match chosen {
        Some(path) => std::fs::canonicalize(&path).unwrap_or(path),
        None => ledger.dir().join("vault"),
    };
    let quiet = match env("BATON_NOTES_QUIET_SECS").or_else(|| {
        config
            .as_ref()
            .and_then(|c| c.get("quiet_secs"))
            .map(|v| v.to_string())
    }) {
        Some(text) => match text.trim().parse::<f64>() {
            Ok(secs) if (0.0..=3600.0).contains(&secs) => Duration::from_secs_f64(secs),
            _ => {
                warnings.push(format!(
                    "the quiet time for notes is {text:?}, not seconds from 0 to 3600: using 3"
                ));
                DEFAULT_QUIET
            }
        },
        None => DEFAULT_QUIET,
    };
    let test_pause = env("BATON_TEST_NOTE_PAUSE_MS")
        .and_then(|ms| ms.trim().parse::<u64>().ok())
        .map(Duration::from_millis);
    Ok(Some(Vault {
        root,
        state: ledger.dir().join("notes"),
        quiet,
        inside_ledger,
        test_pause,
    }))
}
