//! A share as one HTML file that opens offline in any browser: the content first (it reads
//! with scripts off), one inline style and one inline script, each allowed by its hash in the
//! file's own Content-Security-Policy, which allows nothing else (no request leaves the page).
//! A password-locked file holds only the sealed content and the few lines that open it.

use crate::analyzer::safe_html::escape;
use crate::share::seal::Sealed;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use sha2::{Digest, Sha256};

/// The file's only style.
pub const STYLE: &str = include_str!("share.css");
/// The file's only script: folds and opens the cards, and opens a locked file.
pub const SCRIPT: &str = include_str!("share.js");

/// What a file shows.
#[derive(Debug, Clone, Copy)]
pub enum Content<'a> {
    /// The content as [`body`](crate::share::html::body) drew it, and its title.
    Open {
        /// The title in the browser's tab.
        title: &'a str,
        /// The content.
        html: &'a str,
    },
    /// The content sealed with a password (its title too).
    Sealed(&'a Sealed),
}

/// A CSP source for an inline element's exact text.
fn hash_source(text: &str) -> String {
    format!(
        "'sha256-{}'",
        STANDARD.encode(Sha256::digest(text.as_bytes()))
    )
}

/// The policy every share carries: its own style and script, and nothing from anywhere.
pub fn policy() -> String {
    format!(
        "default-src 'none'; style-src {}; script-src {}; img-src 'none'; base-uri 'none'; form-action 'none'",
        hash_source(STYLE),
        hash_source(SCRIPT)
    )
}

/// The whole file: `content`, then `footer` (a line of text: who made it, when, what was
/// redacted).
pub fn document(content: Content<'_>, footer: &str) -> String {
    let (title, size) = match content {
        Content::Open { title, html } => (title, html.len()),
        Content::Sealed(sealed) => (
            "A password-protected share",
            sealed.ciphertext.len() * 4 / 3,
        ),
    };
    let mut out = String::with_capacity(size + STYLE.len() + SCRIPT.len() + 2048);
    out.push_str("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str(&format!(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">\n",
        policy()
    ));
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"referrer\" content=\"no-referrer\">\n<meta name=\"robots\" content=\"noindex\">\n");
    out.push_str(&format!("<title>{}</title>\n", escape(title)));
    out.push_str("<style>");
    out.push_str(STYLE);
    out.push_str(
        "</style>\n</head>\n<body>\n<div id=\"controls\" class=\"controls\" hidden></div>\n",
    );
    match content {
        Content::Open { html, .. } => {
            out.push_str("<div id=\"content\">\n");
            out.push_str(html);
            out.push_str("</div>\n");
        }
        Content::Sealed(sealed) => {
            out.push_str(
                "<noscript><p class=\"lock\">This share is locked with a password. Opening it needs JavaScript: allow it for this file, or ask for a copy without a password.</p></noscript>\n",
            );
            out.push_str(
                "<form id=\"unlock\" class=\"lock\" hidden><h1>A password-protected share</h1><label for=\"password\">Password</label><input id=\"password\" name=\"password\" type=\"password\" autocomplete=\"off\" required><button type=\"submit\">Open</button><p id=\"unlock-status\" class=\"status\" role=\"status\" aria-live=\"polite\"></p></form>\n<div id=\"content\"></div>\n",
            );
            out.push_str(&format!(
                "<pre id=\"sealed\" hidden data-salt=\"{}\" data-nonce=\"{}\" data-iterations=\"{}\">",
                STANDARD.encode(sealed.salt),
                STANDARD.encode(sealed.nonce),
                sealed.iterations
            ));
            // Wrapped so that an editor or a mail client can carry the file (atob skips the
            // line breaks).
            let text = STANDARD.encode(&sealed.ciphertext);
            for (n, chunk) in text.as_bytes().chunks(120).enumerate() {
                if n > 0 {
                    out.push('\n');
                }
                out.push_str(std::str::from_utf8(chunk).unwrap_or_default());
            }
            out.push_str("</pre>\n");
        }
    }
    out.push_str(&format!("<footer>{}</footer>\n", escape(footer)));
    out.push_str("<script>");
    out.push_str(SCRIPT);
    out.push_str("</script>\n</body>\n</html>\n");
    out
}
