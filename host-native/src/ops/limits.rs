//! Plan limits as every face asks for them: which windows (five hours or seven days, all,
//! the recent ones or the open one), against what token limit, and whether each says who used
//! it. The windows themselves are the core's; the usage report carries them.

use baton_core::transcripts::usage::windows::{
    FIVE_HOURS_MS, Keep, SEVEN_DAYS_MS, TokenLimit, WindowOptions,
};
use baton_core::{Error, Timestamp};

/// How far back the recent windows reach.
pub const RECENT_MS: i64 = 3 * 24 * 3_600_000;

/// Which windows to keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Only {
    /// The open one.
    Active,
    /// Those of the last three days.
    Recent,
}

/// A request for usage by window.
#[derive(Debug, Clone, Copy, Default)]
pub struct WindowAsk {
    /// Seven-day windows instead of five-hour ones.
    pub week: bool,
    /// Which windows to keep (all when absent).
    pub only: Option<Only>,
    /// The limit to measure against.
    pub token_limit: Option<TokenLimit>,
    /// Whether each window says who used it.
    pub by_session: bool,
}

impl WindowAsk {
    /// The core's options for this request at `now`.
    pub fn options(&self, now: Timestamp) -> WindowOptions {
        WindowOptions {
            length_ms: if self.week {
                SEVEN_DAYS_MS
            } else {
                FIVE_HOURS_MS
            },
            now,
            token_limit: self.token_limit,
            by_session: self.by_session,
            keep: match self.only {
                None => Keep::All,
                Some(Only::Active) => Keep::Active,
                Some(Only::Recent) => Keep::EndingAfter {
                    at: Timestamp::from_millis(now.millis() - RECENT_MS),
                },
            },
        }
    }
}

impl WindowAsk {
    /// Makes `options` a report by window for this request at `now`: each window's use goes to
    /// the work sessions of `ledger` (when asked who used it), else to agent sessions.
    pub fn apply(
        &self,
        options: &mut crate::ops::usage::UsageOptions,
        ledger: &crate::store::Ledger,
        now: Timestamp,
    ) -> Result<(), Error> {
        use baton_core::ledger::store::LedgerView;
        options.windows = Some(self.options(now));
        if self.by_session {
            // A folder with no ledger yet has no work sessions: the agents' own are shown.
            options.work_sessions = Some(if ledger.dir().is_dir() {
                ledger.snapshot()?.all_sessions()?
            } else {
                Vec::new()
            });
            options.work_root = ledger.dir().parent().map(|root| root.display().to_string());
        }
        Ok(())
    }
}

/// A token limit as a person writes it: a whole number of tokens (`5000000`, `5_000_000` or
/// `5,000,000`), or `max` for the most any ended window used.
pub fn parse_token_limit(text: &str) -> Result<TokenLimit, Error> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("max") {
        return Ok(TokenLimit::HighestPast);
    }
    let digits: String = text.chars().filter(|c| !matches!(c, '_' | ',')).collect();
    match digits.parse::<u64>() {
        Ok(n) if n > 0 => Ok(TokenLimit::Tokens(n)),
        _ => Err(Error::invalid(
            "token_limit",
            format!(
                "`{text}` is not a token limit: give a whole number of tokens (5000000) or `max`"
            ),
        )),
    }
}

/// Which windows, as a word (`active` or `recent`).
pub fn parse_only(text: &str) -> Result<Only, Error> {
    match text.trim() {
        "active" => Ok(Only::Active),
        "recent" => Ok(Only::Recent),
        other => Err(Error::invalid(
            "only",
            format!("`{other}`: use active (the open window) or recent (the last three days)"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_limits_read_as_people_write_them() {
        assert_eq!(
            parse_token_limit("5,000,000").ok(),
            Some(TokenLimit::Tokens(5_000_000))
        );
        assert_eq!(
            parse_token_limit(" 5_000 ").ok(),
            Some(TokenLimit::Tokens(5_000))
        );
        assert_eq!(parse_token_limit("MAX").ok(), Some(TokenLimit::HighestPast));
        for bad in ["0", "-3", "lots", "", "1.5"] {
            let err = parse_token_limit(bad).expect_err(bad);
            assert!(
                err.message.contains("not a token limit"),
                "{bad}: {}",
                err.message
            );
        }
    }

    #[test]
    fn recent_keeps_three_days_back_from_now() {
        let now = Timestamp::from_millis(10 * RECENT_MS);
        let ask = WindowAsk {
            only: Some(Only::Recent),
            ..WindowAsk::default()
        };
        assert_eq!(
            ask.options(now).keep,
            Keep::EndingAfter {
                at: Timestamp::from_millis(9 * RECENT_MS)
            }
        );
        assert_eq!(ask.options(now).length_ms, FIVE_HOURS_MS);
        assert!(parse_only("soon").is_err());
    }
}
