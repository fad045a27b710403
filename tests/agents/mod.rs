//! Writes each newer agent's sessions in the agent's own layout, with the traps its source
//! shows, and the truth they must give: token totals by day and model in Baton's one meaning,
//! the conversations with their titles and tool calls, and a word planted in one prompt for
//! search. The tests read these trees through every face and compare with the truth; the
//! `agent-gen` binary writes them for people and benchmarks.

pub mod aider;
pub mod amp;
pub mod cline;
pub mod copilot;
pub mod copilot_chat;
pub mod cursor;
pub mod cursor_cli;
pub mod cursor_transcripts;
pub mod gemini;
pub mod opencode;
pub mod qwen;

use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;

/// The word planted in one prompt of each agent's history.
pub const PLANTED: &str = "zanzibarquux";

/// Token totals in Baton's one meaning.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tokens {
    /// Input, cached tokens left out.
    pub input: u64,
    /// Output, reasoning included.
    pub output: u64,
    /// Cached input read.
    pub cache_read: u64,
    /// Input written to the cache.
    pub cache_write: u64,
    /// The reasoning part of the output.
    pub reasoning: u64,
}

impl Tokens {
    /// Adds `other`.
    pub fn add(&mut self, other: Tokens) {
        self.input += other.input;
        self.output += other.output;
        self.cache_read += other.cache_read;
        self.cache_write += other.cache_write;
        self.reasoning += other.reasoning;
    }
}

/// A conversation as a person should see it listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// The agent's session id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// Its tool calls, every branch and sub-agent included.
    pub tool_calls: usize,
}

/// What a generated tree must give.
#[derive(Debug, Clone, Default)]
pub struct Truth {
    /// Tokens by (UTC day, model).
    pub by_day_model: BTreeMap<(String, String), Tokens>,
    /// The conversations, by session id.
    pub conversations: BTreeMap<String, Listed>,
    /// Bytes written.
    pub bytes: u64,
}

impl Truth {
    /// Counts one billed response.
    pub fn bill(&mut self, at_millis: i64, model: &str, tokens: Tokens) {
        self.by_day_model
            .entry((day_of(at_millis), model.to_owned()))
            .or_default()
            .add(tokens);
    }

    /// Tokens by day, every model together.
    pub fn by_day(&self) -> BTreeMap<String, Tokens> {
        let mut days: BTreeMap<String, Tokens> = BTreeMap::new();
        for ((day, _), tokens) in &self.by_day_model {
            days.entry(day.clone()).or_default().add(*tokens);
        }
        days
    }

    /// Tokens by model, every day together.
    pub fn by_model(&self) -> BTreeMap<String, Tokens> {
        let mut models: BTreeMap<String, Tokens> = BTreeMap::new();
        for ((_, model), tokens) in &self.by_day_model {
            models.entry(model.clone()).or_default().add(*tokens);
        }
        models
    }

    /// The truth as JSON (what `agent-gen` writes beside the trees).
    pub fn to_json(&self) -> Value {
        let days: Vec<Value> = self
            .by_day_model
            .iter()
            .map(|((day, model), t)| {
                json!({"day": day, "model": model, "input_tokens": t.input,
                    "output_tokens": t.output, "cache_read_tokens": t.cache_read,
                    "cache_creation_tokens": t.cache_write,
                    "reasoning_tokens": t.reasoning})
            })
            .collect();
        let conversations: Vec<Value> = self
            .conversations
            .values()
            .map(|c| json!({"id": c.id, "title": c.title, "tool_calls": c.tool_calls}))
            .collect();
        json!({"by_day_model": days, "conversations": conversations, "planted": PLANTED})
    }
}

/// The title a first prompt makes (its first line, cut to 80 characters).
pub fn title_of(prompt: &str) -> String {
    let line = prompt.lines().next().unwrap_or("").trim();
    let cut: String = line.chars().take(80).collect();
    if cut.len() < line.len() {
        format!("{cut}…")
    } else {
        cut
    }
}

/// A small deterministic generator (xorshift).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// Seeded. The seed is scrambled first (SplitMix64's finaliser): a generator seeded with
    /// another's draw would otherwise repeat that one's numbers one step later.
    pub fn new(seed: u64) -> Rng {
        let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        Rng((z ^ (z >> 31)).max(1))
    }
    /// The next number.
    pub fn draw(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// A number below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.draw() % n.max(1)
    }
    /// A v4-shaped UUID.
    pub fn uuid(&mut self) -> String {
        let (a, b) = (self.draw(), self.draw());
        format!(
            "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
            a >> 32,
            (a >> 16) & 0xffff,
            a & 0xfff,
            (b >> 48) & 0xfff,
            b & 0xffff_ffff_ffff
        )
    }
}

/// `YYYY-MM-DD` of a time in milliseconds (UTC).
pub fn day_of(millis: i64) -> String {
    iso(millis)[..10].to_owned()
}

/// An ISO-8601 UTC time with milliseconds, as the agents write them.
pub fn iso(millis: i64) -> String {
    let days = millis.div_euclid(86_400_000);
    let rest = millis.rem_euclid(86_400_000);
    // Days since 1970-01-01 to a civil date (proleptic Gregorian).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3_600_000,
        rest / 60_000 % 60,
        rest / 1000 % 60,
        rest % 1000
    )
}

/// Writes `lines` as JSONL (each a value on its own line) to `path`, making its folders;
/// answers the bytes written.
pub fn write_lines(path: &Path, lines: &[Value]) -> u64 {
    let mut text = String::new();
    for line in lines {
        text.push_str(&line.to_string());
        text.push('\n');
    }
    write(path, text.as_bytes())
}

/// Writes `bytes` to `path`, making its folders; answers the bytes written.
pub fn write(path: &Path, bytes: &[u8]) -> u64 {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("make folders");
    }
    std::fs::write(path, bytes).expect("write a generated file");
    bytes.len() as u64
}

/// Where the generated sessions start: 2026-08-20 09:00 UTC.
pub const START_MILLIS: i64 = 1_787_216_400_000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_written_as_the_agents_write_them() {
        assert_eq!(iso(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso(START_MILLIS), "2026-08-20T09:00:00.000Z");
        assert_eq!(day_of(START_MILLIS + 15 * 3_600_000), "2026-08-21");
    }
}
