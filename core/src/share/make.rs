//! A share made whole, the same way in every host: what is shared redacted as the profile
//! asks (what a person un-masked left as it is), then written as one HTML file (locked when a
//! password is given), Markdown or JSON, with a footer saying when and how it was redacted.
//! The host gives the time and, to lock it, fresh random bytes.

use crate::error::{Error, Result};
use crate::share::html::Shared;
use crate::share::redact::{Profile, Redactor, Replacement};
use crate::time::Timestamp;
use serde::{Deserialize, Serialize};

/// The file's form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// One HTML file that opens offline.
    #[default]
    Html,
    /// Markdown.
    Markdown,
    /// JSON: the share's content as data.
    Json,
}

/// A password, and the fresh random bytes the host drew to lock with it.
#[derive(Debug, Clone)]
pub struct Lock {
    /// The password.
    pub password: String,
    /// 16 random bytes.
    pub salt: [u8; 16],
    /// 12 random bytes.
    pub nonce: [u8; 12],
}

/// What a person chose for one share.
#[derive(Debug, Clone)]
pub struct Choices {
    /// The form.
    pub format: Format,
    /// The redaction profile.
    pub profile: Profile,
    /// Words to mask besides what the profile finds.
    pub words: Vec<String>,
    /// Values the person un-masked (false positives the preview showed).
    pub keep: Vec<String>,
    /// The lock of an HTML file.
    pub lock: Option<Lock>,
    /// When it is made.
    pub now: Timestamp,
    /// What made it (`Baton 0.1.0`).
    pub made_by: String,
}

/// A made share.
#[derive(Debug, Clone, Serialize)]
pub struct Made {
    /// Its title, redacted.
    pub title: String,
    /// Its conversations.
    pub conversations: usize,
    /// Their messages.
    pub messages: usize,
    /// Its search hits.
    pub hits: usize,
    /// Its timeline entries.
    pub events: usize,
    /// The file's text.
    #[serde(skip)]
    pub text: String,
    /// What redaction replaced, by kind and number.
    pub replacements: Vec<Replacement>,
    /// Whether a password locks it.
    pub locked: bool,
}

/// A serde enum's word.
fn word<T: Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// Refuses a lock on anything but HTML (only an HTML file carries what opens it): asked
/// before a password is, so that nobody types one for nothing.
pub fn lockable(format: Format, locked: bool) -> Result<()> {
    if locked && format != Format::Html {
        return Err(Error::invalid(
            "password",
            "only an HTML share can be locked with a password (it carries what opens it): drop the password, or make HTML",
        ));
    }
    Ok(())
}

/// `shared` redacted and made into its file as `choices` say.
pub fn make(mut shared: Shared, choices: &Choices) -> Result<Made> {
    use crate::share::document::{Content, document};
    lockable(choices.format, choices.lock.is_some())?;
    let mut redactor = Redactor::new(choices.profile, &choices.words)?.keeping(&choices.keep);
    shared.redact(&mut redactor);
    let replacements = redactor.preview();
    let replaced: usize = replacements.iter().map(|r| r.count).sum();
    let footer = format!(
        "Shared with {} on {}; redaction: {}, {replaced} replacement(s).",
        choices.made_by,
        &choices.now.to_string()[..10],
        word(&choices.profile),
    );
    let text = match choices.format {
        Format::Html => {
            let body = crate::share::html::body(&shared);
            match &choices.lock {
                None => document(
                    Content::Open {
                        title: &shared.title,
                        html: &body,
                    },
                    &footer,
                ),
                Some(lock) => {
                    let sealed = crate::share::seal::seal(
                        body.as_bytes(),
                        &lock.password,
                        lock.salt,
                        lock.nonce,
                        crate::share::seal::ITERATIONS,
                    )?;
                    document(Content::Sealed(&sealed), &footer)
                }
            }
        }
        Format::Markdown => {
            let mut text = crate::share::markdown::markdown(&shared);
            text.push_str(&format!("\n---\n\n_{footer}_\n"));
            text
        }
        Format::Json => serde_json::to_string_pretty(&serde_json::json!({
            "share": shared,
            "redaction": { "profile": choices.profile, "replacements": replaced },
            "made_at": choices.now,
            "made_by": choices.made_by,
        }))
        .map_err(|e| Error::internal(format!("encoding the share: {e}")))?,
    };
    Ok(Made {
        title: shared.title.clone(),
        conversations: shared.conversations.len(),
        messages: shared.messages(),
        hits: shared.hits.len(),
        events: shared.timeline.len(),
        text,
        replacements,
        locked: choices.lock.is_some(),
    })
}

/// What [`make`] would replace in `shared` with these choices, writing nothing.
pub fn preview(mut shared: Shared, choices: &Choices) -> Result<Vec<Replacement>> {
    let mut redactor = Redactor::new(choices.profile, &choices.words)?.keeping(&choices.keep);
    shared.redact(&mut redactor);
    Ok(redactor.preview())
}
