//! Session notes: Baton's parts spliced into a note a person edits, every other byte kept
//! (keys, comments, quoting, CRLF, text around the regions), re-rendering idempotent, broken
//! notes refused; and where a note lives.

use baton_core::notes::{
    NoteName, OwnedParts, SpliceRefusal, note_path, splice, yaml_meaning, yaml_scalar,
};
use baton_core::time::Timestamp;
use proptest::prelude::*;

fn owned(status: &str, summary: &str) -> OwnedParts {
    OwnedParts {
        keys: vec![
            (
                "session_id".into(),
                "019c0000-0000-7000-8000-00000000000a".into(),
            ),
            ("project".into(), "demo".into()),
            ("status".into(), yaml_scalar(status)),
            ("started_at".into(), yaml_scalar("2026-07-18T20:00:00.000Z")),
        ],
        regions: vec![
            ("goal".into(), "Implement the search feature".into()),
            ("summary".into(), summary.into()),
        ],
        title: None,
    }
}

/// A note a person has worked on: extra keys with comments, a list, quoted strings, Unicode,
/// a comment after an owned value, text above, between and below Baton's regions.
const EDITED: &str = "---\n\
tags: [work, search]   # mine\n\
session_id: 019c0000-0000-7000-8000-00000000000a\n\
project: demo\n\
aliases:\n  - \"Search — v2\"\n  - 'quoted: yes'\n\
status: active # Baton's, with my comment\n\
started_at: \"2026-07-18T20:00:00.000Z\"\n\
rating: 5\n\
---\n\
# My heading ✍️\n\
\n\
Notes above.\n\
<!-- baton:goal -->\n\
old goal\n\
<!-- /baton:goal -->\n\
Between the regions: 日本語.\n\
<!-- baton:summary -->\n\
<!-- /baton:summary -->\n\
\n\
Below, with a trailing space \n";

/// The note without what Baton owns: the owned keys' lines and the regions' insides.
fn not_owned(text: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\r', '\n']);
        if bare.starts_with("<!-- /baton:") {
            inside = false;
        }
        let owned_key = ["session_id:", "project:", "status:", "started_at:"]
            .iter()
            .any(|k| bare.starts_with(k));
        if !inside && !owned_key {
            out.push_str(line);
        }
        if bare.starts_with("<!-- baton:") {
            inside = true;
        }
    }
    out
}

#[test]
fn a_hand_edited_note_keeps_every_byte_baton_does_not_own() {
    // Baton wrote `status: active` last time; now the session is done.
    let earlier = owned("active", "").keys;
    let done = splice(EDITED, &owned("done", "Implemented and tested."), &earlier).unwrap();
    assert!(done.changed);
    assert_eq!(not_owned(&done.text), not_owned(EDITED));
    assert!(
        done.text
            .contains("status: done # Baton's, with my comment\n"),
        "{}",
        done.text
    );
    assert!(
        done.text
            .contains("<!-- baton:goal -->\nImplement the search feature\n<!-- /baton:goal -->")
    );
    assert!(
        done.text
            .contains("<!-- baton:summary -->\nImplemented and tested.\n<!-- /baton:summary -->")
    );
    assert!(done.kept.is_empty(), "{:?}", done.kept);
    // Splicing what is there changes nothing: a host leaves the file (and its mtime) alone.
    let wanted = owned("done", "Implemented and tested.");
    let again = splice(&done.text, &wanted, &wanted.keys).unwrap();
    assert!(!again.changed);
    assert_eq!(again.text, done.text);
}

#[test]
fn a_key_a_person_changed_is_kept_and_reported_not_replaced() {
    let earlier = owned("active", "").keys;
    let mine = EDITED.replace("project: demo", "project: search-v2 # renamed");
    let spliced = splice(&mine, &owned("done", ""), &earlier).unwrap();
    assert!(
        spliced.text.contains("project: search-v2 # renamed\n"),
        "{}",
        spliced.text
    );
    assert_eq!(spliced.kept.len(), 1, "{:?}", spliced.kept);
    assert_eq!(spliced.kept[0].key, "project");
    assert_eq!(spliced.kept[0].on_disk, "search-v2");
    assert_eq!(spliced.kept[0].wanted, "demo");
    // With no record of what Baton wrote, a differing value is a person's too.
    let unknown = splice(&mine, &owned("active", ""), &[]).unwrap();
    assert_eq!(unknown.kept.len(), 1);
    assert!(unknown.text.contains("project: search-v2"));
}

/// What the ledger recorded is Baton's whatever the note says: an editor that saves a copy
/// read before the last render (`status: working` after Baton wrote `paused`) has it put
/// right by the next render, not kept as a person's edit.
#[test]
fn a_stale_status_saved_over_a_newer_render_is_put_right() {
    let last_written = owned("paused", "").keys;
    let stale = EDITED.replace("status: active #", "status: working #");
    let spliced = splice(&stale, &owned("done", ""), &last_written).unwrap();
    assert!(
        spliced
            .text
            .contains("status: done # Baton's, with my comment\n"),
        "{}",
        spliced.text
    );
    assert!(spliced.kept.is_empty(), "{:?}", spliced.kept);
    let mine = EDITED.replace("status: active #", "status: reviewing #");
    let spliced = splice(&mine, &owned("done", ""), &[]).unwrap();
    assert!(spliced.text.contains("status: done #"));
    // An editor that only re-quoted a value changed nothing Baton cares about.
    let requoted = EDITED.replace(
        "started_at: \"2026-07-18T20:00:00.000Z\"",
        "started_at: '2026-07-18T20:00:00.000Z'",
    );
    let wanted = owned("active", "");
    let same = splice(&requoted, &wanted, &wanted.keys).unwrap();
    assert!(same.kept.is_empty(), "{:?}", same.kept);
    assert!(same.text.contains("started_at: '2026-07-18T20:00:00.000Z'"));
}

#[test]
fn a_notes_session_is_the_one_its_frontmatter_names() {
    use baton_core::notes::frontmatter_value;
    let id = frontmatter_value(EDITED, "session_id").unwrap();
    assert_eq!(id.as_deref(), Some("019c0000-0000-7000-8000-00000000000a"));
    assert_eq!(frontmatter_value(EDITED, "ended_at").unwrap(), None);
    assert_eq!(
        frontmatter_value("no frontmatter", "session_id").unwrap(),
        None
    );
    assert_eq!(
        frontmatter_value("---\nsession_id: \"x\" # c\n---\n", "session_id").unwrap(),
        Some("x".to_owned())
    );
    // A frontmatter that never closes is broken, even where the key comes first.
    assert_eq!(
        frontmatter_value("---\nsession_id: x\nstatus: mine\n", "session_id"),
        Err(SpliceRefusal::UnclosedFrontmatter)
    );
}

#[test]
fn odd_notes_keep_their_bytes_and_markers_in_content_stay_text() {
    // A byte order mark stays first; the frontmatter after it is still read.
    let bom = format!("\u{feff}{EDITED}");
    let earlier = owned("active", "").keys;
    let done = splice(&bom, &owned("done", ""), &earlier).unwrap();
    assert!(
        done.text.starts_with("\u{feff}---\n"),
        "{:?}",
        &done.text[..20]
    );
    assert!(done.text.contains("status: done #"));
    assert_eq!(
        baton_core::notes::frontmatter_value(&bom, "project").unwrap(),
        Some("demo".to_owned())
    );
    // A goal or summary quoting Baton's markers neither grows the note nor breaks it.
    let wanted = OwnedParts {
        regions: vec![
            (
                "goal".into(),
                "Fix <!-- /baton:goal --> parsing\n<!-- baton:summary -->".into(),
            ),
            ("summary".into(), "<!-- /baton:summary -->".into()),
        ],
        ..owned("active", "")
    };
    let first = splice(EDITED, &wanted, &earlier).unwrap();
    let second = splice(&first.text, &wanted, &wanted.keys).unwrap();
    assert!(!second.changed, "{}", second.text);
    assert_eq!(first.text.matches("<!-- baton:goal -->").count(), 1);
    assert!(
        first.text.contains("Fix &lt;!-- /baton:goal --> parsing"),
        "{}",
        first.text
    );
    assert_eq!(not_owned(&first.text), not_owned(EDITED));
    // A marker not alone on its line is a person's text, not a region.
    let inline = "---\n---\nsee <!-- baton:goal --> here\n";
    let spliced = splice(inline, &owned("active", ""), &[]).unwrap();
    assert!(
        spliced
            .text
            .contains("see <!-- baton:goal --> here\n\n<!-- baton:goal -->\n"),
        "{}",
        spliced.text
    );
    // `...` does not close a frontmatter (Obsidian reads only `---`).
    assert_eq!(
        splice("---\nstatus: a\n...\nbody\n", &owned("done", ""), &[]),
        Err(SpliceRefusal::UnclosedFrontmatter)
    );
    // A single-quoted value with '' inside is one value, its comment kept.
    let quoted = EDITED.replace("status: active # Baton's", "status: 'it''s' # Baton's");
    let kept = splice(
        &quoted,
        &owned("done", ""),
        &[("status".into(), "\"it's\"".into())],
    )
    .unwrap();
    assert!(kept.kept.is_empty(), "{:?}", kept.kept);
    assert!(
        kept.text.contains("status: done # Baton's"),
        "{}",
        kept.text
    );
}

#[test]
fn yaml_meaning_reads_both_quotings() {
    assert_eq!(yaml_meaning("\"a \\\"b\\\" \\u00e9\\n\""), "a \"b\" é\n");
    assert_eq!(yaml_meaning("'it''s'"), "it's");
    assert_eq!(yaml_meaning("  plain "), "plain");
    for value in ["yes", "say \"hi\"\n", "日本", "a\tb", "\u{7}"] {
        assert_eq!(yaml_meaning(&yaml_scalar(value)), value);
    }
}

#[test]
fn crlf_notes_stay_crlf() {
    let crlf = EDITED.replace('\n', "\r\n");
    let earlier = owned("active", "").keys;
    let done = splice(&crlf, &owned("done", "line one\nline two"), &earlier).unwrap();
    assert!(
        !done.text.replace("\r\n", "").contains('\n'),
        "no bare LF: {:?}",
        done.text
    );
    assert_eq!(not_owned(&done.text), not_owned(&crlf));
    assert!(
        done.text
            .contains("line one\r\nline two\r\n<!-- /baton:summary -->")
    );
    assert!(
        !splice(&done.text, &owned("done", "line one\nline two"), &[])
            .unwrap()
            .changed
    );
}

#[test]
fn a_new_note_gets_frontmatter_and_regions_and_missing_parts_are_added() {
    let fresh = splice("", &owned("active", ""), &[]).unwrap();
    assert!(
        fresh.text.starts_with("---\nsession_id: 019c"),
        "{}",
        fresh.text
    );
    assert!(
        fresh
            .text
            .contains("started_at: \"2026-07-18T20:00:00.000Z\"\n---\n")
    );
    assert!(fresh.text.ends_with("<!-- /baton:summary -->\n"));
    assert!(
        !splice(&fresh.text, &owned("active", ""), &[])
            .unwrap()
            .changed
    );
    // A note a person started by hand, with no frontmatter and no regions.
    let own = splice("Just my thoughts", &owned("active", ""), &[]).unwrap();
    assert!(
        own.text
            .contains("---\nJust my thoughts\n\n<!-- baton:goal -->"),
        "{}",
        own.text
    );
    // A frontmatter without Baton's keys gets them after the person's.
    let keys = splice("---\nmine: 1\n---\nbody\n", &owned("active", ""), &[]).unwrap();
    assert!(
        keys.text.starts_with("---\nmine: 1\nsession_id: "),
        "{}",
        keys.text
    );
}

#[test]
fn a_note_baton_cannot_read_is_refused_whole() {
    assert_eq!(
        splice("---\nstatus: active\nno end\n", &owned("done", ""), &[]),
        Err(SpliceRefusal::UnclosedFrontmatter)
    );
    assert_eq!(
        splice(
            "---\n---\n<!-- baton:goal -->\ncut off\n",
            &owned("done", ""),
            &[]
        ),
        Err(SpliceRefusal::UnclosedRegion("goal".into()))
    );
}

#[test]
fn values_are_quoted_when_yaml_would_read_them_otherwise() {
    assert_eq!(yaml_scalar("claude-code"), "claude-code");
    // A UUIDv7 is a string to YAML: written as the spec shows it.
    assert_eq!(
        yaml_scalar("019c3a5e-0000-7000-8000-00000000000a"),
        "019c3a5e-0000-7000-8000-00000000000a"
    );
    assert_eq!(
        yaml_scalar("2026-07-18T20:00:00.000Z"),
        "\"2026-07-18T20:00:00.000Z\""
    );
    for tricky in [
        "yes",
        "null",
        "12",
        "-x",
        "a: b",
        "# c",
        "",
        "say \"hi\"\n",
        "0x1F",
        "2026-07-18",
        "y",
        "N",
    ] {
        assert!(yaml_scalar(tricky).starts_with('"'), "{tricky}");
    }
    assert_eq!(yaml_scalar("say \"hi\"\n"), "\"say \\\"hi\\\"\\n\"");
}

#[test]
fn notes_live_under_the_project_with_a_suffix_when_the_name_is_taken() {
    let at = Timestamp::parse("2026-07-18T20:00:00Z").unwrap();
    let id = "019c3a5e-0000-7000-8000-00000000000a";
    assert_eq!(
        note_path("demo", "claude", at, id, NoteName::Plain),
        "Projects/demo/sessions/2026-07-18-2000-claude.md"
    );
    // The random end of the id, not its start (the time, shared within a minute).
    assert_eq!(
        note_path("demo", "claude", at, id, NoteName::Short),
        "Projects/demo/sessions/2026-07-18-2000-claude-0000000a.md"
    );
    assert_eq!(
        note_path("demo", "claude", at, id, NoteName::Full),
        "Projects/demo/sessions/2026-07-18-2000-claude-019c3a5e00007000800000000000000a.md"
    );
    assert_eq!(
        note_path("../etc", "a/b", at, id, NoteName::Plain),
        "Projects/-etc/sessions/2026-07-18-2000-a-b.md"
    );
    assert_eq!(
        note_path("..", "\n", at, id, NoteName::Plain),
        "Projects/-/sessions/2026-07-18-2000--.md"
    );
    // Characters that end an Obsidian link, and names too long for a file.
    assert_eq!(
        note_path("a#b^c[d]|e", &"x".repeat(300), at, id, NoteName::Plain),
        format!(
            "Projects/a-b-c-d--e/sessions/2026-07-18-2000-{}.md",
            "x".repeat(80)
        )
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Whatever a person writes around Baton's regions, and however often Baton re-renders
    /// with new values, none of the person's bytes change.
    #[test]
    fn re_renders_never_touch_a_persons_bytes(
        above in "[a-zA-Z0-9 #*\\-é日]{0,40}",
        between in "[a-zA-Z0-9 \\[\\]()é<>!-]{0,40}",
        below in "[a-zA-Z0-9 >|é]{0,40}",
        extra in "[a-z]{1,8}",
        crlf in any::<bool>(),
        renders in proptest::collection::vec(
            ("[a-z]{1,10}", "([a-zA-Z0-9 .\\n]|<!-- /?baton:(goal|summary) -->){0,12}"),
            1..100,
        ),
    ) {
        let note = format!(
            "---\n{extra}x: \"kept\" # c\nstatus: active\n---\n{above}\n<!-- baton:goal -->\n<!-- /baton:goal -->\n{between}\n<!-- baton:summary -->\n<!-- /baton:summary -->\n{below}\n"
        );
        let note = if crlf { note.replace('\n', "\r\n") } else { note };
        let mut text = note.clone();
        let mut earlier = owned("active", "").keys;
        for (status, summary) in &renders {
            let wanted = owned(status, summary);
            let spliced = splice(&text, &wanted, &earlier).unwrap();
            prop_assert!(spliced.kept.is_empty());
            text = spliced.text;
            earlier = wanted.keys;
        }
        prop_assert_eq!(not_owned(&text), not_owned(&note));
        let last = &renders[renders.len() - 1];
        let spliced = splice(&text, &owned(&last.0, &last.1), &earlier).unwrap();
        prop_assert!(!spliced.changed);
        let eol = if crlf { "\r\n" } else { "\n" };
        let last_status = format!("status: {}{eol}", yaml_scalar(&last.0));
        prop_assert!(text.contains(&last_status));
    }
}
