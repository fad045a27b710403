//! Qwen Code sessions (`~/.qwen/projects/<project>/chats/<session>.jsonl`, sub-agents under
//! `subagents/<session>/`): one record a line, each with its `uuid`, its parent's and its
//! session's, as Claude Code writes them, and Gemini's message parts. A response's usage is
//! written twice in the transcript (a telemetry record, then the response) and once more in
//! a monthly file outside it: it is counted once.

mod conversation;
mod usage;

pub use conversation::{QwenReader, QwenState};
pub use usage::{QwenUsage, QwenUsageState};

use crate::tokens::TokenTotals;

/// One response's counts as Qwen Code records them (Gemini's names, or the telemetry's).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    /// The whole prompt, cached tokens included.
    pub prompt: u64,
    /// The response (on OpenAI-style logins its reasoning is in it).
    pub candidates: u64,
    /// The cached part of the prompt.
    pub cached: u64,
    /// The reasoning (estimated when the provider does not say).
    pub thoughts: u64,
    /// Everything.
    pub total: u64,
}

impl Counts {
    /// The counts in Baton's one meaning. The output billed is what the total holds beyond the
    /// prompt: it is the response with its reasoning on every login (an OpenAI-style login
    /// puts the reasoning in the response's count already, Gemini's beside it), so the
    /// reasoning is never added twice. Without a total, the response's count is taken as it is.
    pub(crate) fn totals(self) -> TokenTotals {
        let output = if self.total > self.prompt {
            self.total - self.prompt
        } else {
            self.candidates
        };
        TokenTotals {
            input_tokens: self.prompt.saturating_sub(self.cached),
            output_tokens: output,
            cache_creation_tokens: 0,
            cache_read_tokens: self.cached.min(self.prompt),
            reasoning_tokens: self.thoughts.min(output),
        }
    }

    /// Whether anything was counted.
    pub(crate) fn is_empty(self) -> bool {
        self == Counts::default()
    }

    /// The key of the response: the same counts in the same session are the same response
    /// (the telemetry record and the response record it precedes, a sub-agent's round in its
    /// file and in its parent's).
    pub(crate) fn key(self, session: &str) -> u128 {
        let numbers = [self.prompt, self.candidates, self.cached, self.total];
        let bytes: Vec<u8> = numbers.iter().flat_map(|n| n.to_le_bytes()).collect();
        crate::transcripts::fingerprint(&[b"qwen", session.as_bytes(), &bytes])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_is_what_the_total_holds_beyond_the_prompt() {
        // An OpenAI-style login: the 40 reasoning tokens are inside the 96.
        let openai = Counts {
            prompt: 12040,
            candidates: 96,
            cached: 11776,
            thoughts: 40,
            total: 12136,
        };
        let totals = openai.totals();
        assert_eq!(totals.input_tokens, 264);
        assert_eq!(totals.cache_read_tokens, 11776);
        assert_eq!(totals.output_tokens, 96);
        assert_eq!(totals.reasoning_tokens, 40);
        // A Gemini login: the reasoning is beside the response.
        let gemini = Counts {
            prompt: 1000,
            candidates: 50,
            cached: 0,
            thoughts: 30,
            total: 1080,
        };
        assert_eq!(gemini.totals().output_tokens, 80);
        // No total: the response as it is.
        let bare = Counts {
            prompt: 10,
            candidates: 7,
            ..Counts::default()
        };
        assert_eq!(bare.totals().output_tokens, 7);
    }
}
