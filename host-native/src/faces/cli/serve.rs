//! Commands that serve or show: `baton abi` (the wasm core through wasmtime), `baton web` (the
//! page), `baton demo` and `baton tui`.

use crate::faces::cli::Output;
use crate::faces::cli::args::{AbiArgs, DemoArgs, WebArgs};
use baton_core::Error;
use serde_json::Value;

/// The largest `.wasm` core `--wasm` loads (the built one is under 4 MB).
const MAX_WASM_BYTES: u64 = 256 << 20;

pub(crate) fn abi(args: AbiArgs) -> Result<Output, Error> {
    let request = match args.request {
        Some(request) => request,
        None => std::io::read_to_string(std::io::stdin())
            .map_err(|e| Error::store_io("read", "standard input", e))?,
    };
    let answer = match args.wasm {
        Some(path) => {
            let bytes = crate::os::files::read_regular(&path, MAX_WASM_BYTES)?;
            crate::ops::wasm_core::WasmCore::load(&bytes)?.call(&request)?
        }
        None => baton_core::abi::handle_json(&request),
    };
    let json: Value = serde_json::from_str(&answer)
        .map_err(|e| Error::internal(format!("the ABI answered non-JSON: {e}")))?;
    if let Some(error) = json.get("error") {
        return Err(serde_json::from_value(error.clone())
            .unwrap_or_else(|e| Error::internal(format!("undecodable ABI error: {e}"))));
    }
    // On a terminal: the core's own line when the request asked for one (`"human": true`),
    // else the answer itself, indented.
    let ok = json.get("ok").cloned().unwrap_or(Value::Null);
    let human = match ok.get("human").and_then(Value::as_str) {
        Some(line) => line.to_owned(),
        None => format!(
            "[ok] ABI answer:\n{}",
            serde_json::to_string_pretty(&ok).unwrap_or_default()
        ),
    };
    Ok(Output {
        human,
        json: json.into(),
    })
}

/// `baton abi --lines`: NDJSON requests in (the argument's lines, else standard input as it
/// arrives), one answer line out per request, flushed at once; every answer is the core's own
/// (an error is an answer, not a failure). Ends when the input ends or the reader goes away.
pub(crate) fn abi_lines(args: &AbiArgs) -> Result<(), Error> {
    use std::io::{BufRead, Write};
    enum Engine {
        Native(baton_core::abi::Embedding),
        Wasm(Box<crate::ops::wasm_core::WasmCore>),
    }
    let mut engine = match &args.wasm {
        Some(path) => {
            let bytes = crate::os::files::read_regular(path, MAX_WASM_BYTES)?;
            Engine::Wasm(Box::new(crate::ops::wasm_core::WasmCore::load(&bytes)?))
        }
        None => Engine::Native(baton_core::abi::Embedding::new()),
    };
    let mut answer = |request: &str| match &mut engine {
        Engine::Native(embedding) => embedding.handle_json(request),
        Engine::Wasm(core) => core
            .call(request)
            .unwrap_or_else(|e| e.to_envelope().to_string()),
    };
    let out = std::cell::RefCell::new(std::io::stdout().lock());
    let mut reply = |request: &str| -> bool {
        let request = request.trim_end_matches('\r');
        if request.trim().is_empty() {
            return true;
        }
        let text = answer(request);
        let mut out = out.borrow_mut();
        writeln!(out, "{text}").and_then(|()| out.flush()).is_ok()
    };
    let reply_error = |out: &std::cell::RefCell<std::io::StdoutLock<'_>>, error: &Error| -> bool {
        let mut out = out.borrow_mut();
        writeln!(out, "{}", error.to_envelope())
            .and_then(|()| out.flush())
            .is_ok()
    };
    match &args.request {
        Some(text) => {
            for line in text.lines() {
                if !reply(line) {
                    break;
                }
            }
        }
        None => {
            // Bytes, not `lines()`: a line that is not UTF-8 gets its own error answer and the
            // core (with its open analyzers) keeps serving the next.
            let mut input = std::io::stdin().lock();
            let mut line = Vec::new();
            loop {
                line.clear();
                let read = input
                    .read_until(b'\n', &mut line)
                    .map_err(|e| Error::store_io("read", "standard input", e))?;
                if read == 0 {
                    break;
                }
                let answered = match std::str::from_utf8(&line) {
                    Ok(text) => reply(text.trim_end_matches('\n')),
                    Err(_) => reply_error(
                        &out,
                        &Error::invalid("request", "this line is not UTF-8 text"),
                    ),
                };
                if !answered {
                    break;
                }
            }
        }
    }
    Ok(())
}

pub(crate) fn web(args: WebArgs, json_only: bool) -> Result<Output, Error> {
    let listener = crate::faces::web::bind(args.port)?;
    let url = crate::faces::web::url(&listener)?;
    if json_only {
        crate::faces::cli::print_json(&serde_json::json!({ "serving": url }));
    } else {
        crate::faces::cli::print_line(&format!(
            "[ok] Serving the Baton page at {url} (127.0.0.1 only; Ctrl-C stops it)"
        ));
    }
    crate::faces::web::serve(listener);
    Err(Error::new(
        baton_core::ErrorCode::ServeFailed,
        "the web server stopped",
    ))
}

pub(crate) fn demo(args: DemoArgs) -> Result<Output, Error> {
    use std::io::IsTerminal;
    let dir = std::env::temp_dir().join(format!(
        "baton-demo-{}",
        crate::os::system::new_uuid().simple()
    ));
    let page_file = crate::faces::demo::run(&dir.join(".baton"))?;
    let serve_seconds = args
        .serve_seconds
        .unwrap_or(if std::io::stdin().is_terminal() {
            0
        } else {
            10
        });
    narrate!("\n== The web page");
    if !crate::faces::web::page_built() {
        narrate!(
            "  [warn] this baton was built without the page: run www/build.sh, then cargo build -p baton"
        );
        return Ok(Output {
            human: format!(
                "[ok] Demo done; its ledger is {}",
                dir.join(".baton").display()
            ),
            json: serde_json::json!({"ledger": dir.join(".baton"), "page": null}).into(),
        });
    }
    let listener = crate::faces::web::bind(args.port).or_else(|_| crate::faces::web::bind(0))?;
    let url = crate::faces::web::url(&listener)?;
    narrate!("  Web page: {url}");
    narrate!(
        "  Open it and choose {} to see these sessions, analyzed inside the browser.",
        page_file.display()
    );
    let summary =
        serde_json::json!({ "ledger": dir.join(".baton"), "page": url, "page_file": page_file });
    std::thread::spawn(move || crate::faces::web::serve(listener));
    if serve_seconds == 0 {
        narrate!("  Serving until Ctrl-C.");
        loop {
            std::thread::park();
        }
    }
    narrate!("  Serving for {serve_seconds} s.");
    std::thread::sleep(std::time::Duration::from_secs(serve_seconds));
    Ok(Output {
        human: format!(
            "[ok] Demo done; its ledger is {} (the page stopped)",
            dir.join(".baton").display()
        ),
        json: summary.into(),
    })
}

/// `baton tui`: the terminal UI; once it has given the terminal back, the command that
/// resumes the conversation it was asked for (`r`), if any, on stdout.
pub(crate) fn tui(cli: &crate::faces::cli::Cli) -> Result<(), Error> {
    let colour = crate::faces::table::Style::for_stdout(cli.color).colour;
    let ledger = crate::faces::cli::ledger_for(cli)?;
    if let Some(said) = crate::faces::tui::run(ledger, colour)? {
        crate::faces::cli::print_line(&said);
    }
    Ok(())
}
