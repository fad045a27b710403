//! Secrets masked before a transcript is kept: provider API keys, cloud and forge tokens,
//! bearer tokens, private key blocks, and `password=`-style assignments. A secret is
//! replaced by `[masked:KIND]` (plain ASCII, so a JSON line stays valid), and only the masked
//! text is ever stored. Rules can be turned off by name and added to.

use regex::Regex;
use std::borrow::Cow;

/// One masking rule.
#[derive(Debug, Clone)]
pub struct Rule {
    /// Its name (`anthropic_key`, …), shown in the mask.
    pub name: String,
    pattern: Regex,
    /// The capture group that is the secret (0: the whole match).
    group: usize,
}

impl Rule {
    /// A rule from a regular expression; the secret is the group named `secret` if there is
    /// one, else the whole match.
    pub fn new(name: &str, pattern: &str) -> Result<Rule, String> {
        let pattern = Regex::new(pattern).map_err(|e| format!("rule `{name}`: {e}"))?;
        let group = pattern
            .capture_names()
            .position(|n| n == Some("secret"))
            .unwrap_or(0);
        Ok(Rule {
            name: name.to_owned(),
            pattern,
            group,
        })
    }
}

/// The built-in rules: name and pattern.
pub const BUILT_IN: &[(&str, &str)] = &[
    ("anthropic_key", r"sk-ant-[A-Za-z0-9_-]{20,}"),
    ("openai_key", r"sk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,}"),
    ("aws_access_key", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    (
        "github_token",
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})",
    ),
    ("google_api_key", r"\bAIza[0-9A-Za-z_-]{35}"),
    ("slack_token", r"\bxox[baprs]-[A-Za-z0-9-]{10,}"),
    ("stripe_key", r"\b(?:sk|rk)_live_[0-9A-Za-z]{16,}"),
    (
        "bearer_token",
        r"(?i)\bbearer\s+(?P<secret>[A-Za-z0-9._~+/-]{16,}=*)",
    ),
    (
        "private_key",
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----",
    ),
    (
        "password_assignment",
        r#"(?i)\b(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token)\b(?:\\?["'])?\s*(?:=|:)\s*(?:\\?["'])?(?P<secret>[^\s"'\\,;&]{4,})"#,
    ),
];

/// The rules in effect.
#[derive(Debug, Clone)]
pub struct Masker {
    rules: Vec<Rule>,
}

impl Default for Masker {
    fn default() -> Masker {
        Masker::new(&[], &[]).unwrap_or(Masker { rules: Vec::new() })
    }
}

impl Masker {
    /// The built-in rules but those named in `disabled`, then `extra` (name, pattern).
    pub fn new(disabled: &[String], extra: &[(String, String)]) -> Result<Masker, String> {
        let mut rules = Vec::new();
        for (name, pattern) in BUILT_IN {
            if !disabled.iter().any(|d| d == name) {
                rules.push(Rule::new(name, pattern)?);
            }
        }
        for (name, pattern) in extra {
            rules.push(Rule::new(name, pattern)?);
        }
        Ok(Masker { rules })
    }

    /// `text` with every secret replaced by `[masked:KIND]`; borrowed when there was none.
    pub fn mask<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut current: Cow<'a, str> = Cow::Borrowed(text);
        for rule in &self.rules {
            if !rule.pattern.is_match(&current) {
                continue;
            }
            let replaced = rule
                .pattern
                .replace_all(&current, |caps: &regex::Captures| {
                    let whole = caps.get(0).map_or("", |m| m.as_str());
                    match caps.get(rule.group) {
                        Some(secret) if rule.group != 0 => {
                            let start = secret.start() - caps.get(0).map_or(0, |m| m.start());
                            format!(
                                "{}[masked:{}]{}",
                                &whole[..start],
                                rule.name,
                                &whole[start + secret.len()..]
                            )
                        }
                        _ => format!("[masked:{}]", rule.name),
                    }
                })
                .into_owned();
            current = Cow::Owned(replaced);
        }
        current
    }

    /// `bytes` masked when they are UTF-8 text holding a secret.
    pub fn mask_bytes<'a>(&self, bytes: &'a [u8]) -> Cow<'a, [u8]> {
        match std::str::from_utf8(bytes) {
            Ok(text) => match self.mask(text) {
                Cow::Borrowed(_) => Cow::Borrowed(bytes),
                Cow::Owned(masked) => Cow::Owned(masked.into_bytes()),
            },
            Err(_) => Cow::Borrowed(bytes),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn masked(text: &str) -> String {
        Masker::default().mask(text).into_owned()
    }

    #[test]
    fn each_built_in_rule_masks_its_secret() {
        let cases = [
            (
                "key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz012345 end",
                "key [masked:anthropic_key] end",
            ),
            (
                "OPENAI sk-proj-AbCdEfGhIjKlMnOpQrStUvWx end",
                "OPENAI [masked:openai_key] end",
            ),
            ("id AKIAIOSFODNN7EXAMPLE.", "id [masked:aws_access_key]."),
            (
                "gh ghp_abcdefghijklmnopqrstuvwxyz0123456789AB x",
                "gh [masked:github_token] x",
            ),
            (
                "g AIzaSyA-abcdefghijklmnopqrstuvwxyz01234 x",
                "g [masked:google_api_key] x",
            ),
            ("s xoxb-1234567890-abcdefghij x", "s [masked:slack_token] x"),
            (
                "pay sk_live_abcdefghijklmnop1234 x",
                "pay [masked:stripe_key] x",
            ),
            (
                "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig",
                "Authorization: Bearer [masked:bearer_token]",
            ),
            (
                "-----BEGIN RSA PRIVATE KEY-----\\nMIIEowIBAAKCAQEA\\n-----END RSA PRIVATE KEY----- after",
                "[masked:private_key] after",
            ),
            (
                "export PASSWORD=hunter22 ok",
                "export PASSWORD=[masked:password_assignment] ok",
            ),
            (
                r#"{"api_key": \"abcd1234efgh\"}"#,
                r#"{"api_key": \"[masked:password_assignment]\"}"#,
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(masked(text), expected, "{text}");
        }
    }

    #[test]
    fn ordinary_text_is_left_alone_and_borrowed() {
        for text in [
            "the password is stored in the vault",
            "sk-short",
            "a bearer of bad news",
            "task-ant-colony",
        ] {
            assert!(
                matches!(Masker::default().mask(text), Cow::Borrowed(_)),
                "{text}"
            );
        }
    }

    #[test]
    fn a_masked_json_line_stays_valid_json() {
        let line = serde_json::json!({
            "message": {"content": "use sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz012345 and password=\"s3cr3t!!\""}
        })
        .to_string();
        let out = Masker::default().mask(&line).into_owned();
        let value: serde_json::Value = serde_json::from_str(&out).unwrap();
        let content = value["message"]["content"].as_str().unwrap();
        assert!(!content.contains("sk-ant-api03"), "{content}");
        assert!(!content.contains("s3cr3t"), "{content}");
    }

    #[test]
    fn rules_can_be_turned_off_and_added() {
        let masker = Masker::new(
            &["aws_access_key".to_owned()],
            &[("ticket".to_owned(), r"TICKET-\d+".to_owned())],
        )
        .unwrap();
        assert_eq!(
            masker.mask("AKIAIOSFODNN7EXAMPLE TICKET-42"),
            "AKIAIOSFODNN7EXAMPLE [masked:ticket]"
        );
        assert!(Masker::new(&[], &[("bad".to_owned(), "(".to_owned())]).is_err());
    }
}
