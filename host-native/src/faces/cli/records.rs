//! `baton record store|list|get|export`: records kept on purpose, through the core's rules and
//! the host's records store (`crate::ops::records`), as tables for people and JSON for machines.

use crate::faces::cli::args::{
    RecordExportArgs, RecordGetArgs, RecordListArgs, RecordStoreArgs, TranscriptsListArgs,
};
use crate::faces::cli::{Output, index_path, to_json};
use crate::faces::present::Reader;
use crate::faces::table::{Column, Fit, Table};
use crate::ops::mirror::query::{Include, Listing, ListingQuery};
use baton_core::Error;
use baton_core::commands::Caller;
use baton_core::records::{ExportFormat, IdQuery, ListQuery, Record, StoreRequest};
use serde_json::json;

/// The most content read from a file or standard input: far more than a transcript a person
/// keeps, far less than `/dev/zero` would give.
const MAX_CONTENT: u64 = 64 << 20;

/// Who stores: the agent whose shell runs the CLI, else the person.
fn acting(cli: &crate::faces::cli::Cli) -> crate::ops::engine::Acting {
    let agent = crate::os::system::calling_agent();
    crate::ops::engine::Acting {
        actor: None,
        person: cli.person.clone(),
        caller: agent.map_or(Caller::Person, |name| Caller::agent(&name)),
    }
}

/// The content from `--file` (a regular file, or `-` for standard input), capped.
fn read_content(path: &std::path::Path) -> Result<String, Error> {
    use std::io::Read;
    let shown = path.display().to_string();
    let mut bytes = Vec::new();
    if path.as_os_str() == "-" {
        std::io::stdin()
            .lock()
            .take(MAX_CONTENT + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| Error::store_io("read", "standard input", e))?;
    } else {
        crate::os::files::open_regular(path)?
            .take(MAX_CONTENT + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| Error::store_io("read", &shown, e))?;
    }
    if bytes.len() as u64 > MAX_CONTENT {
        return Err(Error::invalid(
            "content",
            format!("{shown} is over {} MiB", MAX_CONTENT >> 20),
        )
        .with("limit", MAX_CONTENT));
    }
    String::from_utf8(bytes)
        .map_err(|_| Error::invalid("content", format!("{shown} is not UTF-8 text")))
}

/// `baton record store`.
pub(crate) fn store(cli: &crate::faces::cli::Cli, args: &RecordStoreArgs) -> Result<Output, Error> {
    let ledger = crate::faces::cli::ledger_for(cli)?;
    let content = match (&args.content, &args.file) {
        (Some(text), _) => Some(text.clone()),
        (None, Some(path)) => Some(read_content(path)?),
        (None, None) => None,
    };
    let request = StoreRequest {
        content,
        title: args.title.clone(),
        provider: args.provider.clone(),
        provider_session_id: args.provider_session_id.clone(),
        tags: args.tags.clone(),
    };
    let record = crate::ops::records::store(
        &ledger,
        &index_path(cli, &args.location)?,
        request,
        args.session.as_deref(),
        &acting(cli),
    )?;
    let mut json = crate::ops::records::summary(&record);
    json["content_bytes"] = json!(record.content.len());
    Ok(Output {
        human: format!(
            "[ok] Stored the record {} ({}){}; read it with `baton record get {0}`",
            record.id,
            crate::human_bytes(record.content.len() as u64),
            record
                .about
                .work_session
                .map(|s| format!(", attached to the work session {s}"))
                .unwrap_or_default(),
        ),
        json: json!({ "record": json }).into(),
    })
}

/// `baton record list`.
pub(crate) fn list(cli: &crate::faces::cli::Cli, args: &RecordListArgs) -> Result<Output, Error> {
    let query = ListQuery::parse(
        Some(args.limit),
        Some(args.offset),
        args.provider.clone(),
        args.agent_id.clone(),
        args.since.as_deref(),
    )?;
    let include = crate::ops::records::include_of(args.include.as_deref(), Include::Stored)?;
    let ledger = crate::faces::cli::ledger_for(cli)?;
    let index = index_path(cli, &args.location)?;
    let offset = query.offset as i64;
    let listing = crate::ops::records::list_records(&ledger, &index, query, include)?;
    listing_output(cli, &listing, offset, include)
}

/// `baton transcripts list --include stored|all`: the records and the conversations in one
/// newest-first order.
pub(crate) fn transcripts_listing(
    cli: &crate::faces::cli::Cli,
    args: &TranscriptsListArgs,
    include: Include,
) -> Result<Output, Error> {
    let filters =
        crate::ops::mirror::query::Filters::read(&crate::ops::mirror::query::TranscriptFilter {
            provider: None,
            ..args.filters.filter()
        })?;
    let ledger = crate::faces::cli::ledger_for(cli)?;
    let index = index_path(cli, &args.index.location)?;
    if args.index.sync {
        crate::faces::cli::open_query(cli, &args.index)?;
    }
    let (_, connection) = crate::ops::records::open_synced(&ledger, &index)?;
    let listing = crate::ops::records::list(
        &connection,
        &index,
        &ListingQuery::of(
            include,
            filters,
            args.filters.provider.clone(),
            crate::ops::records::ledger_key(ledger.dir()),
            (i64::from(args.limit), i64::from(args.offset)),
        ),
    )?;
    listing_output(cli, &listing, i64::from(args.offset), include)
}

/// A listing as a table (each row's origin said) and as JSON.
fn listing_output(
    cli: &crate::faces::cli::Cli,
    listing: &Listing,
    offset: i64,
    include: Include,
) -> Result<Output, Error> {
    let shown = listing.items.len() as i64;
    let what = match include {
        Include::Stored => "stored record(s)".to_owned(),
        Include::Mirrored => "mirrored conversation(s)".to_owned(),
        Include::All => format!(
            "row(s): {} stored, {} mirrored",
            listing.stored_total.unwrap_or(0),
            listing.mirrored_total.unwrap_or(0)
        ),
    };
    let mut human = format!(
        "[ok] {} {what}{}",
        listing.total,
        if shown == 0 && offset > 0 {
            format!("; none at --offset {offset}")
        } else if offset + shown < listing.total {
            format!(
                "; {}–{} shown (--offset {} for more)",
                offset + 1,
                offset + shown,
                offset + shown
            )
        } else if offset > 0 {
            format!("; {}–{} shown", offset + 1, offset + shown)
        } else {
            String::new()
        }
    );
    if listing.total == 0 && include.stored() {
        human.push_str("\nKeep one with `baton record store --content TEXT` (or --file PATH).");
    }
    let zone = crate::os::zone::resolve(None)?;
    let reader = Reader::for_stdout(cli.color, &zone)?;
    let mut columns = vec![Column::text("ID")];
    if include == Include::All {
        columns.push(Column::text("FROM"));
    }
    columns.extend([
        Column::text("WHEN"),
        Column::text("PROVIDER").droppable(1),
        Column::text("TAGS").cut(Fit::End).droppable(0),
        Column::text("TITLE").cut(Fit::End).comfortable(20),
    ]);
    let mut table = Table::new(columns);
    let record_ids: Vec<String> = listing.items.iter().filter_map(|i| i.id.clone()).collect();
    for item in &listing.items {
        let id = match (&item.id, item.number) {
            (Some(id), _) => shortest_prefix(id, &record_ids),
            (None, Some(number)) => format!("#{number}"),
            (None, None) => String::new(),
        };
        let mut row = vec![id.into()];
        if include == Include::All {
            row.push(item.origin.into());
        }
        row.extend([
            item.updated_at
                .map(|t| reader.clock(t))
                .unwrap_or_default()
                .into(),
            item.provider.clone().unwrap_or_default().into(),
            item.tags.join(", ").into(),
            item.title
                .clone()
                .unwrap_or_else(|| "(untitled)".to_owned())
                .into(),
        ]);
        table.row(row);
    }
    table.append_to(&mut human, &reader.style);
    Ok(Output {
        human,
        json: to_json(listing)?.into(),
    })
}

/// The shortest start of `id` (8 hex digits or more, hyphens kept) that no other of `ids`
/// shares: what `record get` takes, and short enough for a table. Ids minted in one minute
/// share their first 8 digits, so the prefix grows as the list needs.
fn shortest_prefix(id: &str, ids: &[String]) -> String {
    let digits = |text: &str| text.chars().filter(|c| *c != '-').collect::<Vec<char>>();
    let own = digits(id);
    let shared = ids
        .iter()
        .filter(|other| other.as_str() != id)
        .map(|other| {
            own.iter()
                .zip(digits(other))
                .take_while(|(a, b)| **a == *b)
                .count()
        })
        .max()
        .unwrap_or(0);
    let wanted = (shared + 1).clamp(baton_core::records::PREFIX_MIN, own.len());
    let mut seen = 0;
    id.chars()
        .take_while(|c| {
            if seen == wanted {
                return false;
            }
            if *c != '-' {
                seen += 1;
            }
            true
        })
        .collect()
}

/// The record an id names, from an index brought up to date with the ledger.
fn found(
    cli: &crate::faces::cli::Cli,
    location: &crate::faces::cli::args::IndexLocation,
    id: &str,
) -> Result<(Record, crate::ops::records::Links), Error> {
    let query = IdQuery::parse(id)?;
    let ledger = crate::faces::cli::ledger_for(cli)?;
    let index = index_path(cli, location)?;
    let (snapshot, connection) = crate::ops::records::open_synced(&ledger, &index)?;
    let record =
        crate::ops::records::resolve(&connection, &index, &snapshot, ledger.dir(), &query)?;
    let links =
        crate::ops::records::links_of(&connection, &index, &snapshot, ledger.dir(), &record)?;
    Ok((record, links))
}

/// `baton record get`.
pub(crate) fn get(cli: &crate::faces::cli::Cli, args: &RecordGetArgs) -> Result<Output, Error> {
    let (record, links) = found(cli, &args.location, &args.id)?;
    let zone = crate::os::zone::resolve(None)?;
    let reader = Reader::for_stdout(cli.color, &zone)?;
    let mut human = format!(
        "[ok] {}\n  id: {}\n  stored: {}\n",
        record.about.title.as_deref().unwrap_or("(untitled)"),
        record.id,
        reader.clock(record.created_at)
    );
    for (label, value) in [
        ("provider", record.about.provider.clone()),
        ("provider session", record.about.provider_session_id.clone()),
        ("stored by", record.about.agent_id.clone()),
        (
            "tags",
            (!record.about.tags.is_empty()).then(|| record.about.tags.join(", ")),
        ),
    ] {
        if let Some(value) = value {
            human.push_str(&format!("  {label}: {value}\n"));
        }
    }
    if let Some(session) = &links.work_session {
        human.push_str(&format!(
            "  work session: {} ({}, {}, {})\n",
            session.session_id, session.project, session.agent, session.status
        ));
    } else if let Some(id) = record.about.work_session {
        human.push_str(&format!("  work session: {id} (not in this ledger)\n"));
    }
    for conversation in &links.mirrored {
        human.push_str(&format!(
            "  mirrored: #{} {} {} (`baton transcripts show {}`)\n",
            conversation.id,
            conversation.provider,
            conversation.title.as_deref().unwrap_or("(untitled)"),
            conversation.id
        ));
    }
    for other in &links.records {
        human.push_str(&format!("  linked record: {other}\n"));
    }
    human.push_str(&format!("\n{}", record.content));
    let mut json = serde_json::to_value(&record).unwrap_or_default();
    json["links"] = to_json(&links)?;
    Ok(Output {
        human: human.trim_end().to_owned(),
        json: json!({ "record": json }).into(),
    })
}

/// What `baton record export` writes: the document, exactly.
pub(crate) struct Exported {
    /// The document (JSON or Markdown).
    pub(crate) document: String,
    /// The answer under `--json`.
    pub(crate) json: serde_json::Value,
}

/// `baton record export`: the format is checked before the id is looked up.
pub(crate) fn export(
    cli: &crate::faces::cli::Cli,
    args: &RecordExportArgs,
) -> Result<Exported, Error> {
    let format = ExportFormat::parse(Some(&args.format))?;
    let (record, _) = found(cli, &args.location, &args.id)?;
    let document = crate::ops::records::export_document(&record, format);
    Ok(Exported {
        json: json!({
            "id": record.id.to_string(),
            "format": format,
            "document": document,
        }),
        document,
    })
}
