//! Redaction for sharing: what a person shows a colleague should not carry their secrets,
//! home folder, e-mail address, phone number, machines or internal addresses. A profile says
//! how much goes (`none`, `secrets`, `share`, `strict`); each value found becomes a numbered
//! placeholder of its kind (`<email-1>`), the same value the same placeholder throughout one
//! share, and the preview lists every replacement, grouped and counted, before anything is
//! written.

use crate::transcripts::secrets::Masker;
use regex::Regex;
use serde::Serialize;
use std::collections::BTreeMap;

/// How much a share leaves out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Profile {
    /// Nothing more than was masked when the transcript was kept.
    None,
    /// Secrets and keys.
    Secrets,
    /// Secrets, home folders and user names in paths, e-mail addresses, phone numbers, IP
    /// addresses, internal hosts and URLs, environment variable values, listed words.
    Share,
    /// All of `share`, and every host name and URL.
    Strict,
}

impl std::str::FromStr for Profile {
    type Err = crate::error::Error;
    fn from_str(text: &str) -> Result<Profile, Self::Err> {
        match text {
            "none" => Ok(Profile::None),
            "secrets" => Ok(Profile::Secrets),
            "share" => Ok(Profile::Share),
            "strict" => Ok(Profile::Strict),
            other => Err(crate::error::Error::invalid(
                "redact",
                format!(
                    "`{other}` is not a redaction profile: give none, secrets, share or strict"
                ),
            )),
        }
    }
}

/// What a replaced value was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A key or token the secret rules know.
    Secret,
    /// An e-mail address.
    Email,
    /// A phone number.
    Phone,
    /// An IPv4 address.
    Ip,
    /// A URL (an internal one; any with `strict`).
    Url,
    /// A host name (an internal one; any with `strict`).
    Host,
    /// A user name in a home folder's path.
    User,
    /// An environment variable's value (`NAME=value`).
    Env,
    /// A word the person listed.
    Word,
}

impl Kind {
    /// Its placeholder's name: `email` in `<email-1>`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Secret => "secret",
            Kind::Email => "email",
            Kind::Phone => "phone",
            Kind::Ip => "ip",
            Kind::Url => "url",
            Kind::Host => "host",
            Kind::User => "user",
            Kind::Env => "env",
            Kind::Word => "word",
        }
    }
}

/// One value replaced, with how often.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Replacement {
    /// What it was.
    pub kind: Kind,
    /// The value.
    pub value: String,
    /// What stands for it.
    pub placeholder: String,
    /// How many times it was replaced.
    pub count: usize,
    /// Where it was first found: the value with up to 40 characters either side (empty for
    /// a secret, whose value is never kept).
    pub example: String,
}

/// Suffixes of host names that are a network's own, never the internet's.
const INTERNAL_SUFFIXES: &str = r"(?:internal|local|lan|corp|intranet|home\.arpa|localdomain)";

/// One rule: what it finds and which capture group is the value (the rest is kept).
#[derive(Debug, Clone)]
struct Rule {
    kind: Kind,
    pattern: Regex,
    group: usize,
    /// The rule for a user in an agent's folder name: the users already known are replaced
    /// in that form first (`first.last` is `-first-last-` there).
    slug: bool,
}

/// Replaces what a profile leaves out, keeping a stable placeholder for each value.
#[derive(Debug, Clone)]
pub struct Redactor {
    rules: Vec<Rule>,
    masker: Option<Masker>,
    placeholders: BTreeMap<(Kind, String), (String, usize)>,
    examples: BTreeMap<(Kind, String), String>,
    numbers: BTreeMap<Kind, usize>,
    kept: std::collections::BTreeSet<String>,
}

impl Redactor {
    /// A redactor for `profile`, masking `words` too (with `share` and `strict`).
    pub fn new(profile: Profile, words: &[String]) -> crate::error::Result<Redactor> {
        let mut rules = Vec::new();
        let rule = |kind: Kind, pattern: &str, group: usize| -> crate::error::Result<Rule> {
            Regex::new(pattern)
                .map(|pattern| Rule {
                    kind,
                    pattern,
                    group,
                    slug: false,
                })
                .map_err(|e| crate::error::Error::internal(format!("redaction rule: {e}")))
        };
        if matches!(profile, Profile::Share | Profile::Strict) {
            let listed: Vec<String> = words
                .iter()
                .map(|w| w.trim())
                .filter(|w| !w.is_empty())
                .map(regex::escape)
                .collect();
            if !listed.is_empty() {
                rules.push(rule(
                    Kind::Word,
                    &format!(r"(?i)\b(?:{})\b", listed.join("|")),
                    0,
                )?);
            }
            rules.push(rule(
                Kind::Email,
                r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b",
                0,
            )?);
            if profile == Profile::Strict {
                rules.push(rule(
                    Kind::Url,
                    r#"\b(?:https?|wss?|ftp)://[^\s"'<>)\]]+"#,
                    0,
                )?);
            } else {
                rules.push(rule(
                    Kind::Url,
                    &format!(
                        r#"\b(?:https?|wss?|ftp)://(?:localhost|(?:10|127)\.\d+\.\d+\.\d+|192\.168\.\d+\.\d+|172\.(?:1[6-9]|2\d|3[01])\.\d+\.\d+|[A-Za-z0-9.-]+\.{INTERNAL_SUFFIXES})(?::\d+)?(?:[/?#][^\s"'<>)\]]*)?"#
                    ),
                    0,
                )?);
            }
            rules.push(rule(
                Kind::Phone,
                r"(?:\+\d{1,3}[ .-]?\(?\d{1,4}\)?(?:[ .-]?\d{2,4}){2,4}\b|\(\d{3}\) ?\d{3}[-.]\d{4}\b|\b\d{3}[-.]\d{3}[-.]\d{4}\b)",
                0,
            )?);
            rules.push(rule(
                Kind::Ip,
                r"\b(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}\b",
                0,
            )?);
            rules.push(rule(
                Kind::Host,
                &if profile == Profile::Strict {
                    r"\b(?:[A-Za-z0-9-]+\.)+(?:com|net|org|io|dev|app|ai|co|cloud|internal|local|lan|corp|intranet|localdomain)\b".to_owned()
                } else {
                    format!(r"\b(?:[A-Za-z0-9-]+\.)+{INTERNAL_SUFFIXES}\b")
                },
                0,
            )?);
            rules.push(rule(
                Kind::User,
                r#"(?:/home/|/Users/|[A-Za-z]:\\\\?Users\\\\?)([^/\\\s"'<>:]+)"#,
                1,
            )?);
            // The same user in an agent's folder name for a project (`-home-ana-work-app`).
            let mut slug = rule(
                Kind::User,
                r#"(?:^|[\s/\\"'=:])-(?:home|Users)-([A-Za-z0-9]+)-"#,
                1,
            )?;
            slug.slug = true;
            rules.push(slug);
            rules.push(rule(Kind::Env, r#"\b[A-Z][A-Z0-9_]{2,}=([^\s"'`]+)"#, 1)?);
        }
        let masker = (profile != Profile::None).then(Masker::default);
        Ok(Redactor {
            rules,
            masker,
            placeholders: BTreeMap::new(),
            examples: BTreeMap::new(),
            numbers: BTreeMap::new(),
            kept: Default::default(),
        })
    }

    /// The same redactor leaving `values` as they are: what a person un-masked as a false
    /// positive after the preview (a secret the secret rules know stays masked).
    pub fn keeping(mut self, values: &[String]) -> Redactor {
        self.kept.extend(values.iter().cloned());
        self
    }

    /// The placeholder of `value` (numbered the first time it is seen).
    fn placeholder(&mut self, kind: Kind, value: &str) -> String {
        if let Some((placeholder, count)) = self.placeholders.get_mut(&(kind, value.to_owned())) {
            *count += 1;
            return placeholder.clone();
        }
        let number = self.numbers.entry(kind).or_insert(0);
        *number += 1;
        let placeholder = if kind == Kind::Secret {
            "[masked:KIND]".to_owned()
        } else {
            format!("<{}-{number}>", kind.name())
        };
        self.placeholders
            .insert((kind, value.to_owned()), (placeholder.clone(), 1));
        placeholder
    }

    /// `text` with what the profile leaves out replaced.
    pub fn redact(&mut self, text: &str) -> String {
        let mut current = match &self.masker {
            Some(masker) => {
                let masked = masker.mask(text).into_owned();
                // Secrets are masked as when a transcript is kept (`[masked:KIND]`), by kind;
                // the preview counts them without their values.
                let before = text.matches("[masked:").count();
                for _ in before..masked.matches("[masked:").count() {
                    let _ = self.placeholder(Kind::Secret, "a key or token the secret rules know");
                }
                masked
            }
            None => return text.to_owned(),
        };
        for at in 0..self.rules.len() {
            let (kind, group) = (self.rules[at].kind, self.rules[at].group);
            if self.rules[at].slug {
                current = self.known_users_in_slugs(current);
            }
            if !self.rules[at].pattern.is_match(&current) {
                continue;
            }
            // The matches first (the placeholders are numbered in reading order).
            let found: Vec<(usize, usize, String)> = self.rules[at]
                .pattern
                .captures_iter(&current)
                .filter_map(|caps| {
                    let value = caps.get(group)?;
                    Some((value.start(), value.end(), value.as_str().to_owned()))
                })
                .filter(|(_, _, value)| !value.starts_with('<') && !self.kept.contains(value))
                .collect();
            let mut out = String::with_capacity(current.len());
            let mut last = 0;
            for (start, end, value) in found {
                if start < last {
                    continue;
                }
                self.examples
                    .entry((kind, value.clone()))
                    .or_insert_with(|| around(&current, start, end));
                out.push_str(&current[last..start]);
                out.push_str(&self.placeholder(kind, &value));
                last = end;
            }
            out.push_str(&current[last..]);
            current = out;
        }
        current
    }

    /// `text` with each user already found written as an agent's folder name writes it (every
    /// character but letters and digits a `-`) replaced by that user's placeholder.
    fn known_users_in_slugs(&mut self, text: String) -> String {
        let users: Vec<(String, String)> = self
            .placeholders
            .iter()
            .filter(|((kind, value), _)| {
                *kind == Kind::User && value.chars().any(|c| !c.is_ascii_alphanumeric())
            })
            .map(|((_, value), (placeholder, _))| {
                let slug: String = value
                    .chars()
                    .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
                    .collect();
                (format!("-{slug}-"), format!("-{placeholder}-"))
            })
            .collect();
        let mut text = text;
        for (slug, placeholder) in users {
            let times = text.matches(&slug).count();
            if times > 0 {
                text = text.replace(&slug, &placeholder);
                if let Some((_, count)) = self
                    .placeholders
                    .values_mut()
                    .find(|(p, _)| format!("-{p}-") == placeholder)
                {
                    *count += times;
                }
            }
        }
        text
    }

    /// Every string of `value` redacted (keys kept).
    pub fn redact_json(&mut self, value: &mut serde_json::Value) {
        match value {
            serde_json::Value::String(text) => *text = self.redact(text),
            serde_json::Value::Array(items) => {
                for item in items {
                    self.redact_json(item);
                }
            }
            serde_json::Value::Object(fields) => {
                for (_, field) in fields.iter_mut() {
                    self.redact_json(field);
                }
            }
            _ => {}
        }
    }

    /// JSON text with its strings redacted one by one (a `\n` escape is no word for a rule
    /// to run into); text that is not JSON redacted as it is.
    pub fn redact_json_text(&mut self, text: &str) -> String {
        match serde_json::from_str::<serde_json::Value>(text) {
            Ok(mut value) => {
                self.redact_json(&mut value);
                serde_json::to_string(&value).unwrap_or_else(|_| self.redact(text))
            }
            Err(_) => self.redact(text),
        }
    }

    /// Every replacement so far, by kind, then by placeholder number.
    pub fn preview(&self) -> Vec<Replacement> {
        let mut out: Vec<Replacement> = self
            .placeholders
            .iter()
            .map(|((kind, value), (placeholder, count))| Replacement {
                kind: *kind,
                value: value.clone(),
                placeholder: placeholder.clone(),
                count: *count,
                example: self
                    .examples
                    .get(&(*kind, value.clone()))
                    .cloned()
                    .unwrap_or_default(),
            })
            .collect();
        out.sort_by_key(|r| {
            let number: usize = r
                .placeholder
                .trim_end_matches('>')
                .rsplit('-')
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            (r.kind, number)
        });
        out
    }
}

/// `text[start..end]` with up to 40 characters either side, on one line.
fn around(text: &str, start: usize, end: usize) -> String {
    let before: String = {
        let chars: Vec<char> = text[..start].chars().rev().take(40).collect();
        chars.into_iter().rev().collect()
    };
    let after: String = text[end..].chars().take(40).collect();
    format!("{before}{}{after}", &text[start..end]).replace(['\n', '\r', '\t'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLANTED: &str = "Ana (ana.lopez@example.com, +44 20 7946 0958) ran it on build01.corp \
        at 10.20.30.40 from /home/ana/work/app and C:\\Users\\ana\\app; see \
        http://10.0.0.5:8080/jobs/7 and https://wiki.internal/page; DATABASE_URL=postgres://x \
        with key AKIAIOSFODNN7EXAMPLE for Project Zephyr. Mail ana.lopez@example.com again.";

    #[test]
    fn share_leaves_none_of_the_planted_values_and_numbers_them_stably() {
        let mut redactor = Redactor::new(Profile::Share, &["zephyr".to_owned()]).unwrap();
        let out = redactor.redact(PLANTED);
        for value in [
            "ana.lopez@example.com",
            "7946 0958",
            "build01.corp",
            "10.20.30.40",
            "/home/ana/",
            "Users\\ana",
            "10.0.0.5",
            "wiki.internal",
            "postgres://x",
            "AKIAIOSFODNN7EXAMPLE",
            "Zephyr",
        ] {
            assert!(!out.contains(value), "{value} left in: {out}");
        }
        // The same address, the same placeholder; each kind numbered from 1.
        assert_eq!(out.matches("<email-1>").count(), 2, "{out}");
        assert!(out.contains("/home/<user-1>/work/app"), "{out}");
        assert!(out.contains("DATABASE_URL=<env-1>"), "{out}");
        assert!(out.contains("[masked:aws_access_key]"), "{out}");
        assert!(out.contains("Project <word-1>"), "{out}");
        let preview = redactor.preview();
        let email = preview.iter().find(|r| r.kind == Kind::Email).unwrap();
        assert_eq!((email.placeholder.as_str(), email.count), ("<email-1>", 2));
        assert!(
            preview
                .iter()
                .any(|r| r.kind == Kind::Secret && r.count == 1)
        );
        // The user in both paths is one user.
        let users: Vec<&Replacement> = preview.iter().filter(|r| r.kind == Kind::User).collect();
        assert_eq!(users.len(), 1, "{users:?}");
        assert_eq!(users[0].count, 2);
    }

    #[test]
    fn a_user_in_a_project_folder_name_is_the_user_of_the_path_and_kept_values_stay() {
        let mut redactor = Redactor::new(Profile::Share, &[]).unwrap();
        let out = redactor.redact(
            "~/.claude/projects/-home-ana-work-app/1.jsonl and /home/ana/work, -Users-bo-x",
        );
        assert_eq!(
            out,
            "~/.claude/projects/-home-<user-1>-work-app/1.jsonl and /home/<user-1>/work, -Users-<user-2>-x"
        );
        // A user with a dot is `-first-last-` in a folder name: the same user.
        let mut dotted = Redactor::new(Profile::Share, &[]).unwrap();
        let out =
            dotted.redact("cd /Users/first.last/app; ls ~/.claude/projects/-Users-first-last-app");
        assert_eq!(
            out,
            "cd /Users/<user-1>/app; ls ~/.claude/projects/-Users-<user-1>-app"
        );
        assert_eq!(dotted.preview()[0].count, 2);
        let mut keeping = Redactor::new(Profile::Share, &[])
            .unwrap()
            .keeping(&["build01.corp".to_owned()]);
        let out = keeping.redact("build01.corp and db.corp");
        assert_eq!(out, "build01.corp and <host-1>");
        assert_eq!(keeping.preview().len(), 1);
    }

    #[test]
    fn each_profile_leaves_out_what_it_says() {
        let none = Redactor::new(Profile::None, &[]).unwrap().redact(PLANTED);
        assert_eq!(none, PLANTED);
        let secrets = Redactor::new(Profile::Secrets, &[])
            .unwrap()
            .redact(PLANTED);
        assert!(secrets.contains("ana.lopez@example.com") && !secrets.contains("AKIA"));
        let strict = Redactor::new(Profile::Strict, &[])
            .unwrap()
            .redact("docs at https://docs.rs/serde and example.com");
        assert!(
            !strict.contains("docs.rs") && !strict.contains("example.com"),
            "{strict}"
        );
        let share = Redactor::new(Profile::Share, &[])
            .unwrap()
            .redact("docs at https://docs.rs/serde, built 2026-12-05 10:00, id 0199aaaa-0000-7000-8000-000000000001");
        assert_eq!(
            share,
            "docs at https://docs.rs/serde, built 2026-12-05 10:00, id 0199aaaa-0000-7000-8000-000000000001",
            "public URLs, dates and ids stay"
        );
        assert!("loud".parse::<Profile>().is_err());
    }
}
