//! The wrappers agents put around what the user did not type — a slash command's
//! `<command-name>`, a `<local-command-caveat>`, `<environment_context>`, a `<system-reminder>`
//! — and what each means: a command with its arguments, or context to fold under a label.
//! One reading of a message, drawn as HTML by the reader and as Markdown by the exports.

/// The wrappers understood, and the label of the fold each becomes (none: part of a command).
const WRAPPERS: &[(&str, Option<&str>)] = &[
    ("command-name", None),
    ("command-message", None),
    ("command-args", None),
    ("command-contents", Some("Command")),
    ("local-command-stdout", Some("Command output")),
    ("local-command-stderr", Some("Command errors")),
    ("local-command-caveat", Some("Caveat")),
    ("environment_context", Some("Environment")),
    ("system-reminder", Some("System reminder")),
    ("user_instructions", Some("Instructions")),
    ("user-prompt-submit-hook", Some("Hook output")),
];

/// One piece of a message, in the order a reader shows them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part<'a> {
    /// What the person or the agent wrote, as Markdown.
    Markdown(String),
    /// Context the user did not type, to fold under its label.
    Fold {
        /// What it is (`Caveat`, `Environment`, …).
        label: &'static str,
        /// Its text, trimmed.
        text: &'a str,
    },
    /// A slash command the user ran.
    Command {
        /// The command (`/init`).
        name: &'a str,
        /// Its arguments (may be empty).
        args: &'a str,
    },
}

/// One wrapper found in a message.
struct Wrapper {
    name: &'static str,
    label: Option<&'static str>,
    /// Where `<name>` starts.
    open: usize,
    /// Its content's start and end.
    content: std::ops::Range<usize>,
    /// Just after `</name>` (the end of the text when it never closes).
    after: usize,
}

/// The first known wrapper in `text` at or after `from`.
fn next_wrapper(text: &str, from: usize) -> Option<Wrapper> {
    WRAPPERS
        .iter()
        .filter_map(|(name, label)| {
            let open_tag = format!("<{name}>");
            let open = from + text.get(from..)?.find(&open_tag)?;
            let start = open + open_tag.len();
            let close = format!("</{name}>");
            let (end, after) = match text[start..].find(&close) {
                Some(i) => (start + i, start + i + close.len()),
                None => (text.len(), text.len()),
            };
            Some(Wrapper {
                name,
                label: *label,
                open,
                content: start..end,
                after,
            })
        })
        .min_by_key(|w| w.open)
}

/// A message read into its parts: folds where their wrappers stood, then the command (when
/// the message ran one), then what is left of the text. A message with no wrapper is one
/// Markdown part.
pub fn parts(text: &str) -> Vec<Part<'_>> {
    let mut out = Vec::new();
    let mut plain = String::new();
    let mut command: Option<&str> = None;
    let mut args = "";
    let mut at = 0;
    let flush = |out: &mut Vec<Part<'_>>, plain: &mut String| {
        if !plain.trim().is_empty() {
            out.push(Part::Markdown(std::mem::take(plain)));
        }
        plain.clear();
    };
    while let Some(wrapper) = next_wrapper(text, at) {
        plain.push_str(&text[at..wrapper.open]);
        let inner = text[wrapper.content.clone()].trim();
        match (wrapper.name, wrapper.label) {
            ("command-name", _) => command = Some(inner),
            ("command-args", _) => args = inner,
            // The command's own description of itself: the command says it.
            ("command-message", _) => {}
            (_, Some(label)) => {
                flush(&mut out, &mut plain);
                out.push(Part::Fold { label, text: inner });
            }
            _ => {}
        }
        at = wrapper.after;
    }
    plain.push_str(&text[at..]);
    if let Some(name) = command {
        out.push(Part::Command { name, args });
    }
    flush(&mut out, &mut plain);
    out
}
