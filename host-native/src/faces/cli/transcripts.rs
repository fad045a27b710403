//! The mirror's queries on the command line: `baton search` and `baton transcripts
//! list|show|tools|remove`.

use crate::faces::cli::args::{
    SearchArgs, TranscriptFilters, TranscriptFormat, TranscriptsListArgs, TranscriptsRemoveArgs,
    TranscriptsShowArgs, TranscriptsToolsArgs,
};
use crate::faces::cli::{Output, index_path, open_query, to_json};
use crate::faces::present::Reader;
use crate::faces::table::{Column, Fit, Table, shorten};
use crate::ops::mirror::query::{Filters, TranscriptFilter};
use baton_core::Error;

use baton_core::analyzer::charts::scale::thousands;

fn query_filters(filters: &TranscriptFilters) -> Result<Filters, Error> {
    Filters::read(&filters.filter())
}

/// `millis` on this machine's clock, or `-`.
fn clock(reader: &Reader, millis: Option<i64>) -> String {
    millis.map_or_else(
        || "-".to_owned(),
        |millis| reader.clock(baton_core::Timestamp::from_millis(millis)),
    )
}

/// What a table shows for a conversation that has no title and said nothing to make one of.
const UNTITLED: &str = "(untitled)";

/// `baton search`: ranked hits from the index: the stored records' (their own section)
/// and the mirrored messages'.
pub(crate) fn search(cli: &crate::faces::cli::Cli, args: &SearchArgs) -> Result<Output, Error> {
    use crate::ops::mirror::query::Include;
    let fields = crate::ops::mirror::query::fields_named(args.fields.as_deref())?;
    let include: Include = match args.include.as_deref() {
        Some(word) => word.parse()?,
        None => Include::All,
    };
    let query = args.words.join(" ");
    // A provider only records use (`openai`) leaves the mirrored side out rather than refused.
    let mirrored_provider = args
        .filters
        .provider
        .as_deref()
        .is_none_or(|name| baton_core::transcripts::Provider::named(name).is_some());
    let mut stored = None;
    // Whether any transcript was ever mirrored: searching records makes an index of its own,
    // which must not pass for one that holds transcripts and found none.
    let mut no_transcripts = None;
    if include.stored() && fields.contains(&baton_core::transcripts::search::Field::Text) {
        let ledger = crate::faces::cli::ledger_for(cli)?;
        let index = index_path(cli, &args.index.location)?;
        if args.index.sync {
            open_query(cli, &args.index)?;
        }
        if include.mirrored() && !index.exists() {
            no_transcripts = Some(index.clone());
        }
        let opened =
            crate::ops::records::open_synced_if_any(&ledger, &index).unwrap_or_else(|err| {
                crate::os::warnings::warn(&format!("stored records not searched: {err}"));
                None
            });
        if let Some((_, connection)) = opened {
            let filters = Filters::read(&TranscriptFilter {
                provider: None,
                ..args.filters.filter()
            })?;
            let listing = crate::ops::mirror::query::ListingQuery::of(
                include,
                filters,
                args.filters.provider.clone(),
                crate::ops::records::ledger_key(ledger.dir()),
                (i64::from(args.limit), 0),
            );
            stored = Some(crate::ops::records::search(
                &connection,
                &index,
                &query,
                &listing,
                i64::from(args.limit),
            )?);
        }
    }
    let zone = crate::os::zone::resolve(None)?;
    let reader = Reader::for_stdout(cli.color, &zone)?;
    // A snippet fills the line under its hit's heading (four columns in), else 160 characters.
    let width = reader
        .style
        .width
        .map_or(160, |w| w.saturating_sub(4))
        .clamp(40, 400);
    let page = if let Some(index) = &no_transcripts {
        crate::os::warnings::warn(&format!(
            "there is no transcript index at {}, so only stored records were searched: run `baton mirror` to make it",
            index.display()
        ));
        None
    } else if include.mirrored() && (mirrored_provider || stored.is_none()) {
        let (path, connection) = open_query(cli, &args.index)?;
        let sources: i64 = connection
            .query_row("SELECT count(*) FROM sources", [], |r| r.get(0))
            .map_err(|e| crate::index::failure("read the index", &path, e))?;
        if sources == 0 {
            crate::os::warnings::warn(&format!(
                "the transcript index at {} holds no transcripts yet: run `baton mirror` to fill it",
                path.display()
            ));
        }
        let page = crate::ops::mirror::query::search(
            &connection,
            &path,
            &query,
            &fields,
            &query_filters(&args.filters)?,
            baton_core::transcripts::search::Order::asked(args.order.as_deref())?,
            i64::from(args.limit),
            width,
        )?;
        let json = crate::ops::mirror::restore::page_with_resumes(&connection, &path, &page)?;
        Some((page, json))
    } else {
        None
    };
    let mut human = String::new();
    // No stored record matching is said only when the messages are not shown either.
    let said = stored
        .as_ref()
        .filter(|(total, _)| *total > 0 || page.is_none());
    if let Some((total, hits)) = said {
        human.push_str(&format!(
            "[ok] {total} stored record(s) match {query:?}{}",
            if *total > hits.len() as i64 {
                format!("; the best {}", hits.len())
            } else {
                String::new()
            }
        ));
        let mut table = Table::new(vec![
            Column::text("RECORD"),
            Column::text("STORED").droppable(1),
            Column::text("PROVIDER").droppable(0),
            Column::text("TITLE").cut(Fit::End).comfortable(16),
            Column::text("SNIPPET").cut(Fit::End).comfortable(30),
        ]);
        for hit in hits {
            table.row(vec![
                hit.id.clone().into(),
                reader.clock(hit.created_at).into(),
                hit.provider.clone().unwrap_or_default().into(),
                hit.title
                    .clone()
                    .unwrap_or_else(|| UNTITLED.to_owned())
                    .into(),
                hit.snippet.clone().into(),
            ]);
        }
        if !hits.is_empty() {
            table.append_to(&mut human, &reader.style);
        }
    }
    let (page, mut json) = match page {
        Some((page, json)) => (Some(page), json),
        None => (None, serde_json::json!({})),
    };
    if let Some((total, hits)) = &stored {
        json["stored_total"] = serde_json::json!(total);
        json["stored_hits"] = to_json(hits)?;
    }
    let Some(page) = page else {
        return Ok(Output {
            human,
            json: json.into(),
        });
    };
    if !human.is_empty() {
        human.push_str("\n\n");
    }
    let exact = page.hits.iter().filter(|h| h.exact).count();
    let best = if page.order == "newest" {
        "the newest"
    } else {
        "the best"
    };
    human.push_str(&format!(
        "[ok] {}{} message(s) match {query:?}{}{}{}",
        if page.total_capped { "more than " } else { "" },
        thousands(page.total.max(0) as u64),
        if page.total > page.hits.len() as i64 {
            format!("; {best} {}", page.hits.len())
        } else {
            String::new()
        },
        match page.ranked_newest {
            Some(ranked) => format!(
                " (ranked among the newest {})",
                thousands(ranked.max(0) as u64)
            ),
            None => String::new(),
        },
        if exact > 0 && query.split_whitespace().nth(1).is_some() {
            format!(" ({exact} shown with the exact phrase, first)")
        } else {
            String::new()
        }
    ));
    // Each hit: a heading line (the conversation's number for `transcripts show`, when, who,
    // which conversation, where in the message), then its snippet with the matches marked.
    let mut table = Table::new(vec![
        Column::number("#"),
        Column::text("WHEN").droppable(1),
        Column::text("PROVIDER").droppable(0),
        Column::text("ROLE").droppable(2),
        Column::text("IN"),
        Column::text("CONVERSATION").cut(Fit::End).comfortable(16),
    ]);
    for hit in &page.hits {
        table.row(vec![
            hit.conversation.id.to_string().into(),
            clock(&reader, hit.at).into(),
            hit.conversation.provider.clone().into(),
            hit.role.clone().into(),
            hit.field.replace('_', " ").into(),
            hit.conversation
                .title
                .clone()
                .unwrap_or_else(|| UNTITLED.to_owned())
                .into(),
        ]);
    }
    let rendered = if page.hits.is_empty() {
        String::new()
    } else {
        table.render(&reader.style)
    };
    let mut lines = rendered.lines();
    if let Some(header) = lines.next() {
        human.push('\n');
        human.push_str(header);
    }
    for (line, hit) in lines.zip(&page.hits) {
        human.push('\n');
        human.push_str(line);
        human.push_str("\n    ");
        human.push_str(&marked(&hit.snippet, &hit.highlights, &reader.style));
    }
    // From the best hit back to work: how to resume its session.
    if let Some(first) = page.hits.first()
        && let Some(resume) = json["hits"][0].get("resume")
    {
        let said = match (resume["command"].as_str(), resume["why_not"].as_str()) {
            (Some(command), _) => format!("resume it: {command}"),
            (None, Some(why)) => format!("to resume it: {why}"),
            (None, None) => String::new(),
        };
        if !said.is_empty() {
            human.push_str(&format!(
                "\n\nThe best hit is in conversation {}; {said}",
                first.conversation.id
            ));
        }
    }
    Ok(Output {
        human,
        json: json.into(),
    })
}

/// `snippet` with each highlighted span painted (on a terminal with colour; plain otherwise).
fn marked(
    snippet: &str,
    highlights: &[(usize, usize)],
    style: &crate::faces::table::Style,
) -> String {
    let chars: Vec<char> = snippet.chars().collect();
    let mut out = String::new();
    let mut at = 0;
    for &(from, to) in highlights {
        if from < at || to > chars.len() {
            continue;
        }
        out.extend(&chars[at..from]);
        let word: String = chars[from..to].iter().collect();
        out.push_str(&style.paint(&word, crate::faces::table::Paint::Amber));
        at = to;
    }
    out.extend(&chars[at.min(chars.len())..]);
    out
}

/// `baton transcripts list`: conversations, newest first.
pub(crate) fn list(
    cli: &crate::faces::cli::Cli,
    args: &TranscriptsListArgs,
) -> Result<Output, Error> {
    let include = match args.include.as_deref() {
        Some(word) => word.parse()?,
        None => crate::ops::mirror::query::Include::Mirrored,
    };
    if include != crate::ops::mirror::query::Include::Mirrored {
        return super::records::transcripts_listing(cli, args, include);
    }
    let (path, connection) = open_query(cli, &args.index)?;
    let page = crate::ops::mirror::query::list(
        &connection,
        &path,
        &query_filters(&args.filters)?,
        i64::from(args.limit),
        i64::from(args.offset),
    )?;
    let shown = page.conversations.len() as i64;
    let mut human = format!(
        "[ok] {} conversation(s){} (read one with `baton transcripts show #`)",
        page.total,
        if shown < page.total {
            format!(
                "; {}–{} shown (--offset {} for more)",
                i64::from(args.offset) + 1,
                i64::from(args.offset) + shown,
                i64::from(args.offset) + shown
            )
        } else {
            String::new()
        }
    );
    let mut table = Table::new(vec![
        Column::number("#"),
        Column::text("UPDATED"),
        Column::text("PROVIDER").droppable(1),
        Column::number("MESSAGES"),
        Column::text("PROJECT").cut(Fit::Start).droppable(0),
        Column::text("TITLE").cut(Fit::End).comfortable(20),
    ]);
    let zone = crate::os::zone::resolve(None)?;
    let reader = Reader::for_stdout(cli.color, &zone)?;
    for row in &page.conversations {
        table.row(vec![
            row.id.to_string().into(),
            clock(&reader, row.updated_at).into(),
            row.provider.clone().into(),
            row.messages.to_string().into(),
            row.project.clone().unwrap_or_default().into(),
            row.title
                .clone()
                .unwrap_or_else(|| UNTITLED.to_owned())
                .into(),
        ]);
    }
    table.append_to(&mut human, &reader.style);
    Ok(Output {
        human,
        json: to_json(&page)?.into(),
    })
}

/// `baton transcripts show`: one conversation, rebuilt from the index.
pub(crate) fn show(
    cli: &crate::faces::cli::Cli,
    args: &TranscriptsShowArgs,
) -> Result<Output, Error> {
    let (path, connection) = open_query(cli, &args.index)?;
    let branches = match args.branch {
        crate::faces::cli::args::BranchChoice::Active => {
            crate::ops::mirror::query::Branches::Active
        }
        crate::faces::cli::args::BranchChoice::All => crate::ops::mirror::query::Branches::All,
    };
    let mut shown = crate::ops::mirror::query::show(&connection, &path, &args.reference, branches)?;
    let profile: baton_core::share::redact::Profile = args.redact.parse()?;
    let mut redactor = None;
    if profile != baton_core::share::redact::Profile::None || args.preview {
        let mut words = args.redact_words.clone();
        if let Ok(ledger) = crate::faces::cli::ledger_for(cli) {
            words.extend(crate::ops::share::configured_words(ledger.dir())?);
        }
        let mut chosen = baton_core::share::redact::Redactor::new(profile, &words)?;
        shown.markdown = chosen.redact(&shown.markdown);
        redactor = Some(chosen);
    }
    let mut human = match args.format {
        TranscriptFormat::Markdown => {
            let mut text = shown
                .markdown
                .trim_end()
                .trim_end_matches("---")
                .trim_end()
                .to_owned();
            if branches == crate::ops::mirror::query::Branches::Active && shown.branches > 1 {
                text.push_str(&format!(
                    "\n\n_This is the active branch of {}: `--branch all` shows every one._",
                    shown.branches
                ));
            }
            text
        }
        TranscriptFormat::Json => serde_json::to_string_pretty(&shown.json).unwrap_or_default(),
    };
    let resume = crate::ops::mirror::restore::resume_of(&connection, &path, &shown.row)?;
    let mut json = serde_json::json!({
        "conversation": to_json(&shown.row)?,
        "branches": shown.branches,
        "active_branch": shown.active_branch,
        "resume": resume,
        "transcript": shown.json,
    });
    if let Some(redactor) = &redactor {
        // The same placeholders in the JSON as in the Markdown; the preview counts the
        // Markdown's (what a person reads and shares).
        redactor.clone().redact_json(&mut json);
        if args.preview {
            return Ok(super::share::preview(
                &redactor.preview(),
                profile,
                &crate::faces::table::Style::for_stdout(cli.color),
            ));
        }
        // The JSON form printed as the Markdown's is redacted too.
        if args.format == TranscriptFormat::Json {
            human = serde_json::to_string_pretty(&json["transcript"]).unwrap_or_default();
        }
    }
    // On a terminal, how to go back to it (not in what a redirect writes to a file, nor in
    // what is being made ready to share).
    if let Some(resume) = resume.as_ref().filter(|_| redactor.is_none()) {
        use std::io::IsTerminal;
        if std::io::stdout().is_terminal() {
            crate::faces::cli::eprint_line(&match (&resume.command, &resume.why_not) {
                (Some(command), _) => format!("resume it: {command}"),
                (None, Some(why)) => format!("to resume it: {why}"),
                (None, None) => String::new(),
            });
        }
    }
    Ok(Output {
        human,
        json: json.into(),
    })
}

/// `baton transcripts tools`: the tools called, most first.
pub(crate) fn tools(
    cli: &crate::faces::cli::Cli,
    args: &TranscriptsToolsArgs,
) -> Result<Output, Error> {
    let (path, connection) = open_query(cli, &args.index)?;
    let page = crate::ops::mirror::query::tools(
        &connection,
        &path,
        &query_filters(&args.filters)?,
        i64::from(args.limit),
    )?;
    let mut human = format!(
        "[ok] {} tool(s), {} call(s){}",
        page.total,
        thousands(page.calls.max(0) as u64),
        if page.tools.len() < page.total as usize {
            format!("; the {} most called:", page.tools.len())
        } else {
            String::new()
        }
    );
    let mut table = Table::new(vec![
        Column::text("TOOL").cut(Fit::End).comfortable(16),
        Column::number("CALLS"),
        Column::number("ERRORS"),
        Column::number("FAILED"),
        Column::number("CONVERSATIONS").droppable(1),
        Column::text("LAST USED").droppable(0),
    ]);
    let zone = crate::os::zone::resolve(None)?;
    let reader = Reader::for_stdout(cli.color, &zone)?;
    for tool in &page.tools {
        table.row(vec![
            tool.name.clone().into(),
            thousands(tool.calls.max(0) as u64).into(),
            thousands(tool.errors.max(0) as u64).into(),
            format!(
                "{:.1}%",
                tool.errors as f64 * 100.0 / tool.calls.max(1) as f64
            )
            .into(),
            thousands(tool.conversations.max(0) as u64).into(),
            clock(&reader, tool.last_at).into(),
        ]);
    }
    table.append_to(&mut human, &reader.style);
    Ok(Output {
        human,
        json: to_json(&page)?.into(),
    })
}

/// `baton transcripts remove`: one conversation out of the index, on purpose.
pub(crate) fn remove(
    cli: &crate::faces::cli::Cli,
    args: &TranscriptsRemoveArgs,
) -> Result<Output, Error> {
    use std::io::IsTerminal;
    let path = index_path(cli, &args.location)?;
    let row = {
        let connection = crate::index::open_existing(&path)?;
        crate::ops::mirror::query::resolve(&connection, &path, &args.reference)?
    };
    let described = format!(
        "#{} {} {} ({} message(s)){}",
        row.id,
        row.provider,
        row.provider_id,
        row.messages,
        row.title
            .as_deref()
            .map(|t| format!(": {}", shorten(t, 60, Fit::End)))
            .unwrap_or_default()
    );
    if !args.yes {
        if !std::io::stdin().is_terminal() {
            return Err(Error::invalid(
                "yes",
                format!("removing {described} cannot be undone: add --yes to remove it"),
            ));
        }
        crate::faces::cli::eprint_line(&format!(
            "Remove {described} from the index? It stays out even while its source is there. [y/N]"
        ));
        let mut answer = String::new();
        let _ = std::io::stdin().read_line(&mut answer);
        if !matches!(answer.trim(), "y" | "Y" | "yes") {
            return Err(Error::invalid("yes", "nothing was removed"));
        }
    }
    let mut mirror = crate::ops::mirror::Mirror::open(&path)?;
    let now = crate::os::system::now()?.millis();
    let by = crate::os::env::var("USER").ok();
    let removal = crate::ops::mirror::upkeep::remove(&mut mirror, row.id, now, by.as_deref())?;
    Ok(Output {
        human: format!(
            "[ok] Removed {described}; logged in the index (`baton index stats` counts removals)"
        ),
        json: serde_json::json!({ "index": path.display().to_string(), "removed": to_json(&removal)? }).into(),
    })
}
