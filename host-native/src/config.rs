//! The ledger's `config.toml`, read and parsed once per command (a process keeps the parsed
//! file while the file on disk is unchanged) and handed to every part that has a table in it:
//! the workspace policy (`engine::policy`), `[notes]`, `[mirror]`, `[sync]`, `[team]`,
//! `[share]` and `[otel]`.
//!
//! One failure policy for the file: absent, it is every default; not TOML (or not the
//! ledger's own file, a link or a FIFO), it is refused with `INVALID_ARGUMENT` naming the file
//! and what is wrong, by whichever command reads it first. Inside a table, a value that makes
//! no sense is warned about and its default used; the policy's tables are stricter (an
//! unknown key there is an error, so a misspelt `[members]` never leaves a workspace open).

use baton_core::Error;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::SystemTime;

/// The file's name in the ledger's folder.
pub const FILE: &str = "config.toml";

/// The tables Baton's host reads for itself; the rest of the file is the policy.
pub const HOST_TABLES: [&str; 6] = ["mirror", "notes", "sync", "team", "share", "otel"];

/// A ledger's `config.toml`, parsed.
#[derive(Debug, Default)]
pub struct ConfigFile {
    path: PathBuf,
    table: toml::Table,
}

/// What a parsed file was read from, when it exists: its size, time of change and (on Unix)
/// its device, inode and status-change time, so a same-size edit or a file renamed over it
/// within the clock's step is seen.
type Seen = Option<(u64, Option<SystemTime>, [i64; 4])>;

/// The file's identity beyond its size and time: device, inode and status-change time.
fn identity(meta: &std::fs::Metadata) -> [i64; 4] {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        [
            meta.dev() as i64,
            meta.ino() as i64,
            meta.ctime(),
            meta.ctime_nsec(),
        ]
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        [0; 4]
    }
}

/// The files this process parsed, by path, with what each was read from.
type Parsed = Mutex<HashMap<PathBuf, (Seen, Arc<ConfigFile>)>>;

fn parsed() -> &'static Parsed {
    static PARSED: OnceLock<Parsed> = OnceLock::new();
    PARSED.get_or_init(Mutex::default)
}

impl ConfigFile {
    /// The `config.toml` of the ledger at `ledger_dir` (every default when there is none).
    pub fn read(ledger_dir: &Path) -> Result<Arc<ConfigFile>, Error> {
        let path = ledger_dir.join(FILE);
        let seen: Seen = std::fs::symlink_metadata(&path)
            .ok()
            .map(|m| (m.len(), m.modified().ok(), identity(&m)));
        if let Some((was, file)) = parsed()
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&path)
            && *was == seen
        {
            return Ok(file.clone());
        }
        let file = Arc::new(ConfigFile::parse(path.clone())?);
        parsed()
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(path, (seen, file.clone()));
        Ok(file)
    }

    fn parse(path: PathBuf) -> Result<ConfigFile, Error> {
        let text = match crate::store::read_own_text(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(ConfigFile {
                    path,
                    table: toml::Table::new(),
                });
            }
            Err(e) => return Err(crate::store::own_file_error("read", &path, e)),
        };
        match toml::from_str::<toml::Table>(&text) {
            Ok(table) => Ok(ConfigFile { path, table }),
            Err(e) => Err(ConfigFile::invalid(&path, &e)),
        }
    }

    /// `INVALID_ARGUMENT` for this file: what is wrong in it, and where it is.
    pub fn invalid(path: &Path, what: &dyn std::fmt::Display) -> Error {
        Error::invalid(FILE, format!("{}: {what}", path.display()))
            .with("path", path.display().to_string())
    }

    /// Where the file is (or would be).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The table `name` (`[mirror]`), when the file has one. Only the host's own tables are
    /// asked for this way: any other is the policy's, which refuses what it does not know.
    pub fn table(&self, name: &str) -> Option<&toml::Table> {
        debug_assert!(
            HOST_TABLES.contains(&name),
            "[{name}] is read by the host: list it in HOST_TABLES, or the policy refuses it"
        );
        match self.table.get(name) {
            Some(toml::Value::Table(table)) => Some(table),
            _ => None,
        }
    }

    /// Everything but the host's own tables: the workspace policy's part of the file.
    pub fn policy_part(&self) -> toml::Table {
        let mut table = self.table.clone();
        for host_table in HOST_TABLES {
            table.remove(host_table);
        }
        table
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_parsed_once_until_it_changes_and_refused_when_it_is_not_toml() {
        let dir = tempfile::tempdir().unwrap();
        let absent = ConfigFile::read(dir.path()).unwrap();
        assert!(absent.table("notes").is_none());
        std::fs::write(dir.path().join(FILE), "[notes]\nenabled = false\n").unwrap();
        let first = ConfigFile::read(dir.path()).unwrap();
        assert!(first.table("notes").is_some());
        let again = ConfigFile::read(dir.path()).unwrap();
        assert!(Arc::ptr_eq(&first, &again), "parsed once while unchanged");
        std::fs::write(dir.path().join(FILE), "[notes\n").unwrap();
        let err = ConfigFile::read(dir.path()).unwrap_err();
        assert_eq!(err.code, baton_core::ErrorCode::InvalidArgument);
        assert!(err.message.contains("config.toml"), "{}", err.message);
        std::fs::write(
            dir.path().join(FILE),
            "members = []\n[mirror]\npoll_secs = 3\n",
        )
        .unwrap();
        let policy = ConfigFile::read(dir.path()).unwrap().policy_part();
        assert!(policy.contains_key("members") && !policy.contains_key("mirror"));
    }

    #[test]
    fn every_host_table_is_left_out_of_the_policy_the_core_reads() {
        use serde::Deserialize;
        let dir = tempfile::tempdir().unwrap();
        // The tables the README documents, named here apart from the list they must be in.
        let mut text = "agents_may_steer = true\n".to_owned();
        for name in ["mirror", "notes", "sync", "team", "share", "otel"] {
            text.push_str(&format!("[{name}]\nsome_setting = 1\n"));
        }
        std::fs::write(dir.path().join(FILE), text).unwrap();
        let part = ConfigFile::read(dir.path()).unwrap().policy_part();
        let policy = baton_core::lifecycle::workspace::Policy::deserialize(part).unwrap();
        assert!(policy.agents_may_steer);
    }
}
