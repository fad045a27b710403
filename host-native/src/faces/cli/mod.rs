//! The command-line interface: arguments (`args`), one dispatch (here), and the command bodies
//! by area (`ledger`, `transcripts`, `serve`). Output follows the human+JSON contract; exit
//! statuses are 0 success, 1 a coded error, 2 a usage error.

use crate::faces::cli::ledger::run;
use crate::faces::cli::serve::{abi, abi_lines, demo, web};
use crate::faces::cli::usage::{inspect, usage};
use crate::faces::{present, table};
use crate::store::{self, Ledger};
use baton_core::Error;
use baton_core::commands::render;
use serde::Serialize;
use serde_json::Value;

mod args;
mod budget;
mod ledger;
mod mirror;
mod otel;
mod params;
mod records;
mod restore;
mod serve;
mod share;
mod team;
pub(crate) mod transcripts;
mod usage;
mod windows;

pub use args::Cli;
use args::Command;

/// Parses arguments, runs the command, prints, and returns the exit status.
pub fn main() -> i32 {
    use clap::FromArgMatches;
    let parsed = args::command().try_get_matches().and_then(|matches| {
        let name = matches.subcommand_name().unwrap_or_default().to_owned();
        Ok((name, Cli::from_arg_matches(&matches)?))
    });
    let (command_name, cli) = match parsed {
        Ok(parsed) => parsed,
        Err(err) => {
            // Under --json a usage error is one JSON object too (exit 2 as ever); help and
            // --version are what was asked for, printed as they are.
            if err.use_stderr() && std::env::args().any(|a| a == "--json") {
                let rendered = err.render().to_string();
                let message = rendered
                    .lines()
                    .next()
                    .unwrap_or("")
                    .trim_start_matches("error: ")
                    .to_owned();
                print_json(&serde_json::json!({"error": {
                    "code": "INVALID_ARGUMENT",
                    "message": message,
                    "details": {"usage": rendered.trim_end(), "kind": format!("{:?}", err.kind())},
                }}));
                return 2;
            }
            let _ = err.print();
            return if err.use_stderr() { 2 } else { 0 };
        }
    };
    let json_only = cli.json;
    crate::ops::notes::choose(crate::ops::notes::Choice {
        vault: cli.vault.clone(),
        off: cli.no_notes,
    });
    let out_style = table::Style::for_stdout(cli.color);
    let err_style = table::Style::for_stderr(cli.color);
    // Taken before the command is: its arguments move into it.
    let retry = retry_hint(&command_name, cli.session_reference());
    if let Command::Mcp(args) = &cli.command {
        if args.print_tools_markdown {
            print_line(crate::faces::mcp::tools_markdown().trim_end());
            return 0;
        }
        return match ledger_for(&cli).and_then(crate::faces::mcp::serve_stdio) {
            Ok(()) => 0,
            Err(err) => {
                eprintln!("{}", terminal_safe(&render::error_line(&err)));
                err.code.exit_status()
            }
        };
    }
    if let Command::Hook(hook) = &cli.command {
        return agent_hook(hook);
    }
    if let Command::Statusline(args) = &cli.command {
        return statusline(args, cli.color);
    }
    let result = match cli.command {
        Command::Usage(ref args) if args.check || args.source != args::SourceArg::Transcripts => {
            otel::usage_reported(&cli, args)
        }
        Command::Usage(ref args) => usage(&cli, args),
        Command::Inspect(args) => inspect(args),
        Command::Watch(ref args) => watch(&cli, args, json_only),
        Command::Tui => {
            return serve::tui(&cli).map_or_else(
                |err| report_error(&err, json_only, err_style, retry.as_ref()),
                |()| 0,
            );
        }
        Command::Sync(ref args) => team::sync(&cli, args, json_only),
        Command::Team(ref command) => team::team(&cli, command),
        Command::Mirror(ref args) => mirror::mirror(&cli, args),
        Command::Search(ref args) => transcripts::search(&cli, args),
        Command::Share(ref args) => share::share(&cli, args),
        Command::Transcripts(args::TranscriptsCommand::List(ref args)) => {
            transcripts::list(&cli, args)
        }
        Command::Record(args::RecordCommand::Store(ref args)) => records::store(&cli, args),
        Command::Record(args::RecordCommand::List(ref args)) => records::list(&cli, args),
        Command::Record(args::RecordCommand::Get(ref args)) => records::get(&cli, args),
        Command::Record(args::RecordCommand::Export(ref args)) => {
            return match records::export(&cli, args) {
                Ok(exported) if json_only => {
                    print_json(&exported.json);
                    0
                }
                Ok(exported) => print_document(&exported.document),
                Err(err) => report_error(&err, json_only, err_style, retry.as_ref()),
            };
        }
        Command::Transcripts(args::TranscriptsCommand::Show(ref args)) => {
            transcripts::show(&cli, args)
        }
        Command::Transcripts(args::TranscriptsCommand::Tools(ref args)) => {
            transcripts::tools(&cli, args)
        }
        Command::Transcripts(args::TranscriptsCommand::Remove(ref args)) => {
            transcripts::remove(&cli, args)
        }
        Command::Transcripts(args::TranscriptsCommand::Restore(ref args)) => {
            restore::restore(&cli, args)
        }
        Command::Index(args::IndexArgs {
            upkeep: Some(ref upkeep),
            ..
        }) => mirror::index_upkeep(&cli, upkeep),
        Command::Analyze(args) => crate::ops::analyze::run(&crate::ops::analyze::Request {
            paths: args.paths,
            svg_dir: args.svg,
            search: args.search,
            list: args.list,
            include_hidden: args.include_hidden,
            verbose: args.verbose,
            show: args.show,
            export: args.export,
        })
        .map(|(human, json)| Output {
            human,
            json: json.into(),
        }),
        Command::Notes(ref args) => notes(&cli, args),
        Command::Budget(ref args) => budget::run(&cli, args),
        Command::Otel(ref command) => otel::run(&cli, command),
        Command::Abi(args) if args.lines => match abi_lines(&args) {
            // The answers are on stdout already, a line each.
            Ok(()) => return 0,
            Err(err) => Err(err),
        },
        Command::Abi(args) => abi(args),
        Command::Completions(args) => Ok(completions(args.shell)),
        Command::Man(args) => man(args.dir),
        Command::Web(args) => web(args, json_only),
        Command::Demo(args) => {
            if json_only {
                crate::faces::demo::narrate_to_stderr();
            }
            demo(args)
        }
        _ => run(cli),
    };
    match result {
        // Output fits where it goes: the JSON object with `--json`, else the human text only
        // (an answer with no human text falls back to its JSON).
        Ok(Output { human, json }) => {
            if json_only || human.is_empty() {
                json.print();
            } else {
                print_line(&paint_status(&human, out_style.colour));
            }
            0
        }
        Err(err) => report_error(&err, json_only, err_style, retry.as_ref()),
    }
}

/// `baton hook claude-code|codex|gemini|qwen`: the hook JSON from stdin (at most 1 MiB) or Codex's notify
/// argument, one line to the log, a problem on stderr, and always 0 (a hook that fails would
/// fail the agent's turn).
fn agent_hook(hook: &args::HookCommand) -> i32 {
    use std::io::Read;
    let (name, notify) = match hook {
        args::HookCommand::ClaudeCode => ("claude-code", None),
        args::HookCommand::Codex { payload } => ("codex", payload.as_deref()),
        args::HookCommand::Gemini => ("gemini", None),
        args::HookCommand::Qwen => ("qwen", None),
    };
    let mut input = String::new();
    let read = match notify {
        Some(_) => Ok(0),
        None => std::io::stdin()
            .lock()
            .take(1 << 20)
            .read_to_string(&mut input),
    };
    let (result, ledger) = match (read, hook) {
        (Err(e), _) => (Err(Error::store_io("read", "standard input", e)), None),
        (Ok(_), args::HookCommand::ClaudeCode) => crate::faces::hook::claude_code(&input),
        (Ok(_), args::HookCommand::Codex { .. }) => crate::faces::hook::codex(notify, &input),
        (Ok(_), args::HookCommand::Gemini) => crate::faces::hook::gemini(&input),
        (Ok(_), args::HookCommand::Qwen) => crate::faces::hook::qwen(&input),
    };
    let line = match &result {
        Ok(crate::faces::hook::Outcome::Started(what))
        | Ok(crate::faces::hook::Outcome::Ended(what))
        | Ok(crate::faces::hook::Outcome::Nothing(what)) => format!("[ok] {what}"),
        Err(err) => {
            let line = render::error_line(err);
            eprintln!("baton hook {name}: {}", terminal_safe(&line));
            line
        }
    };
    if let Some(ledger) = &ledger {
        crate::faces::hook::log(ledger, &line);
    }
    0
}

/// `baton watch`: one frame (`--once`, `--json`), or frames until stopped.
fn watch(cli: &Cli, args: &args::WatchArgs, json_only: bool) -> Result<Output, Error> {
    let ledger = ledger_for(cli)?;
    let zone: &'static crate::os::zone::HostZone =
        Box::leak(Box::new(crate::os::zone::resolve(None)?));
    let color = cli.color;
    let make_reader = move || present::Reader::for_stdout(color, zone);
    if args.once || json_only {
        let frame = crate::faces::watch::frame(&ledger, &make_reader()?)?;
        return Ok(Output {
            human: frame.text,
            json: frame.json.into(),
        });
    }
    use std::io::{IsTerminal, Write};
    let terminal = std::io::stdout().is_terminal();
    crate::faces::watch::follow(&ledger, &make_reader, &mut |frame| {
        let mut out = std::io::stdout().lock();
        // Home and clear, then the frame: the view stays in place. Into a pipe, frames follow
        // each other with a blank line between. A reader that went away ends the watch.
        let clear = if terminal { "\x1b[H\x1b[2J" } else { "" };
        let gap = if terminal { "" } else { "\n" };
        write!(out, "{clear}{}\n{gap}", terminal_safe(&frame.text))
            .and_then(|()| out.flush())
            .is_ok()
    })?;
    // The reader went away: nothing more to say.
    std::process::exit(0)
}

/// `baton statusline`: Claude Code's session JSON from stdin (at most 1 MiB), one line on
/// stdout, always 0.
fn statusline(args: &args::StatuslineArgs, color: table::ColorChoice) -> i32 {
    use std::io::Read;
    let mut input = String::new();
    let _ = std::io::stdin()
        .lock()
        .take(1 << 20)
        .read_to_string(&mut input);
    let segments = args
        .segments
        .clone()
        .or_else(|| crate::os::env::var("BATON_STATUSLINE_SEGMENTS").ok())
        .filter(|s| !s.trim().is_empty())
        .unwrap_or_else(|| crate::faces::statusline::DEFAULT_SEGMENTS.to_owned());
    let options = crate::faces::statusline::Options {
        segments: segments
            .split(',')
            .map(|s| s.trim().to_ascii_lowercase())
            .filter(|s| !s.is_empty())
            .collect(),
        width: args
            .width
            .or_else(|| {
                crate::os::env::var("COLUMNS")
                    .ok()
                    .and_then(|c| c.parse().ok())
            })
            .unwrap_or(120)
            .max(10),
        // Claude Code shows colours though stdout is a pipe: on unless NO_COLOR or --color
        // never says otherwise.
        colour: match color {
            table::ColorChoice::Always => true,
            table::ColorChoice::Never => false,
            table::ColorChoice::Auto => {
                crate::os::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        },
    };
    crate::faces::statusline::run(&input, &options)
}

/// Says what went wrong (one JSON object under `--json`, else words on stderr) and gives the
/// exit status.
fn report_error(
    err: &Error,
    json_only: bool,
    err_style: table::Style,
    retry: Option<&present::RetryHint>,
) -> i32 {
    if json_only {
        print_json(&err.to_envelope());
    } else {
        let zone = crate::os::zone::resolve(None).unwrap_or(crate::os::zone::HostZone::Local);
        let reader = present::Reader {
            style: err_style,
            now: crate::os::system::now().unwrap_or_default(),
            zone: &zone,
        };
        eprint_line(&paint_status(
            &present::error_text(err, &reader, retry),
            err_style.colour,
        ));
    }
    err.code.exit_status()
}

/// Writes a document to stdout byte for byte (a terminal also gets a last newline, so the
/// prompt starts on a line of its own). A closed pipe is not an error.
fn print_document(document: &str) -> i32 {
    use std::io::{IsTerminal, Write};
    let mut out = std::io::stdout().lock();
    if std::io::stdout().is_terminal() {
        // A record's text never drives the terminal (no escape sequence reaches it raw).
        let shown = terminal_safe(document);
        let _ = out.write_all(shown.as_bytes());
        if !shown.ends_with('\n') {
            let _ = out.write_all(b"\n");
        }
    } else {
        let _ = out.write_all(document.as_bytes());
    }
    let _ = out.flush();
    0
}

/// A completion script for `shell`, generated from the command line's own definition.
fn completions(shell: clap_complete::Shell) -> Output {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut args::command(), "baton", &mut script);
    let script = String::from_utf8_lossy(&script).trim_end().to_owned();
    Output {
        json: serde_json::json!({ "shell": shell.to_string(), "script": script }).into(),
        human: script,
    }
}

/// The manual page on stdout, or every command's page written into `dir`.
fn man(dir: Option<std::path::PathBuf>) -> Result<Output, Error> {
    let command = args::command();
    match dir {
        None => {
            let mut page = Vec::new();
            clap_mangen::Man::new(command)
                .render(&mut page)
                .map_err(|e| Error::internal(format!("rendering the manual page: {e}")))?;
            let page = String::from_utf8_lossy(&page).trim_end().to_owned();
            Ok(Output {
                json: serde_json::json!({ "page": page }).into(),
                human: page,
            })
        }
        Some(dir) => {
            let shown = dir.display().to_string();
            std::fs::create_dir_all(&dir).map_err(|e| Error::store_io("create", &shown, e))?;
            clap_mangen::generate_to(command, &dir)
                .map_err(|e| Error::store_io("write manual pages in", &shown, e))?;
            let mut pages: Vec<String> = std::fs::read_dir(&dir)
                .map_err(|e| Error::store_io("read", &shown, e))?
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|name| name.starts_with("baton") && name.ends_with(".1"))
                .collect();
            pages.sort();
            Ok(Output {
                human: format!(
                    "[ok] Wrote {} manual pages to {shown}; read one with `man -l {shown}/baton.1`",
                    pages.len()
                ),
                json: serde_json::json!({ "dir": shown, "pages": pages }).into(),
            })
        }
    }
}

/// The command as typed, to show again with a session id in place of the reference that was
/// ambiguous (or, for an implicit end, after the command's name).
fn retry_hint(name: &str, reference: Option<&str>) -> Option<present::RetryHint> {
    let words: Vec<String> = std::env::args().skip(1).collect();
    let at = words.iter().position(|w| w == name)?;
    let mut command = vec!["baton".to_owned()];
    command.extend(words[..=at].iter().cloned());
    let mut rest: Vec<String> = words[at + 1..].to_vec();
    // A reference that matched several sessions is replaced by the id.
    if let Some(reference) = reference
        && let Some(i) = rest.iter().position(|w| w == reference)
    {
        command.extend(rest.drain(..i));
        rest.remove(0);
    }
    Some(present::RetryHint { command, rest })
}

/// Colours the status tag a human line opens with (`[ok]` green, `[warn]` amber, `[error]`
/// red) when colour is on; anything else is left as it is.
fn paint_status(text: &str, colour: bool) -> String {
    if !colour {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 32);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let painted = [("[ok]", "32"), ("[warn]", "33"), ("[error]", "31")]
            .iter()
            .find_map(|(tag, code)| {
                line.strip_prefix(tag)
                    .map(|rest| format!("\x1b[{code}m{tag}\x1b[0m{rest}"))
            });
        out.push_str(painted.as_deref().unwrap_or(line));
    }
    out
}

pub(crate) use crate::os::terminal::{eprint_line, print_json, print_line, terminal_safe};

pub(crate) struct Output {
    pub(crate) human: String,
    pub(crate) json: Json,
}

/// An answer's JSON: a tree that a command may still add to, or text encoded straight from
/// the answer (a list of 2,000 sessions is 1.7 MB: building a tree first doubled its cost).
pub(crate) enum Json {
    Tree(Value),
    Text(String),
}

impl From<Value> for Json {
    fn from(value: Value) -> Json {
        Json::Tree(value)
    }
}

impl Json {
    /// The answer encoded as text, straight from its types.
    pub(crate) fn encode(value: &impl Serialize) -> Result<Json, Error> {
        serde_json::to_string(value)
            .map(Json::Text)
            .map_err(|e| Error::internal(format!("encoding the answer: {e}")))
    }

    /// The tree, to add to (text is read back into one first).
    pub(crate) fn tree(&mut self) -> &mut Value {
        if let Json::Text(text) = self {
            *self = Json::Tree(serde_json::from_str(text).unwrap_or(Value::Null));
        }
        match self {
            Json::Tree(value) => value,
            Json::Text(_) => unreachable!("made a tree just above"),
        }
    }

    fn print(self) {
        match self {
            Json::Tree(value) => print_json(&value),
            Json::Text(text) => crate::os::terminal::print_json_text(text),
        }
    }
}

pub(crate) fn to_json(value: &impl Serialize) -> Result<Value, Error> {
    serde_json::to_value(value).map_err(|e| Error::internal(format!("encoding the answer: {e}")))
}

pub(crate) fn ledger_for(cli: &Cli) -> Result<Ledger, Error> {
    let dir = match &cli.dir {
        Some(dir) => dir.clone(),
        None => {
            let cwd = std::env::current_dir()
                .map_err(|e| Error::store_io("find", "the current directory", e))?;
            store::discover(&cwd)
        }
    };
    let fsync_env_off = crate::os::env::var("BATON_FSYNC").is_ok_and(|v| v == "0" || v == "off");
    Ok(Ledger::new(dir, !(cli.no_fsync || fsync_env_off)))
}

/// `baton notes rebuild|check`.
fn notes(cli: &Cli, command: &args::NotesCommand) -> Result<Output, Error> {
    let ledger = ledger_for(cli)?;
    let mut warnings = Vec::new();
    let vault = crate::ops::notes::settings::resolve(&ledger, &mut warnings)?;
    for warning in &warnings {
        crate::os::warnings::warn(warning);
    }
    let Some(vault) = vault else {
        return Err(Error::invalid(
            "notes",
            "session notes are switched off (--no-notes, BATON_NOTES=off or enabled = false under [notes] in .baton/config.toml)",
        ));
    };
    match command {
        args::NotesCommand::Rebuild => {
            use std::io::IsTerminal;
            let show = !cli.json && std::io::stderr().is_terminal();
            let rebuilt = crate::ops::notes::upkeep::rebuild(&ledger, &vault, |done, total| {
                if show && total > 0 && (done % 25 == 0 || done == total) {
                    eprint!("\rnotes: {done} of {total}");
                }
            })?;
            if show {
                eprint!("\r{}\r", " ".repeat(40));
            }
            for report in &rebuilt.attention {
                crate::ops::notes::warn_about(report);
            }
            let counts: Vec<String> = rebuilt
                .counts
                .iter()
                .map(|(outcome, n)| format!("{n} {outcome}"))
                .collect();
            let total: usize = rebuilt.counts.values().sum();
            Ok(Output {
                human: format!(
                    "[ok] {total} session note(s) in {}: {}",
                    rebuilt.vault,
                    if counts.is_empty() {
                        "no sessions yet".to_owned()
                    } else {
                        counts.join(", ")
                    }
                ),
                json: to_json(&rebuilt)?.into(),
            })
        }
        args::NotesCommand::Check => {
            let checked = crate::ops::notes::upkeep::check(&ledger, &vault)?;
            let mut human = format!(
                "[{}] {} session note(s) in {}: {} finding(s)",
                if checked.findings.is_empty() {
                    "ok"
                } else {
                    "warn"
                },
                checked.notes,
                checked.vault,
                checked.findings.len()
            );
            for finding in &checked.findings {
                human.push_str(&format!("\n  - {}: {}", finding.path, finding.problem));
            }
            Ok(Output {
                human,
                json: to_json(&checked)?.into(),
            })
        }
    }
}

/// The ledger's folder, when there is a ledger to find (its `config.toml` is read for settings).
pub(crate) fn ledger_dir(cli: &Cli) -> Option<std::path::PathBuf> {
    ledger_for(cli).ok().map(|l| l.dir().to_path_buf())
}

/// The index a transcript command uses: `--index`, `BATON_INDEX`, else beside the ledger.
pub(crate) fn index_path(
    cli: &Cli,
    location: &args::IndexLocation,
) -> Result<std::path::PathBuf, Error> {
    match &location.index {
        Some(path) => Ok(path.clone()),
        None => Ok(crate::index::path_for(ledger_for(cli)?.dir())),
    }
}

/// Opens the index a query reads, after one mirror pass when `--sync` asks for it.
pub(crate) fn open_query(
    cli: &Cli,
    index: &args::QueryIndex,
) -> Result<(std::path::PathBuf, rusqlite::Connection), Error> {
    let path = index_path(cli, &index.location)?;
    let connection =
        crate::ops::mirror::open_for_query(&path, index.sync, ledger_dir(cli).as_deref())?;
    Ok((path, connection))
}
