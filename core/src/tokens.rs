//! Token counts in the one meaning Baton gives every provider's numbers: `input_tokens`
//! excludes cached input, `cache_read_tokens` is the cached input, `output_tokens` includes
//! reasoning and `reasoning_tokens` is that part of it. Run reports, usage entries and usage
//! rows all carry this one type.

use serde::{Deserialize, Serialize};

/// Token counts: the five fields every provider's numbers are mapped to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TokenTotals {
    /// Input tokens, excluding cached input.
    #[serde(default)]
    pub input_tokens: u64,
    /// Output tokens, including reasoning.
    #[serde(default)]
    pub output_tokens: u64,
    /// Tokens written to the prompt cache.
    #[serde(default)]
    pub cache_creation_tokens: u64,
    /// Input tokens read from the prompt cache.
    #[serde(default)]
    pub cache_read_tokens: u64,
    /// The reasoning part of the output.
    #[serde(default)]
    pub reasoning_tokens: u64,
}

impl TokenTotals {
    /// Every token counted once: input + output + cache creation + cache read (reasoning is
    /// inside output).
    pub fn total(&self) -> u64 {
        self.input_tokens
            .saturating_add(self.output_tokens)
            .saturating_add(self.cache_creation_tokens)
            .saturating_add(self.cache_read_tokens)
    }

    /// Adds `other` in, saturating.
    pub fn add(&mut self, other: &TokenTotals) {
        self.input_tokens = self.input_tokens.saturating_add(other.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(other.output_tokens);
        self.cache_creation_tokens = self
            .cache_creation_tokens
            .saturating_add(other.cache_creation_tokens);
        self.cache_read_tokens = self
            .cache_read_tokens
            .saturating_add(other.cache_read_tokens);
        self.reasoning_tokens = self.reasoning_tokens.saturating_add(other.reasoning_tokens);
    }
}
