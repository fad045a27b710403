//! The records' rules, one test per refusal and per distinct error.

use super::*;
use crate::error::ErrorCode;
use crate::ledger::record::sha256_hex;

fn id(n: u128) -> Uuid {
    Uuid::from_u128(0x0190_0000_0000_7000_8000_0000_0000_0000 | n)
}

fn request(content: &str) -> StoreRequest {
    StoreRequest {
        content: Some(content.to_owned()),
        ..StoreRequest::default()
    }
}

fn refused_field(err: Error) -> String {
    assert_eq!(err.code, ErrorCode::InvalidArgument, "{err}");
    err.details["field"].as_str().unwrap_or_default().to_owned()
}

#[test]
fn content_is_required_and_not_blank_and_kept_verbatim() {
    let now = Timestamp::from_millis(1_780_000_000_000);
    let missing = StoreRequest::default().into_record(id(1), now, None);
    assert_eq!(refused_field(missing.unwrap_err()), "content");
    let blank = request(" \n\t").into_record(id(1), now, None);
    assert_eq!(refused_field(blank.unwrap_err()), "content");
    let kept = request("  two spaces, kept\n")
        .into_record(id(1), now, None)
        .unwrap();
    assert_eq!(kept.content, "  two spaces, kept\n");
    assert_eq!((kept.created_at, kept.updated_at), (now, now));
}

#[test]
fn each_optional_field_given_blank_is_refused_by_its_name() {
    let now = Timestamp::from_millis(0);
    let cases: [(&str, StoreRequest); 4] = [
        (
            "title",
            StoreRequest {
                title: Some("  ".into()),
                ..request("x")
            },
        ),
        (
            "provider",
            StoreRequest {
                provider: Some(String::new()),
                ..request("x")
            },
        ),
        (
            "provider_session_id",
            StoreRequest {
                provider_session_id: Some("\t".into()),
                ..request("x")
            },
        ),
        (
            "tags",
            StoreRequest {
                tags: vec!["review".into(), " ".into()],
                ..request("x")
            },
        ),
    ];
    for (field, asked) in cases {
        let err = asked.into_record(id(2), now, None).unwrap_err();
        assert!(err.message.contains(field), "{}", err.message);
        assert_eq!(refused_field(err), field);
    }
    let trimmed = StoreRequest {
        title: Some(" PR #610 review ".into()),
        tags: vec![" a ".into()],
        ..request("x")
    }
    .into_record(id(2), now, None)
    .unwrap();
    assert_eq!(trimmed.about.title.as_deref(), Some("PR #610 review"));
    assert_eq!(trimmed.about.tags, vec!["a".to_owned()]);
    // A tag or provider that reads as another name is refused, naming it.
    for (field, asked) in [
        (
            "tags",
            StoreRequest {
                tags: vec!["rev\u{202e}weiv".into()],
                ..request("x")
            },
        ),
        (
            "provider",
            StoreRequest {
                provider: Some("\u{43e}penai".into()),
                ..request("x")
            },
        ),
    ] {
        let err = asked.into_record(id(2), now, None).unwrap_err();
        assert_eq!(refused_field(err), field);
    }
}

#[test]
fn a_list_takes_1_to_200_a_non_negative_offset_and_an_rfc_3339_since() {
    let plain = ListQuery::parse(None, None, None, None, None).unwrap();
    assert_eq!((plain.limit, plain.offset), (20, 0));
    for bad in [0, 201, -1] {
        let err = ListQuery::parse(Some(bad), None, None, None, None).unwrap_err();
        assert_eq!(refused_field(err), "limit");
    }
    assert_eq!(
        ListQuery::parse(Some(200), None, None, None, None)
            .unwrap()
            .limit,
        200
    );
    let err = ListQuery::parse(None, Some(-5), None, None, None).unwrap_err();
    assert_eq!(refused_field(err), "offset");
    let err = ListQuery::parse(None, None, None, None, Some("yesterday")).unwrap_err();
    assert_eq!(refused_field(err), "since");
    let since = ListQuery::parse(None, None, None, None, Some("2026-05-01T09:00:00+02:00"))
        .unwrap()
        .since
        .unwrap();
    assert_eq!(since.to_string(), "2026-05-01T07:00:00.000Z");
    let err = ListQuery::parse(None, None, Some(" ".into()), None, None).unwrap_err();
    assert_eq!(refused_field(err), "provider");
    let err = ListQuery::parse(None, None, None, Some("".into()), None).unwrap_err();
    assert_eq!(refused_field(err), "agent_id");
}

#[test]
fn an_id_is_a_uuid_or_eight_or_more_hex_digits() {
    let whole = id(7).to_string();
    assert_eq!(IdQuery::parse(&whole).unwrap(), IdQuery::Whole(id(7)));
    assert_eq!(
        IdQuery::parse(" 0190ABCD ").unwrap(),
        IdQuery::Prefix("0190abcd".into())
    );
    assert_eq!(
        IdQuery::parse("01900000-0000").unwrap(),
        IdQuery::Prefix("019000000000".into())
    );
    for bad in ["0190abc", "0190abcz", "", &"0".repeat(33)] {
        let err = IdQuery::parse(bad).unwrap_err();
        assert_eq!(refused_field(err), "id", "{bad:?}");
    }
}

#[test]
fn resolution_tells_no_match_from_several_from_another_kind() {
    let known = [
        (id(0x10), Kind::Record),
        (id(0x11), Kind::Record),
        (
            Uuid::from_u128(0xaaaa_0000_0000_7000_8000_0000_0000_0001),
            Kind::WorkSession,
        ),
        (
            Uuid::from_u128(0xbbbb_0000_0000_7000_8000_0000_0000_0001),
            Kind::MirroredConversation,
        ),
    ];
    let one = IdQuery::parse(&id(0x10).to_string()).unwrap();
    assert_eq!(resolve(&one, known).unwrap(), id(0x10));

    let both = IdQuery::parse("01900000").unwrap();
    let err = resolve(&both, known).unwrap_err();
    assert_eq!(err.code, ErrorCode::AmbiguousRecord);
    let candidates: Vec<&str> = err.details["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert_eq!(candidates, vec![id(0x10).to_string(), id(0x11).to_string()]);

    let session = IdQuery::parse("aaaa0000").unwrap();
    let err = resolve(&session, known).unwrap_err();
    assert_eq!(err.code, ErrorCode::NotARecord);
    assert_eq!(err.details["kind"], "work_session");
    assert!(err.message.contains("a work session"), "{}", err.message);
    let mirrored = IdQuery::parse("bbbb0000").unwrap();
    assert_eq!(
        resolve(&mirrored, known).unwrap_err().details["kind"],
        "mirrored_conversation"
    );

    let nothing = IdQuery::parse("cccc0000").unwrap();
    assert_eq!(
        resolve(&nothing, known).unwrap_err().code,
        ErrorCode::RecordNotFound
    );
}

#[test]
fn the_format_is_json_or_markdown() {
    assert_eq!(ExportFormat::parse(None).unwrap(), ExportFormat::Json);
    assert_eq!(
        ExportFormat::parse(Some("markdown")).unwrap(),
        ExportFormat::Markdown
    );
    let err = ExportFormat::parse(Some("html")).unwrap_err();
    assert_eq!(refused_field(err), "format");
}

#[test]
fn markdown_has_the_heading_the_metadata_and_the_content_verbatim() {
    let at = Timestamp::from_millis(1_780_000_000_000);
    let titled = Record {
        id: id(0x42),
        about: RecordAbout {
            title: Some("PR #610 review session".into()),
            provider: Some("claude_code".into()),
            provider_session_id: Some("5c1e0000-aaaa-4bbb-8ccc-000000000001".into()),
            tags: vec!["review".into(), "hand-off".into()],
            work_session: None,
            agent_id: None,
        },
        created_at: at,
        updated_at: Timestamp::from_millis(1_780_000_360_000),
        content: "Looked at the diff.\n\n```sh\ncargo test\n```\nno trailing newline".into(),
    };
    insta::assert_snapshot!("record_markdown_titled", markdown(&titled));
    let untitled = Record {
        about: RecordAbout::default(),
        ..titled
    };
    let text = markdown(&untitled);
    assert!(text.starts_with("# Session 01900000\n"), "{text}");
    assert!(text.contains("- provider: (none)\n- provider_session_id: (none)\n"));
    assert!(text.ends_with(
        "## Content\n\nLooked at the diff.\n\n```sh\ncargo test\n```\nno trailing newline"
    ));
}

fn record_of(content: &str, title: Option<&str>) -> Record {
    let mut record = StoreRequest {
        title: title.map(str::to_owned),
        ..request(content)
    }
    .into_record(id(7), Timestamp::from_millis(1_780_000_000_000), None)
    .unwrap();
    record.about.agent_id = Some("claude".into());
    record
}

fn event_id() -> crate::ids::EventId {
    crate::ids::EventId(id(0xe1))
}

#[test]
fn content_that_fits_a_line_stays_in_the_event_and_reads_back_whole() {
    let record = record_of("short \"quoted\" content\n", Some("Review"));
    let plan = plan_store(
        &record,
        event_id(),
        crate::ledger::event::Actor::agent("claude"),
    )
    .unwrap();
    assert!(plan.blob.is_none());
    assert_eq!(plan.event.session, crate::ids::RECORDS_STREAM);
    let line = plan.event.encode().unwrap();
    let crate::ledger::event::Line::Event(event) =
        crate::ledger::event::decode_line(line.as_bytes())
    else {
        panic!("not an event: {line}")
    };
    let stored = stored_record(&event).unwrap();
    assert_eq!(stored.event, event_id());
    assert_eq!(stored.with_content(None).unwrap(), record);
}

#[test]
fn content_over_the_line_cap_goes_to_a_blob_named_by_its_hash() {
    let content = "é".repeat(3000);
    let record = record_of(&content, None);
    let plan = plan_store(
        &record,
        event_id(),
        crate::ledger::event::Actor::agent("claude"),
    )
    .unwrap();
    let blob = plan.blob.clone().unwrap();
    assert_eq!(blob.bytes, content.len() as u64);
    assert_eq!(blob.sha256, sha256_hex(content.as_bytes()));
    assert_eq!(
        sha256_hex(b"abc"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    let line = plan.event.encode().unwrap();
    assert!(line.len() <= crate::ledger::event::MAX_EVENT_BYTES);
    assert!(!line.contains("éé"), "the content stayed in the line");
    let stored = stored_record(&plan.event).unwrap();
    assert_eq!(
        stored
            .clone()
            .with_content(Some(content.as_bytes()))
            .unwrap(),
        record
    );
    // A missing, cut or altered blob is refused, naming the record and the blob.
    for damaged in [
        None,
        Some(&content.as_bytes()[1..]),
        Some("x".repeat(content.len()).as_bytes()),
    ] {
        let err = stored.clone().with_content(damaged).unwrap_err();
        assert_eq!(err.code, ErrorCode::RecordContentDamaged);
        assert_eq!(err.details["blob"], blob.sha256.as_str());
        assert_eq!(err.details["id"], record.id.to_string().as_str());
    }
}

#[test]
fn a_line_too_long_without_its_content_is_refused_by_the_title() {
    let record = record_of("x", Some(&"t".repeat(5000)));
    let err = plan_store(&record, event_id(), crate::ledger::event::Actor::agent("a")).unwrap_err();
    assert_eq!(refused_field(err), "title");
}

#[test]
fn the_records_stream_is_no_orphan_and_the_first_store_of_an_id_wins() {
    let mut history = crate::ledger::fold::SessionHistory::default();
    let first = record_of("first", Some("one"));
    let plan = plan_store(&first, event_id(), crate::ledger::event::Actor::agent("a")).unwrap();
    history.insert(plan.event.clone());
    let mut later = plan.event.clone();
    later.id = crate::ids::EventId(id(0xe2));
    later.at = Timestamp::from_millis(1_780_000_100_000);
    if let crate::ledger::event::Payload::RecordStored(data) = &mut later.payload {
        data.content = Some("second".into());
    }
    history.insert(later);
    let records = stored_records(&history);
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].record.content, "first");
    assert!(!crate::ledger::fold::is_orphan(
        crate::ids::RECORDS_STREAM,
        &history
    ));
    assert!(history.session().is_none());
}

#[test]
fn include_reads_its_three_words_and_refuses_others_by_name() {
    assert_eq!("stored".parse::<Include>().unwrap(), Include::Stored);
    assert_eq!(" all ".parse::<Include>().unwrap(), Include::All);
    let mirrored: Include = "mirrored".parse().unwrap();
    assert!(mirrored.mirrored() && !mirrored.stored());
    assert_eq!(
        refused_field("both".parse::<Include>().unwrap_err()),
        "include"
    );
}
