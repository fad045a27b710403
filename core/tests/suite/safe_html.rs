//! Markdown to safe HTML for the reader: what renders (headings, lists, tables, code with its
//! language, links), and what never gets through: script, event handlers, `javascript:` and
//! other schemes, remote images, attributes outside a short list. A property holds the output
//! of any text to the allowed tags and attributes.

use baton_core::analyzer::safe_html::{TAGS, render, safe_url};
use proptest::prelude::*;
use regex::Regex;

/// Every tag in `html` is allowed, with only allowed attributes, and every href is safe.
fn assert_inert(html: &str) {
    let tag = Regex::new(r"<(/?)([A-Za-z][A-Za-z0-9]*)([^>]*)>").unwrap();
    let attribute = Regex::new(r#"\s+([a-z-]+)="([^"]*)""#).unwrap();
    for found in tag.captures_iter(html) {
        let name = &found[2];
        assert!(TAGS.contains(&name), "tag <{name}> in {html}");
        let rest = &found[3];
        let stripped = attribute.replace_all(rest, "");
        assert!(
            stripped.trim().is_empty(),
            "stray attribute text {rest:?} in {html}"
        );
        for attr in attribute.captures_iter(rest) {
            let (key, value) = (&attr[1], &attr[2]);
            assert!(
                ["href", "rel", "target", "start", "class"].contains(&key),
                "attribute {key} in {html}"
            );
            if key == "href" {
                assert!(safe_url(value).is_some(), "href {value} in {html}");
            }
        }
    }
    let lower = html.to_ascii_lowercase();
    assert!(!lower.contains("<script"), "{html}");
    assert!(!lower.contains("<img"), "{html}");
    assert!(!lower.contains("<svg"), "{html}");
    assert!(!lower.contains("<iframe"), "{html}");
}

#[test]
fn markdown_renders_as_the_reader_shows_it() {
    let html = render(
        "# Plan\n\nWe **must** fix `parse()` and ~~drop~~ *keep* it.\n\n\
         1. one\n2. two\n\n- [x] done\n- [ ] todo\n\n\
         ```rust\nfn main() { println!(\"<hi>\"); }\n```\n\n\
         | a | b |\n|---|---|\n| 1 | 2 |\n\n\
         See [the docs](https://example.com/a?b=1&c=2) or mail <mailto:dev@example.com>.\n\n> quoted",
    );
    assert_inert(&html);
    assert!(html.contains("<h3>Plan</h3>"), "{html}");
    assert!(html.contains("<strong>must</strong>"));
    assert!(html.contains("<code>parse()</code>"));
    assert!(html.contains("<del>drop</del>") && html.contains("<em>keep</em>"));
    assert!(html.contains("<ol>") && html.contains("<li>one</li>"));
    assert!(html.contains("<span>☑</span> done"));
    assert!(html.contains(
        "<pre><code class=\"language-rust\">fn main() { println!(&quot;&lt;hi&gt;&quot;); }"
    ));
    assert!(html.contains("<th>a</th>") && html.contains("<td>2</td>"));
    assert!(html.contains("href=\"https://example.com/a?b=1&amp;c=2\""));
    assert!(html.contains("href=\"mailto:dev@example.com\""));
    assert!(html.contains("<blockquote>"));
}

#[test]
fn hostile_text_renders_inert() {
    let payloads = [
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        "<svg onload=alert(1)><circle/></svg>",
        "<iframe src=\"javascript:alert(1)\"></iframe>",
        "[click](javascript:alert(1))",
        "[click](JaVaScRiPt:alert(1))",
        "[click]( javascript:alert(1) )",
        "[click](java\tscript:alert(1))",
        "[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
        "[rel](/etc/passwd)",
        "<javascript:alert(1)>",
        "![pixel](https://tracker.example/p.png)",
        "![x](javascript:alert(1))",
        "[t](https://ok.example \"a\\\" onmouseover=\\\"alert(1)\")",
        "```\"><script>alert(1)</script>\nbody\n```",
        "<a href=\"https://x\" onclick=\"alert(1)\">x</a>",
        "<div style=\"background:url(javascript:alert(1))\">x</div>",
        "text\n\n<details open ontoggle=alert(1)>",
    ];
    for payload in payloads {
        let html = render(payload);
        assert_inert(&html);
        assert!(
            !html.to_ascii_lowercase().contains("href=\"javascript"),
            "{html}"
        );
    }
    // Raw HTML shows as its text; an image is a link, never loaded.
    assert!(render("<script>alert(1)</script>").contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    let image = render("![pixel](https://tracker.example/p.png)");
    assert!(image.contains("[image: pixel]</a>"), "{image}");
    assert_eq!(render("[click](javascript:alert(1))"), "<p>click</p>\n");
}

proptest! {
    #[test]
    fn any_text_renders_to_allowed_tags_only(text in "\\PC{0,200}") {
        assert_inert(&render(&text));
    }

    #[test]
    fn markup_soup_renders_to_allowed_tags_only(
        parts in proptest::collection::vec(
            prop_oneof![
                Just("<script>"), Just("</script>"), Just("<img src=x onerror=y>"), Just("[a]("),
                Just(")"), Just("javascript:"), Just("https://x"), Just("!["), Just("]"),
                Just("```"), Just("\n"), Just("`"), Just("*"), Just("| a |"), Just("<"),
                Just("\""), Just(" on"), Just("="), Just("&"), Just("<svg"), Just(">"),
            ],
            0..40,
        )
    ) {
        assert_inert(&render(&parts.concat()));
    }
}
