//! The way to the team's PostgreSQL: the URL (flag, environment or `config.toml`), the password
//! as libpq finds it (the URL, `PGPASSWORD`, `~/.pgpass`), TLS when the URL asks for it, and
//! errors that carry the server's own words but never the password.

use baton_core::{Error, ErrorCode};
use std::path::{Path, PathBuf};

pub(crate) fn sync_error(what: &str, e: impl std::fmt::Display) -> Error {
    Error::new(ErrorCode::StoreIo, format!("team server: {what}: {e}")).with("operation", what)
}

/// A client error with the server's own words (tokio-postgres prints only "db error").
pub(crate) fn pg_error(what: &str, e: tokio_postgres::Error) -> Error {
    let mut text = e.to_string();
    if let Some(db) = e.as_db_error() {
        text = format!("{} ({})", db.message(), db.code().code());
    } else if let Some(source) = std::error::Error::source(&e) {
        text = format!("{text}: {source}");
    }
    sync_error(what, text)
}

/// The team's settings in the ledger's `config.toml` (`[sync]`, `[team]`), read once as the
/// ledger's own file (none when there is no file).
#[derive(Debug, Default)]
pub struct TeamSettings(toml::Table);

impl TeamSettings {
    /// Reads them from the ledger at `dir`.
    pub fn read(dir: &Path) -> Result<TeamSettings, Error> {
        let config = crate::config::ConfigFile::read(dir)?;
        let mut table = toml::Table::new();
        for name in ["sync", "team"] {
            if let Some(own) = config.table(name) {
                table.insert(name.to_owned(), toml::Value::Table(own.clone()));
            }
        }
        Ok(TeamSettings(table))
    }

    /// `key` under the first of `tables` that has it.
    fn get(&self, tables: &[&str], key: &str) -> Option<&toml::Value> {
        tables
            .iter()
            .find_map(|name| self.0.get(*name).and_then(|t| t.get(key)))
    }

    /// The server's URL: `url` under the first of `tables` that has one.
    pub fn url(&self, tables: &[&str]) -> Option<String> {
        self.get(tables, "url")?.as_str().map(str::to_owned)
    }

    /// Whether `[sync] usage = true`.
    pub fn sends_usage(&self) -> bool {
        self.get(&["sync"], "usage")
            .and_then(toml::Value::as_bool)
            .unwrap_or(false)
    }
}

/// Runs a future on a runtime of this thread.
pub fn block_on<T>(
    future: impl std::future::Future<Output = Result<T, Error>>,
) -> Result<T, Error> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| sync_error("start the runtime", e))?
        .block_on(future)
}

/// Opens a connection to `url` (its driver runs on the current runtime until the client is
/// dropped). With `sslmode=require` (or `verify-ca`, `verify-full`) the connection is TLS, the
/// server's certificate checked against the system's roots and `sslrootcert=FILE` if given;
/// otherwise it is plain.
pub async fn connect(url: &str) -> Result<tokio_postgres::Client, Error> {
    let env_mode = crate::os::env::var("PGSSLMODE").ok();
    let (url_for_client, tls) = tls_settings(url, env_mode.as_deref())?;
    let mut config = connection_config(&url_for_client)?;
    // Said here, not left to the URL: asked for, TLS is required; not asked for, not tried.
    config.ssl_mode(if tls.is_some() {
        tokio_postgres::config::SslMode::Require
    } else {
        tokio_postgres::config::SslMode::Disable
    });
    let failed = |e| {
        let err = pg_error(&format!("connect to {}", redacted(url)), e);
        if err.message.contains("certificate") {
            let message = format!(
                "{}: the server's certificate is not one this machine trusts; add sslrootcert=FILE (its CA, PEM) to the URL",
                err.message
            );
            return Error::new(err.code, message).with("operation", "connect");
        }
        err
    };
    let client = match tls {
        Some(root_file) => {
            let (client, connection) = config
                .connect(tls_connector(root_file.as_deref())?)
                .await
                .map_err(failed)?;
            tokio::spawn(connection);
            client
        }
        None => {
            let (client, connection) = config
                .connect(tokio_postgres::NoTls)
                .await
                .map_err(failed)?;
            tokio::spawn(connection);
            client
        }
    };
    Ok(client)
}

/// The URL as the client reads it (`sslmode` and `sslrootcert` taken out), and whether TLS is
/// asked for, with the root certificate file if any. TLS is asked for by the last `sslmode`
/// (`require`, `verify-ca`, `verify-full`), else by `PGSSLMODE` (`env_mode`), else by an
/// `sslrootcert`.
fn tls_settings(
    url: &str,
    env_mode: Option<&str>,
) -> Result<(String, Option<Option<PathBuf>>), Error> {
    let (base, query) = url.split_once('?').unwrap_or((url, ""));
    let mut kept = Vec::new();
    let mut root_file = None;
    let mut mode: Option<String> = None;
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        match key {
            "sslrootcert" => root_file = Some(PathBuf::from(percent_decoded(value))),
            "sslmode" => mode = Some(percent_decoded(value)),
            _ => kept.push(pair.to_owned()),
        }
    }
    let tls = match mode.as_deref().or(env_mode) {
        Some("require" | "verify-ca" | "verify-full") => true,
        Some("disable" | "allow" | "prefer") => false,
        Some(other) => {
            return Err(Error::invalid(
                "to",
                format!(
                    "sslmode={other} is not one Baton knows: use disable, prefer, require, verify-ca or verify-full"
                ),
            ));
        }
        None => root_file.is_some(),
    };
    let client_url = if kept.is_empty() {
        base.to_owned()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    Ok((client_url, tls.then_some(root_file)))
}

/// `%XX` escapes decoded (a path in a URL).
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(hex) = text.get(i + 1..i + 3)
            && let Ok(byte) = u8::from_str_radix(hex, 16)
        {
            out.push(byte);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A TLS connector trusting the system's roots, and `root_file`'s certificates when given.
fn tls_connector(
    root_file: Option<&Path>,
) -> Result<tokio_postgres_rustls::MakeRustlsConnect, Error> {
    Ok(tokio_postgres_rustls::MakeRustlsConnect::new(
        crate::os::tls::client_config(root_file, "sslrootcert")?,
    ))
}

/// The URL without its password, for messages: the one between `user:` and `@`, and any
/// `password=` setting (a URL's query, or a `key=value` connection string).
pub fn redacted(url: &str) -> String {
    let url = match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let credentials = &url[scheme + 3..at];
            let user = credentials.split(':').next().unwrap_or("");
            format!("{}{user}@{}", &url[..scheme + 3], &url[at + 1..])
        }
        _ => url.to_owned(),
    };
    let mut out = String::with_capacity(url.len());
    let mut rest = url.as_str();
    while let Some(found) = rest.find("password=") {
        let starts_word =
            found == 0 || matches!(rest.as_bytes()[found - 1], b'?' | b'&' | b' ' | b'\t');
        out.push_str(&rest[..found + "password=".len()]);
        rest = &rest[found + "password=".len()..];
        if starts_word {
            out.push_str("***");
            let end = rest.find(['&', ' ', '\t']).unwrap_or(rest.len());
            rest = &rest[end..];
        }
    }
    out.push_str(rest);
    out
}

/// The connection settings of `url`, its password (when it has none) from `PGPASSWORD` or
/// the first matching line of `~/.pgpass` (or `PGPASSFILE`), as libpq finds it.
pub(crate) fn connection_config(url: &str) -> Result<tokio_postgres::Config, Error> {
    let mut config: tokio_postgres::Config = url
        .parse()
        .map_err(|e| Error::invalid("to", format!("{}: {e}", redacted(url))))?;
    if config.get_password().is_none() {
        let password = crate::os::env::var("PGPASSWORD").ok().or_else(|| {
            let file = crate::os::env::var_os("PGPASSFILE")
                .map(PathBuf::from)
                .or_else(|| {
                    crate::os::env::var_os("HOME").map(|h| Path::new(&h).join(".pgpass"))
                })?;
            let text = crate::os::files::read_regular_text(file, 1 << 20).ok()?;
            let host = match config.get_hosts().first() {
                Some(tokio_postgres::config::Host::Tcp(host)) => host.clone(),
                _ => "localhost".to_owned(),
            };
            let port = config
                .get_ports()
                .first()
                .copied()
                .unwrap_or(5432)
                .to_string();
            pgpass_lookup(
                &text,
                [
                    host.as_str(),
                    port.as_str(),
                    config
                        .get_dbname()
                        .unwrap_or(config.get_user().unwrap_or("")),
                    config.get_user().unwrap_or(""),
                ],
            )
        });
        if let Some(password) = password {
            config.password(password);
        }
    }
    Ok(config)
}

/// The password of the first `~/.pgpass` line matching host, port, database and user (`*`
/// matches anything; `\:` and `\\` are a colon and a backslash).
fn pgpass_lookup(text: &str, wanted: [&str; 4]) -> Option<String> {
    for line in text.lines() {
        if line.trim_start().starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let mut fields = Vec::new();
        let mut field = String::new();
        let mut chars = line.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => field.extend(chars.next()),
                ':' if fields.len() < 4 => fields.push(std::mem::take(&mut field)),
                c => field.push(c),
            }
        }
        fields.push(field);
        if fields.len() == 5
            && fields[..4]
                .iter()
                .zip(wanted)
                .all(|(have, want)| have == "*" || have == want)
        {
            return fields.pop();
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pgpass_lines_match_as_libpq_reads_them() {
        let text = "# comment\n\
                    db.internal:5432:baton:reader:read-only\n\
                    db.internal:*:*:laptop:pa\\:ss\\\\word\n\
                    *:*:*:*:fallback\n";
        let find = |host, port, db, user| pgpass_lookup(text, [host, port, db, user]);
        assert_eq!(
            find("db.internal", "5432", "baton", "reader").as_deref(),
            Some("read-only")
        );
        assert_eq!(
            find("db.internal", "6543", "team", "laptop").as_deref(),
            Some("pa:ss\\word")
        );
        assert_eq!(
            find("other", "5432", "baton", "reader").as_deref(),
            Some("fallback")
        );
        assert_eq!(pgpass_lookup("short:line\n", ["a", "b", "c", "d"]), None);
    }

    #[test]
    fn tls_is_asked_for_by_sslmode_and_sslrootcert_is_taken_out() {
        let plain = |url: &str| (url.to_owned(), None);
        let tls = |url: &str, root: Option<&str>| (url.to_owned(), Some(root.map(PathBuf::from)));
        assert_eq!(
            tls_settings("postgres://db/x", None).unwrap(),
            plain("postgres://db/x")
        );
        assert_eq!(
            tls_settings(
                "postgres://db/x?sslmode=verify-full&sslrootcert=%2Fetc%2Fca.pem&application_name=b",
                None
            )
            .unwrap(),
            tls("postgres://db/x?application_name=b", Some("/etc/ca.pem"))
        );
        assert_eq!(
            tls_settings("postgres://db/x?sslmode=prefer", Some("require")).unwrap(),
            plain("postgres://db/x"),
            "the URL's word over the environment's"
        );
        assert_eq!(
            tls_settings("postgres://db/x?sslmode=disable&sslmode=require", None).unwrap(),
            tls("postgres://db/x", None),
            "the last sslmode, as libpq reads it"
        );
        assert_eq!(
            tls_settings("postgres://db/x", Some("verify-full")).unwrap(),
            tls("postgres://db/x", None),
            "PGSSLMODE"
        );
        assert_eq!(
            tls_settings("postgres://db/x?sslrootcert=ca.pem", None).unwrap(),
            tls("postgres://db/x", Some("ca.pem")),
            "a root certificate asks for TLS"
        );
        assert!(tls_settings("postgres://db/x?sslmode=sometimes", None).is_err());
    }

    #[test]
    fn a_url_is_shown_without_its_password() {
        assert_eq!(redacted("postgres://me:secret@db/x"), "postgres://me@db/x");
        assert_eq!(redacted("postgres://db/x"), "postgres://db/x");
        assert_eq!(
            redacted("postgres://me@db/x?password=secret&sslmode=require"),
            "postgres://me@db/x?password=***&sslmode=require"
        );
        assert_eq!(
            redacted("host=db user=me password=secret dbname=x"),
            "host=db user=me password=*** dbname=x"
        );
        assert_eq!(
            redacted("postgres://db/x?mypassword=1"),
            "postgres://db/x?mypassword=1"
        );
    }
}
