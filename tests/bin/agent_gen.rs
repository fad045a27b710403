//! Writes Gemini CLI, Qwen Code and Copilot CLI session trees, Copilot Chat's (VS Code), Amp threads, Aider histories,
//! Cline, Roo Code and Kilo Code tasks, OpenCode and Kilo CLI databases, Cursor's store, its agents' transcripts and cursor-agent's chats, in the
//! agents' own layouts, with every trap their sources show, and the truth they must give
//! (`truth.json`: tokens by day and model, conversations with titles and tool calls, the
//! planted word).
//!
//! Usage: `agent-gen OUT_DIR [--sessions N] [--seed S] [--mb M] [--truth FILE]`. `OUT_DIR`
//! stands for a home folder: it gets `.gemini/tmp/…`, `.qwen/projects/…` (with Qwen Code's
//! `.qwen/usage/` beside), `.local/share/{opencode,kilo,amp}/` (and `opencode-1.1/storage/`,
//! OpenCode's sessions as its 1.1 kept them), `.copilot/session-state/`, `code/` (Aider's
//! repositories), `.config/Code/User/workspaceStorage/` and
//! `.config/Code/User/globalStorage/<extension>/tasks/` and `.config/Cursor/User/globalStorage/` and `.cursor/{projects,chats}/`, so `HOME=OUT_DIR baton usage`
//! finds them where the agents keep them. The truth goes to `OUT_DIR/truth.json` unless
//! `--truth` names another file. `--mb` adds sessions until each agent's tree holds about M
//! megabytes (for benchmarks).

use baton_core::transcripts::Provider;
use baton_tests::agents::{
    Truth, aider, amp, cline, copilot, copilot_chat, cursor, cursor_cli, cursor_transcripts,
    gemini, opencode, qwen,
};
use std::path::PathBuf;

fn main() {
    let mut args = std::env::args().skip(1);
    let mut out: Option<PathBuf> = None;
    let (mut sessions, mut seed, mut mb) = (6usize, 42u64, 0u64);
    let mut truth_file: Option<PathBuf> = None;
    while let Some(arg) = args.next() {
        let mut number = |name: &str| -> u64 {
            args.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| fail(&format!("{name} needs a number")))
        };
        match arg.as_str() {
            "--sessions" => sessions = number("--sessions") as usize,
            "--seed" => seed = number("--seed"),
            "--mb" => mb = number("--mb"),
            "--truth" => truth_file = args.next().map(PathBuf::from),
            "-h" | "--help" => {
                println!("agent-gen OUT_DIR [--sessions N] [--seed S] [--mb M] [--truth FILE]");
                return;
            }
            other if out.is_none() && !other.starts_with('-') => out = Some(other.into()),
            other => fail(&format!("unknown argument `{other}`")),
        }
    }
    let out = out.unwrap_or_else(|| fail("name the folder to write (agent-gen OUT_DIR)"));
    let sessions = sessions.max(3);
    let grow = |write: &dyn Fn(usize) -> Truth| -> Truth {
        let mut count = sessions;
        loop {
            let truth = write(count);
            if mb == 0 || truth.bytes >= mb << 20 {
                return truth;
            }
            // Scale to the size asked, with a little over.
            let per = (truth.bytes / count as u64).max(1);
            count = ((mb << 20) / per + 3) as usize;
        }
    };
    let gemini_root = out.join(".gemini").join("tmp");
    let qwen_root = out.join(".qwen").join("projects");
    let gemini = grow(&|n| {
        let _ = std::fs::remove_dir_all(&gemini_root);
        gemini::tree(&gemini_root, n, seed)
    });
    let qwen = grow(&|n| {
        let _ = std::fs::remove_dir_all(out.join(".qwen"));
        qwen::tree(&qwen_root, n, seed)
    });
    let opencode_root = out.join(".local/share/opencode");
    let kilo_root = out.join(".local/share/kilo");
    let opencode = grow(&|n| opencode::tree(&opencode_root, n, seed, false));
    let kilo = grow(&|n| opencode::tree(&kilo_root, n, seed, true));
    // The same OpenCode sessions as OpenCode 1.1 kept them, a tree of files, in a data folder
    // of their own (the truth is `opencode`'s).
    let old_storage = out.join("opencode-1.1/storage");
    let _ = std::fs::remove_dir_all(&old_storage);
    opencode::tree_from_database(&opencode_root.join("opencode.db"), &old_storage, &[]);
    let copilot_root = out.join(".copilot").join("session-state");
    let copilot = grow(&|n| {
        let _ = std::fs::remove_dir_all(&copilot_root);
        copilot::tree(&copilot_root, n, seed)
    });
    let chat_root = out.join(".config/Code/User/workspaceStorage");
    let chat = grow(&|n| {
        let _ = std::fs::remove_dir_all(&chat_root);
        copilot_chat::tree(&chat_root, n, seed)
    });
    let amp_root = out.join(".local/share/amp/threads");
    let amp = grow(&|n| {
        let _ = std::fs::remove_dir_all(&amp_root);
        amp::tree(&amp_root, n, seed)
    });
    let aider_root = out.join("code");
    let aider = grow(&|n| {
        let _ = std::fs::remove_dir_all(&aider_root);
        aider::tree(&aider_root, n, seed)
    });
    let [cline_tasks, roo_tasks, kilo_tasks] =
        [Provider::Cline, Provider::RooCode, Provider::KiloCode].map(|product| {
            let root = out
                .join(".config/Code/User/globalStorage")
                .join(cline::extension(product));
            grow(&|n| {
                let _ = std::fs::remove_dir_all(&root);
                cline::tree(&root, product, n, seed)
            })
        });
    let cursor_root = out.join(".config/Cursor/User/globalStorage");
    let cursor = grow(&|n| cursor::tree(&cursor_root, n, seed));
    let cli_root = out.join(".cursor/chats");
    let cursor_cli = grow(&|n| {
        let _ = std::fs::remove_dir_all(&cli_root);
        cursor_cli::tree(&cli_root, n, seed)
    });
    // Cursor's agents' transcripts, one a copy of a chat its store holds.
    let transcripts_root = out.join(".cursor/projects");
    let copies = cursor_transcripts::copies_of(&cursor);
    let transcripts = grow(&|n| {
        let _ = std::fs::remove_dir_all(&transcripts_root);
        cursor_transcripts::tree(&transcripts_root, n, seed, &copies)
    });
    let written = [
        ("gemini", "Gemini CLI sessions", &gemini),
        ("qwen", "Qwen Code sessions", &qwen),
        ("opencode", "OpenCode sessions", &opencode),
        ("kilo", "Kilo CLI sessions", &kilo),
        ("copilot_cli", "Copilot CLI sessions", &copilot),
        ("copilot_chat", "Copilot Chat sessions", &chat),
        ("amp", "Amp threads", &amp),
        ("aider", "Aider runs", &aider),
        ("cline", "Cline tasks", &cline_tasks),
        ("roo_code", "Roo Code tasks", &roo_tasks),
        ("kilo_code", "Kilo Code tasks", &kilo_tasks),
        ("cursor", "Cursor chats", &cursor),
        (
            "cursor_transcripts",
            "Cursor agent transcripts",
            &transcripts,
        ),
        ("cursor_cli", "cursor-agent chats", &cursor_cli),
    ];
    let truth: serde_json::Map<String, serde_json::Value> = written
        .iter()
        .map(|(key, _, truth)| ((*key).to_owned(), truth.to_json()))
        .collect();
    let text = serde_json::to_string_pretty(&truth).unwrap_or_default();
    let truth_file = truth_file.unwrap_or_else(|| out.join("truth.json"));
    if let Err(err) = std::fs::write(&truth_file, text + "\n") {
        fail(&format!("cannot write truth.json: {err}"));
    }
    let counts: Vec<String> = written
        .iter()
        .map(|(_, what, truth)| {
            format!(
                "{} {what} ({} bytes)",
                truth.conversations.len(),
                truth.bytes
            )
        })
        .collect();
    println!("wrote {} under {}", counts.join(", "), out.display());
}

fn fail(message: &str) -> ! {
    eprintln!("agent-gen: {message}");
    std::process::exit(2)
}
