//! The command-line interface: arguments (`args`), one dispatch (here), and the command bodies
//! by area (`ledger`, `transcripts`, `serve`). Output follows the human+JSON contract; exit
//! statuses are 0 success, 1 a coded error, 2 a usage error.

use crate::cli::ledger::run;
use crate::cli::serve::{abi, demo, web};
use crate::cli::transcripts::{inspect, usage};
use crate::store::{self, Ledger};
use baton_core::Error;
use baton_core::commands::render;
use clap::Parser;
use serde::Serialize;
use serde_json::Value;

mod args;
mod ledger;
mod params;
mod serve;
mod transcripts;

pub use args::Cli;
use args::Command;

/// Parses arguments, runs the command, prints, and returns the exit status.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            let _ = err.print();
            return if err.use_stderr() { 2 } else { 0 };
        }
    };
    let json_only = cli.json;
    if let Command::Mcp(args) = &cli.command {
        if args.print_tools_markdown {
            print!("{}", crate::mcp::tools_markdown());
            return 0;
        }
        return match ledger_for(&cli).and_then(crate::mcp::serve_stdio) {
            Ok(()) => 0,
            Err(err) => {
                eprintln!("{}", render::error_line(&err));
                err.code.exit_status()
            }
        };
    }
    let result = match cli.command {
        Command::Usage(args) => usage(args),
        Command::Inspect(args) => inspect(args),
        Command::Analyze(args) => crate::analyze::run(&crate::analyze::Request {
            paths: args.paths,
            svg_dir: args.svg,
            search: args.search,
            list: args.list,
            include_hidden: args.include_hidden,
        })
        .map(|(human, json)| Output { human, json }),
        Command::Abi(args) => abi(args),
        Command::Web(args) => web(args, json_only),
        Command::Demo(args) => demo(args),
        _ => run(cli),
    };
    match result {
        Ok(Output { human, json }) => {
            if !json_only && !human.is_empty() {
                print_line(&human);
            }
            print_line(&json.to_string());
            0
        }
        Err(err) => {
            if !json_only {
                print_line(&render::error_line(&err));
            }
            print_line(&err.to_envelope().to_string());
            err.code.exit_status()
        }
    }
}

/// Writes a line to stdout; a reader that went away (`baton … | head -1`) is not an error
/// and never a panic.
pub(crate) fn print_line(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{text}").and_then(|()| out.flush());
}

pub(crate) struct Output {
    pub(crate) human: String,
    pub(crate) json: Value,
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
    let fsync_env_off = std::env::var("BATON_FSYNC").is_ok_and(|v| v == "0" || v == "off");
    Ok(Ledger::new(dir, !(cli.no_fsync || fsync_env_off)))
}
