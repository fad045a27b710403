//! Writes synthetic Claude Code and Codex trees with every accounting trap Baton must survive,
//! and the truth they must produce (daily token totals in Baton's one meaning).
//!
//! Usage: `transcript-gen OUT_DIR [--sessions N] [--seed S] [--mb M] [--ccusage-safe]`, or
//! `transcript-gen OUT_DIR --chatgpt-mb M` for one large ChatGPT export (benchmarks).
//! `--responses R` gives Claude Code sessions 3 to 3+R responses (default 8: small files;
//! a few hundred makes files of real sessions' size).
//! Writes `OUT_DIR/claude/projects/…`, `OUT_DIR/codex/sessions/…` and `OUT_DIR/truth.json`.
//! `--mb` keeps adding sessions until the trees hold about M megabytes (for benchmarks).
//!
//! Traps: one response over several lines with placeholder output; resumed files repeating
//! earlier lines; sub-agent files (real spend); sidechain replays of main responses (not
//! spend); `<synthetic>` responses; lines without `requestId`; `cache_creation` objects;
//! lone UTF-16 surrogate escapes; malformed and torn lines; Codex `info: null`, cumulative
//! totals re-emitted unchanged, and the model changing mid-session.
//!
//! `--prose` writes text a person searches (the default is a placeholder per block): prompts
//! and replies drawn from a Zipf law over a programming vocabulary, so the commonest words
//! (`ledger`, `test`, `error`) are in most messages, and tool calls whose output is repetitive
//! log lines (a second text model beside prose, for the search and index-size benchmarks).
//!
//! `--ccusage-safe` leaves out the three traps ccusage 20.0.24 gets wrong (it counts every
//! line of a response that has no `requestId`, counts sidechain replays, and drops a line with
//! a lone surrogate escape) and the one place its prices differ from Anthropic's bill (a
//! request above 200k input tokens), so the two tools can be compared exactly on the rest.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

#[derive(Default, Clone, Copy)]
struct Day([u64; 5]);

/// The `--prose` text model: words by a Zipf law (the `k`th commonest drawn with weight
/// `1/k`) over a vocabulary whose head is fixed, so a benchmark knows its commonest words.
struct Prose {
    words: Vec<String>,
    cumulative: Vec<f64>,
}

/// The commonest words, in order (the rest of the vocabulary is made up).
const HEAD: &[&str] = &[
    "ledger",
    "test",
    "error",
    "build",
    "session",
    "file",
    "parser",
    "index",
    "config",
    "value",
    "function",
    "module",
    "check",
    "line",
    "cargo",
    "crate",
    "query",
    "timeout",
    "retry",
    "fixture",
    "release",
    "database",
    "migration",
    "commit",
    "branch",
    "review",
    "output",
    "input",
    "token",
    "cache",
    "model",
    "prompt",
    "agent",
    "hook",
    "server",
    "client",
    "request",
    "response",
    "schema",
    "field",
    "struct",
    "trait",
    "impl",
    "match",
    "panic",
    "unwrap",
    "result",
    "option",
    "string",
    "vector",
    "buffer",
    "stream",
    "socket",
    "thread",
    "process",
    "signal",
    "lock",
    "mutex",
    "channel",
    "event",
    "handler",
    "router",
];

impl Prose {
    fn new(rng: &mut Rng) -> Prose {
        const SYLLABLES: &[&str] = &[
            "ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "ze", "po", "qu", "dra", "fen", "gil",
            "hob", "jex", "kry", "lum", "mor", "nix",
        ];
        let mut words: Vec<String> = HEAD.iter().map(|w| (*w).to_owned()).collect();
        let mut seen: std::collections::BTreeSet<String> = words.iter().cloned().collect();
        while words.len() < 4000 {
            let parts = 2 + rng.below(3);
            let word: String = (0..parts)
                .map(|_| SYLLABLES[rng.below(SYLLABLES.len() as u64) as usize])
                .collect();
            if seen.insert(word.clone()) {
                words.push(word);
            }
        }
        let mut sum = 0.0;
        let cumulative = (1..=words.len())
            .map(|k| {
                sum += 1.0 / k as f64;
                sum
            })
            .collect();
        Prose { words, cumulative }
    }

    fn word(&self, rng: &mut Rng) -> &str {
        let total = *self.cumulative.last().unwrap();
        let at = (rng.next() >> 11) as f64 / (1u64 << 53) as f64 * total;
        let k = self.cumulative.partition_point(|c| *c < at);
        &self.words[k.min(self.words.len() - 1)]
    }

    /// `n` words as sentences.
    fn text(&self, rng: &mut Rng, n: u64) -> String {
        let mut out = String::new();
        for i in 0..n {
            if i > 0 {
                out.push_str(if i % 12 == 0 { ". " } else { " " });
            }
            out.push_str(self.word(rng));
        }
        out.push('.');
        out
    }

    /// Tool output: repetitive log lines, as a build or a test run prints them (JSON-escaped
    /// newlines).
    fn log(&self, rng: &mut Rng, lines: u64) -> String {
        let mut out = String::new();
        for i in 0..lines {
            let level = ["INFO", "INFO", "INFO", "WARN", "ERROR"][rng.below(5) as usize];
            let _ = write!(
                out,
                "2026-06-01T10:{:02}:{:02}Z {level} {}: {} {} in {}.{}s\\n",
                i % 60,
                rng.below(60),
                self.word(rng),
                self.word(rng),
                self.word(rng),
                rng.below(10),
                rng.below(100)
            );
        }
        out
    }
}

struct Gen {
    rng: Rng,
    /// The text model, with `--prose`.
    prose: Option<Prose>,
    ccusage_safe: bool,
    truth: BTreeMap<String, Day>,
    bytes: u64,
    /// Claude Code responses per session: 3 plus up to this many more.
    spread: u64,
}

fn day_of(ts: i64) -> String {
    let days = ts.div_euclid(86_400_000);
    let (y, m, d) = civil(days);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian.
fn civil(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn iso(ts: i64) -> String {
    let (y, m, d) = civil(ts.div_euclid(86_400_000));
    let ms = ts.rem_euclid(86_400_000);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        ms / 3_600_000,
        ms / 60_000 % 60,
        ms / 1000 % 60,
        ms % 1000
    )
}

impl Gen {
    fn count(&mut self, ts: i64, t: [u64; 5]) {
        let day = self.truth.entry(day_of(ts)).or_default();
        for (slot, v) in day.0.iter_mut().zip(t) {
            *slot += v;
        }
    }

    fn write(&mut self, path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .unwrap();
        f.write_all(text.as_bytes()).unwrap();
        self.bytes += text.len() as u64;
    }

    fn claude_session(&mut self, root: &Path, n: u64, start: i64) {
        let session = format!(
            "0000{n:04x}-aaaa-4bbb-8ccc-{:012x}",
            self.rng.next() & 0xffff_ffff_ffff
        );
        let project = format!("-home-dev-proj{}", n % 5);
        let file = root.join(&project).join(format!("{session}.jsonl"));
        let cwd = format!("/home/dev/proj{}", n % 5);
        let mut text = String::new();
        let mut ts = start;
        let mut main_ids = Vec::new();
        let responses = 3 + self.rng.below(self.spread);
        let prose = self.prose.take();
        for r in 0..responses {
            // With `--prose`: the reply's words, a tool call on every third response, and the
            // prompt (or the tool's output) that follows.
            let (reply, tool, follow) = match &prose {
                Some(p) => {
                    let words = 8 + self.rng.below(40);
                    let reply = p.text(&mut self.rng, words);
                    let tool = r % 3 == 0;
                    let follow = if tool {
                        let lines = 2 + self.rng.below(12);
                        p.log(&mut self.rng, lines)
                    } else {
                        let words = 5 + self.rng.below(25);
                        p.text(&mut self.rng, words)
                    };
                    (Some(reply), tool, follow)
                }
                None => (None, false, "next".to_owned()),
            };
            ts += 20_000 + self.rng.below(600_000) as i64;
            let (input, output) = (1 + self.rng.below(5000), 10 + self.rng.below(3000));
            let (creation, read) = (self.rng.below(20_000), self.rng.below(200_000));
            // ccusage prices the part of each token class above 200k at the long-context
            // rate; Anthropic bills the whole request at it once the request's input is above
            // 200k. The ccusage-safe tree keeps every request at or under 200k, where both agree.
            let read = if self.ccusage_safe {
                read.min(175_000)
            } else {
                read
            };
            let model = match r % 4 {
                3 => "claude-haiku-4-5-20251001",
                2 => "claude-opus-4-7",
                _ => "claude-sonnet-4-20250514",
            };
            let message_id = format!("msg_{n}_{r}");
            let with_request = r % 5 != 4 || self.ccusage_safe;
            let blocks = 1 + self.rng.below(3);
            let use_object = r % 2 == 0;
            for b in 0..blocks {
                let out = if b + 1 == blocks {
                    output
                } else {
                    1 + self.rng.below(9)
                };
                let cache = if use_object {
                    format!(
                        r#""cache_creation":{{"ephemeral_5m_input_tokens":{},"ephemeral_1h_input_tokens":{}}},"cache_creation_input_tokens":{creation}"#,
                        creation / 2,
                        creation - creation / 2
                    )
                } else {
                    format!(r#""cache_creation_input_tokens":{creation}"#)
                };
                let request = if with_request {
                    format!(r#","requestId":"req_{n}_{r}""#)
                } else {
                    String::new()
                };
                let surrogate = if r == 1 && b == 0 && !self.ccusage_safe {
                    r#","cwd":"/home/dev/cut \ud83d""#
                } else {
                    ""
                };
                let cwd_field = if surrogate.is_empty() {
                    format!(r#","cwd":"{cwd}""#)
                } else {
                    surrogate.to_owned()
                };
                let last = b + 1 == blocks;
                let content = match &reply {
                    Some(words) if last && tool => format!(
                        r#"{{"type":"text","text":"{words}"}},{{"type":"tool_use","id":"toolu_{n}_{r}","name":"Bash","input":{{"command":"cargo test --workspace"}}}}"#
                    ),
                    Some(words) if last => format!(r#"{{"type":"text","text":"{words}"}}"#),
                    _ => format!(r#"{{"type":"text","text":"block {b}"}}"#),
                };
                writeln!(
                    text,
                    r#"{{"parentUuid":null,"isSidechain":false,"type":"assistant","sessionId":"{session}"{cwd_field},"version":"2.1.38","uuid":"u{n}-{r}-{b}","timestamp":"{}"{request},"message":{{"id":"{message_id}","type":"message","role":"assistant","model":"{model}","content":[{content}],"usage":{{"input_tokens":{input},"output_tokens":{out},{cache},"cache_read_input_tokens":{read}}}}}}}"#,
                    iso(ts + b as i64)
                )
                .unwrap();
            }
            self.count(ts, [input, output, creation, read, 0]);
            main_ids.push((message_id, ts));
            let said = if tool {
                format!(
                    r#"[{{"type":"tool_result","tool_use_id":"toolu_{n}_{r}","content":"{follow}"}}]"#
                )
            } else {
                format!(r#""{follow}""#)
            };
            let uuid = if prose.is_some() {
                format!(r#","uuid":"p{n}-{r}""#)
            } else {
                String::new()
            };
            writeln!(text, r#"{{"type":"user","sessionId":"{session}"{uuid},"timestamp":"{}","message":{{"role":"user","content":{said}}}}}"#, iso(ts + 5)).unwrap();
        }
        self.prose = prose;
        // A synthetic pseudo-response and a malformed line.
        writeln!(text, r#"{{"type":"assistant","sessionId":"{session}","timestamp":"{}","message":{{"id":"syn_{n}","model":"<synthetic>","usage":{{"input_tokens":0,"output_tokens":0}}}}}}"#, iso(ts + 10)).unwrap();
        writeln!(text, r#"{{"type":"assistant","usage": broken"#).unwrap();
        self.write(&file, &text);
        // A resumed file repeating the whole history, then one new response.
        if n.is_multiple_of(3) {
            let resumed = root.join(&project).join(format!("{session}-resumed.jsonl"));
            let (input, output, read) = (
                100 + self.rng.below(100),
                50 + self.rng.below(50),
                self.rng.below(1000),
            );
            let later = ts + 60_000;
            let mut more = text.clone();
            writeln!(more, r#"{{"type":"assistant","sessionId":"{session}","timestamp":"{}","requestId":"req_{n}_resume","message":{{"id":"msg_{n}_resume","model":"claude-sonnet-4-20250514","usage":{{"input_tokens":{input},"output_tokens":{output},"cache_read_input_tokens":{read}}}}}}}"#, iso(later)).unwrap();
            self.count(later, [input, output, 0, read, 0]);
            self.write(&resumed, &more);
        }
        // A sub-agent file: its own responses (spend) and a replay of a main response (not).
        if n.is_multiple_of(2) {
            let sub = root
                .join(&project)
                .join(&session)
                .join("subagents")
                .join(format!("agent-a{n}.jsonl"));
            let mut side = String::new();
            let (input, output) = (10 + self.rng.below(500), 5 + self.rng.below(300));
            let at = start + 30_000;
            writeln!(side, r#"{{"parentUuid":null,"isSidechain":true,"agentId":"a{n}","type":"assistant","sessionId":"{session}","timestamp":"{}","requestId":"req_sub_{n}","message":{{"id":"msg_sub_{n}","model":"claude-haiku-4-5-20251001","usage":{{"input_tokens":{input},"output_tokens":{output}}}}}}}"#, iso(at)).unwrap();
            self.count(at, [input, output, 0, 0, 0]);
            let (replayed, when) = main_ids[0].clone();
            if !self.ccusage_safe {
                writeln!(side, r#"{{"parentUuid":null,"isSidechain":true,"agentId":"a{n}","type":"assistant","sessionId":"{session}","timestamp":"{}","requestId":"req_replay_{n}","message":{{"id":"{replayed}","model":"claude-sonnet-4-20250514","usage":{{"input_tokens":7,"output_tokens":7,"cache_read_input_tokens":99999}}}}}}"#, iso(when + 1)).unwrap();
            }
            // A torn last line.
            side.push_str(r#"{"type":"assistant","message":{"usage":{"input_tok"#);
            self.write(&sub, &side);
        }
    }

    fn codex_session(&mut self, root: &Path, n: u64, start: i64) {
        let (y, m, d) = civil(start.div_euclid(86_400_000));
        let id = format!(
            "019c{n:04x}-0000-7000-8000-{:012x}",
            self.rng.next() & 0xffff_ffff_ffff
        );
        let file = root.join(format!(
            "{y:04}/{m:02}/{d:02}/rollout-{}-{id}.jsonl",
            iso(start).replace(':', "-")
        ));
        let mut text = String::new();
        writeln!(text, r#"{{"timestamp":"{}","type":"session_meta","payload":{{"id":"{id}","cwd":"/home/dev/codex{}","cli_version":"0.104.0"}}}}"#, iso(start), n % 3).unwrap();
        let model = if n % 3 == 2 { "gpt-5.4" } else { "gpt-5-codex" };
        writeln!(text, r#"{{"timestamp":"{}","type":"turn_context","payload":{{"model":"{model}","cwd":"/home/dev/codex{}"}}}}"#, iso(start), n % 3).unwrap();
        writeln!(text, r#"{{"timestamp":"{}","type":"event_msg","payload":{{"type":"token_count","info":null,"rate_limits":{{}}}}}}"#, iso(start + 1)).unwrap();
        let mut total = [0u64; 4];
        let mut ts = start;
        for turn in 0..(2 + self.rng.below(8)) {
            ts += 30_000 + self.rng.below(900_000) as i64;
            if turn == 3 {
                writeln!(text, r#"{{"timestamp":"{}","type":"turn_context","payload":{{"model":"gpt-5-mini"}}}}"#, iso(ts - 1)).unwrap();
            }
            let input = 1000 + self.rng.below(40_000);
            let cached = self.rng.below(input);
            let output = 10 + self.rng.below(4000);
            let reasoning = self.rng.below(output);
            let last = [input, cached, output, reasoning];
            for (t, l) in total.iter_mut().zip(last) {
                *t += l;
            }
            let usage = |u: [u64; 4]| {
                format!(
                    r#"{{"input_tokens":{},"cached_input_tokens":{},"output_tokens":{},"reasoning_output_tokens":{},"total_tokens":{}}}"#,
                    u[0],
                    u[1],
                    u[2],
                    u[3],
                    u[0] + u[2]
                )
            };
            let line = format!(
                r#"{{"timestamp":"{}","type":"event_msg","payload":{{"type":"token_count","info":{{"total_token_usage":{},"last_token_usage":{},"model_context_window":272000}}}}}}"#,
                iso(ts),
                usage(total),
                usage(last)
            );
            writeln!(text, "{line}").unwrap();
            // Re-emitted unchanged (a rate-limit refresh).
            if turn % 2 == 1 {
                writeln!(text, "{}", line.replace(&iso(ts), &iso(ts + 500))).unwrap();
            }
            self.count(ts, [input - cached, output, 0, cached, reasoning]);
        }
        writeln!(text, "not json at all").unwrap();
        self.write(&file, &text);
    }
}

/// Writes a ChatGPT and a claude.ai export with branches (edits and regenerations), tool
/// messages, thinking blocks and an empty conversation; returns their truth for
/// `baton inspect`: (conversations, messages, active-branch messages, branch points).
fn exports(out: &Path, rng: &mut Rng, count: u64) -> String {
    let mut chatgpt = Vec::new();
    let (mut messages, mut active, mut branches) = (0u64, 0u64, 0u64);
    for c in 0..count {
        let mut mapping =
            String::from(r#""root":{"id":"root","message":null,"parent":null,"children":["m0"]}"#);
        let turns = 2 + rng.below(6);
        let mut leaf = String::from("m0");
        let mut prev = String::from("root");
        let mut alt = None;
        for t in 0..turns {
            let id = format!("m{t}");
            let role = if t % 2 == 0 { "user" } else { "assistant" };
            let mut children = if t + 1 < turns {
                vec![format!("\"m{}\"", t + 1)]
            } else {
                vec![]
            };
            // One regenerated answer per branched conversation: a sibling of turn 1.
            if t == 0 && turns > 2 && c % 2 == 0 {
                children.push("\"alt\"".into());
                alt = Some(id.clone());
            }
            write!(mapping, r#","{id}":{{"id":"{id}","message":{{"id":"{id}","author":{{"role":"{role}"}},"create_time":{},"content":{{"content_type":"text","parts":["turn {t}"]}},"metadata":{{"model_slug":"gpt-4o"}}}},"parent":"{prev}","children":[{}]}}"#, 1_700_000_000 + c * 1000 + t, children.join(",")).unwrap();
            prev = id.clone();
            leaf = id;
            messages += 1;
            active += 1;
        }
        if let Some(parent) = alt {
            write!(mapping, r#","alt":{{"id":"alt","message":{{"id":"alt","author":{{"role":"assistant"}},"create_time":{},"content":{{"content_type":"text","parts":["another answer"]}}}},"parent":"{parent}","children":[]}}"#, 1_700_000_000 + c * 1000 + 99).unwrap();
            messages += 1;
            branches += 1;
        }
        chatgpt.push(format!(r#"{{"id":"conv-{c}","title":"Conversation {c}","create_time":{},"update_time":{},"current_node":"{leaf}","mapping":{{{mapping}}}}}"#, 1_700_000_000 + c * 1000, 1_700_000_000 + c * 1000 + 50));
    }
    std::fs::create_dir_all(out.join("chatgpt")).unwrap();
    std::fs::write(
        out.join("chatgpt/conversations.json"),
        format!("[{}]", chatgpt.join(",")),
    )
    .unwrap();
    let chatgpt_truth = format!("[{count},{messages},{active},{branches}]");

    let mut claude = Vec::new();
    let (mut messages, mut active, mut branches) = (0u64, 0u64, 0u64);
    for c in 0..count {
        if c == 0 {
            claude.push(r#"{"uuid":"empty","name":"","created_at":"2025-01-01T00:00:00Z","updated_at":"2025-01-01T00:00:00Z","chat_messages":[]}"#.to_owned());
            continue;
        }
        let turns = 2 + rng.below(5);
        let mut items = Vec::new();
        let mut parent = String::from("00000000-0000-4000-8000-000000000000");
        let mut leaf = String::new();
        for t in 0..turns {
            let id = format!("c{c}-{t}");
            let sender = if t % 2 == 0 { "human" } else { "assistant" };
            let content = if sender == "assistant" {
                r#"[{"type":"thinking","thinking":"let me see"},{"type":"text","text":"answer"}]"#
            } else {
                r#"[{"type":"text","text":"question"}]"#
            };
            items.push(format!(r#"{{"uuid":"{id}","sender":"{sender}","parent_message_uuid":"{parent}","created_at":"2025-02-0{}T10:00:{:02}Z","content":{content}}}"#, 1 + c % 9, t));
            parent = id.clone();
            leaf = id;
            messages += 1;
            active += 1;
        }
        if c % 3 == 1 {
            // An edited first question: a second child of the export's root sentinel.
            items.push(format!(r#"{{"uuid":"c{c}-edit","sender":"human","parent_message_uuid":"00000000-0000-4000-8000-000000000000","created_at":"2025-02-0{}T11:00:00Z","content":[{{"type":"text","text":"question, edited"}}]}}"#, 1 + c % 9));
            messages += 1;
            // Two first messages under one root: the conversation branched at its start.
            branches += 1;
        }
        claude.push(format!(r#"{{"uuid":"claude-{c}","name":"Chat {c}","created_at":"2025-02-01T10:00:00Z","updated_at":"2025-02-01T11:00:00Z","current_leaf_message_uuid":"{leaf}","chat_messages":[{}]}}"#, items.join(",")));
    }
    std::fs::create_dir_all(out.join("claude-ai")).unwrap();
    std::fs::write(
        out.join("claude-ai/conversations.json"),
        format!("[{}]", claude.join(",")),
    )
    .unwrap();
    format!(r#""chatgpt":{chatgpt_truth},"claude_ai":[{count},{messages},{active},{branches}]"#)
}

/// A ChatGPT export of about `target` bytes shaped like the real ones (metadata-heavy nodes,
/// answers of a few hundred to a few thousand characters, one regenerated answer in every
/// third conversation). Writes `chatgpt-big/conversations.json` and `chatgpt-big/truth.json`
/// (`{"conversations":N,"messages":M,"first_at":…,"last_at":…}`).
fn big_chatgpt(out: &Path, rng: &mut Rng, target: u64) {
    use std::io::Write as _;
    let dir = out.join("chatgpt-big");
    std::fs::create_dir_all(&dir).unwrap();
    let file = std::fs::File::create(dir.join("conversations.json")).unwrap();
    let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
    const WORDS: &[&str] = &[
        "the",
        "build",
        "fails",
        "because",
        "cargo",
        "cannot",
        "find",
        "a",
        "lock",
        "file",
        "so",
        "we",
        "retry",
        "with",
        "offline",
        "mode",
        "and",
        "check",
        "each",
        "crate",
        "version",
        "against",
        "registry",
        "index",
        "then",
        "write",
        "tests",
        "for",
        "parser",
        "édition",
        "naïve",
        "日本語",
        "emoji 🎉",
    ];
    let mut written = 1u64;
    let (mut conversations, mut messages) = (0u64, 0u64);
    let (first, mut last) = (1_690_000_000u64, 0u64);
    w.write_all(b"[").unwrap();
    while written < target {
        let c = conversations;
        let turns = 2 + rng.below(10);
        let base = first + c * 997;
        let mut mapping =
            String::from(r#""root":{"id":"root","message":null,"parent":null,"children":["m0"]}"#);
        let mut prev = String::from("root");
        let mut leaf = String::new();
        for t in 0..turns {
            let id = format!("{c:08x}-{t:04x}-4000-8000-00000000{t:04x}");
            let role = if t % 2 == 0 { "user" } else { "assistant" };
            let words = if role == "user" {
                10 + rng.below(60)
            } else {
                60 + rng.below(500)
            };
            let text: Vec<&str> = (0..words)
                .map(|_| WORDS[rng.below(WORDS.len() as u64) as usize])
                .collect();
            let next = if t + 1 < turns {
                format!(r#""{c:08x}-{:04x}-4000-8000-00000000{:04x}""#, t + 1, t + 1)
            } else {
                String::new()
            };
            let mut children = next;
            if t == 0 && turns > 2 && c % 3 == 0 {
                children.push_str(&format!(r#","{c:08x}-alt""#));
            }
            let at = base + t * 7;
            last = last.max(at);
            write!(mapping, r#","{id}":{{"id":"{id}","message":{{"id":"{id}","author":{{"role":"{role}","name":null,"metadata":{{}}}},"create_time":{at}.25,"update_time":null,"content":{{"content_type":"text","parts":["{}"]}},"status":"finished_successfully","end_turn":true,"weight":1.0,"metadata":{{"model_slug":"{}","default_model_slug":"auto","request_id":"9{c:07x}{t:08x}","message_type":null,"finish_details":{{"type":"stop","stop_tokens":[200002]}},"citations":[],"content_references":[],"is_complete":true,"parent_id":"{prev}","timestamp_":"absolute"}},"recipient":"all","channel":null}},"parent":"{prev}","children":[{children}]}}"#,
                text.join(" "),
                if c % 4 == 0 { "gpt-4o" } else if c % 4 == 1 { "o3" } else { "gpt-4.1-mini" }).unwrap();
            prev = id.clone();
            leaf = id;
            messages += 1;
        }
        if turns > 2 && c % 3 == 0 {
            let parent = format!("{c:08x}-0000-4000-8000-000000000000");
            write!(mapping, r#","{c:08x}-alt":{{"id":"{c:08x}-alt","message":{{"id":"{c:08x}-alt","author":{{"role":"assistant"}},"create_time":{}.5,"content":{{"content_type":"text","parts":["a regenerated answer"]}},"metadata":{{"model_slug":"gpt-4o"}}}},"parent":"{parent}","children":[]}}"#, base + 3).unwrap();
            messages += 1;
        }
        let item = format!(
            r#"{}{{"title":"Conversation {c}: cargo and the registry","create_time":{base}.0,"update_time":{}.0,"mapping":{{{mapping}}},"moderation_results":[],"current_node":"{leaf}","plugin_ids":null,"conversation_id":"conv-{c:08x}","conversation_template_id":null,"gizmo_id":null,"is_archived":false,"safe_urls":[],"default_model_slug":"auto","id":"conv-{c:08x}"}}"#,
            if c == 0 { "" } else { "," },
            base + turns * 7
        );
        w.write_all(item.as_bytes()).unwrap();
        written += item.len() as u64;
        conversations += 1;
    }
    w.write_all(b"]").unwrap();
    w.flush().unwrap();
    std::fs::write(
        dir.join("truth.json"),
        format!(
            r#"{{"conversations":{conversations},"messages":{messages},"bytes":{}}}"#,
            written + 1
        ),
    )
    .unwrap();
    println!(
        "wrote a {:.1} MB ChatGPT export with {conversations} conversations to {}",
        written as f64 / 1e6,
        dir.display()
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let out = PathBuf::from(args.get(1).expect("OUT_DIR"));
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse::<u64>().ok())
    };
    if let Some(mb) = flag("--chatgpt-mb") {
        big_chatgpt(
            &out,
            &mut Rng(flag("--seed").unwrap_or(7) | 1),
            mb * 1_000_000,
        );
        return;
    }
    let sessions = flag("--sessions").unwrap_or(40);
    let target_bytes = flag("--mb").map(|mb| mb * 1_000_000);
    let mut rng = Rng(flag("--seed").unwrap_or(7) | 1);
    let prose = args
        .iter()
        .any(|a| a == "--prose")
        .then(|| Prose::new(&mut rng));
    let mut g = Gen {
        rng,
        prose,
        ccusage_safe: args.iter().any(|a| a == "--ccusage-safe"),
        truth: BTreeMap::new(),
        bytes: 0,
        spread: flag("--responses").unwrap_or(8),
    };
    let claude_root = out.join("claude/projects");
    let codex_root = out.join("codex/sessions");
    let base = 1_780_000_000_000i64;
    let mut n = 0;
    loop {
        let start = base + (n as i64 % 45) * 86_400_000 + g.rng.below(80_000_000) as i64;
        g.claude_session(&claude_root, n, start);
        g.codex_session(&codex_root, n, start);
        n += 1;
        let done = match target_bytes {
            Some(t) => g.bytes >= t,
            None => n >= sessions,
        };
        if done {
            break;
        }
    }
    let mut truth = String::from("{\"daily\":{");
    let mut totals = [0u64; 5];
    for (i, (day, t)) in g.truth.iter().enumerate() {
        if i > 0 {
            truth.push(',');
        }
        write!(
            truth,
            r#""{day}":[{},{},{},{},{}]"#,
            t.0[0], t.0[1], t.0[2], t.0[3], t.0[4]
        )
        .unwrap();
        for (s, v) in totals.iter_mut().zip(t.0) {
            *s += v;
        }
    }
    let export_truth = exports(&out, &mut g.rng, n.min(200));
    write!(
        truth,
        r#"}},"totals":[{},{},{},{},{}],"bytes":{},"sessions":{n},{export_truth}}}"#,
        totals[0], totals[1], totals[2], totals[3], totals[4], g.bytes
    )
    .unwrap();
    std::fs::write(out.join("truth.json"), truth).unwrap();
    println!(
        "wrote {n} Claude Code and {n} Codex sessions, {:.1} MB, to {}",
        g.bytes as f64 / 1e6,
        out.display()
    );
}
