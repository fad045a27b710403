//! Aider histories as Aider 0.86 writes them (`aider/io.py`, `aider/coders/base_coder.py`,
//! `aider/utils.py` of `Aider-AI/aider` at 5dc9490bb35f9729ef2c95d00a19ccd30c26339c):
//! `<repository>/.aider.chat.history.md`, appended to by every run. The traps: a header in
//! local time without a zone; the model only in the run's announcement (`Main model:` or
//! `Model:`); each of Aider's lines ending in two spaces while a reply's own `#### ` heading and
//! `> ` quote do not; a prompt over several `#### ` lines; a `/add` command before the prompt;
//! a reflection (a second reply and report without a new prompt); a report with both cache
//! counts, its `Cost:` on an unprefixed second line; counts rounded (`2.3k`, `12k`); a model
//! Aider cannot price (no `Cost:`); edits applied and commits; a run that only commits.

use super::{Listed, PLANTED, Rng, START_MILLIS, Tokens, Truth, iso, title_of, write};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The models: Claude's under its provider, an OpenAI one, and one the price table does not
/// know (Aider cannot price it either: its reports have no cost).
pub const MODELS: [&str; 3] = [
    "anthropic/claude-sonnet-4-5",
    "gpt-5",
    "openrouter/acme/coder-lite-2",
];

/// A count as Aider writes it (`format_tokens`), and what it reads back as.
fn rounded(n: u64) -> (String, u64) {
    if n < 1000 {
        (n.to_string(), n)
    } else if n < 10_000 {
        let tenths = (n + 50) / 100;
        (format!("{}.{}k", tenths / 10, tenths % 10), tenths * 100)
    } else {
        let thousands = (n + 500) / 1000;
        (format!("{thousands}k"), thousands * 1000)
    }
}

/// A report line (or two), billed in the truth.
fn report(
    rng: &mut Rng,
    truth: &mut Truth,
    at: i64,
    model: &str,
    session_cost: &mut f64,
    caches: bool,
) -> String {
    let hit = if caches { 2000 + rng.below(30_000) } else { 0 };
    let write = if caches { 100 + rng.below(3000) } else { 0 };
    let sent = 500 + rng.below(20_000) + hit + write;
    let received = 20 + rng.below(1500);
    let (sent_text, sent_read) = rounded(sent);
    let (write_text, write_read) = rounded(write);
    let (hit_text, hit_read) = rounded(hit);
    let (received_text, received_read) = rounded(received);
    truth.bill(
        at,
        model,
        Tokens {
            input: sent_read
                .saturating_sub(write_read)
                .saturating_sub(hit_read),
            output: received_read,
            cache_read: hit_read,
            cache_write: write_read,
            reasoning: 0,
        },
    );
    let mut line = format!("> Tokens: {sent_text} sent");
    if caches {
        line.push_str(&format!(", {write_text} cache write, {hit_text} cache hit"));
    }
    line.push_str(&format!(", {received_text} received."));
    if model == MODELS[2] {
        return line + "  \n";
    }
    let cost = (sent as f64 * 3.0 + received as f64 * 15.0) / 1e6;
    *session_cost += cost;
    let cost_text = format!("Cost: ${cost:.2} message, ${session_cost:.2} session.");
    if caches {
        format!("{line}\n{cost_text}  \n")
    } else {
        format!("{line} {cost_text}  \n")
    }
}

/// Writes `sessions` runs (at least 3 for every trap) in two repositories under `root`, and
/// answers their truth.
pub fn tree(root: &Path, sessions: usize, seed: u64) -> Truth {
    let mut truth = Truth::default();
    let mut rng = Rng::new(seed ^ 0x0061_6964);
    let mut files: BTreeMap<PathBuf, String> = BTreeMap::new();
    for n in 0..sessions {
        let repo = root.join(["upload-client", "billing"][n % 2]);
        let history = files
            .entry(repo.join(".aider.chat.history.md"))
            .or_default();
        let at = START_MILLIS + n as i64 * 4 * 3_600_000;
        let header = iso(at);
        history.push_str(&format!(
            "\n# aider chat started at {} {}\n\n",
            &header[..10],
            &header[11..19]
        ));
        let model = MODELS[n % MODELS.len()];
        history.push_str(&format!("> /usr/local/bin/aider --model {model}  \n"));
        history.push_str("> Aider v0.86.2  \n");
        if n % 2 == 0 {
            history.push_str(&format!(
                "> Main model: {model} with diff edit format, infinite output  \n\
                 > Weak model: gpt-5-mini  \n"
            ));
        } else {
            history.push_str(&format!("> Model: {model} with whole edit format  \n"));
        }
        history.push_str(
            "> Git repo: .git with 42 files  \n> Repo-map: using 4096 tokens, auto refresh  \n",
        );
        let project = ["upload-client", "billing"][n % 2];
        let id = baton_core::transcripts::aider::run_id(
            baton_core::Timestamp::parse(&header).ok(),
            Some(project),
        );
        if n % 5 == 4 {
            // A run that only commits (`aider --commit`): no prompt, no reply, no conversation.
            history.push_str("> Commit 9f8e7d6 chore: tidy  \n");
            continue;
        }
        history.push_str("\n#### /add app.py  \n> Added app.py to the chat  \n");
        let prompt = if n == 0 {
            format!("make the {PLANTED} upload retry")
        } else {
            format!("run {n}: retry failed uploads")
        };
        history.push_str(&format!("\n#### {prompt}  \n"));
        if n % 2 == 1 {
            history.push_str("#### with a backoff  \n");
        }
        history.push_str(
            "\nHere is the change.\n\n#### Steps\n> each retry waits longer\n\napp.py\n```python\n\
             <<<<<<< SEARCH\n    upload()\n=======\n    retry(upload)\n>>>>>>> REPLACE\n```\n\n",
        );
        let mut session_cost = 0.0;
        let mut edits = 1;
        let mut report = |truth: &mut Truth, caches: bool| {
            report(&mut rng, truth, at, model, &mut session_cost, caches)
        };
        history.push_str(&report(&mut truth, n % 3 == 2));
        history.push_str("> Applied edit to app.py  \n> Commit 1a2b3c4 feat: retry uploads  \n");
        if n % 3 == 1 {
            // A reflection: Aider sends the lint errors back itself, with no new prompt.
            history.push_str("> Fix lint errors in app.py? (Y)es/(N)o [Yes]: y  \n");
            history.push_str("\nFixed the lint error.\n\n");
            history.push_str(&report(&mut truth, false));
            history.push_str("> Applied edit to app.py  \n");
            edits += 1;
        }
        history.push_str("> You can use /undo to undo and discard each aider commit.  \n");
        truth.conversations.insert(
            id.clone(),
            Listed {
                id,
                title: title_of(&prompt),
                tool_calls: edits,
            },
        );
    }
    for (path, text) in files {
        truth.bytes += write(&path, text.as_bytes());
    }
    truth
}
