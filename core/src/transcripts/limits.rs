//! What an agent says of its plan's limits: each window's share used, its length and when it
//! resets, as Codex writes them in its rollouts (`token_count` events carry `rate_limits`: a
//! primary window, five hours, and a secondary, seven days). Older rollouts give the reset as
//! seconds from the line's time, newer ones as an instant; both are read. A window whose
//! reset has passed is read as empty: the figure the agent wrote belongs to a window that is
//! over.

use crate::time::Timestamp;
use crate::transcripts::Provider;
use serde::{Deserialize, Serialize};

/// One metered window as the agent reported it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LimitWindow {
    /// The share of the window's limit used, in percent.
    pub used_percent: f64,
    /// The window's length in minutes, when said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_minutes: Option<u64>,
    /// When it resets, when said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resets_at: Option<Timestamp>,
}

impl LimitWindow {
    /// The window as it stands at `now`: past its reset, nothing used and no reset known.
    pub fn at(self, now: Timestamp) -> LimitWindow {
        match self.resets_at {
            Some(reset) if reset <= now => LimitWindow {
                used_percent: 0.0,
                resets_at: None,
                ..self
            },
            _ => self,
        }
    }

    /// A short name for its length: `5h`, `7d`, else minutes, hours or days as they come
    /// (`window` when not said). Codex writes 299 or 300 for five hours.
    pub fn label(&self) -> String {
        match self.window_minutes {
            None => "window".to_owned(),
            Some(m) if m.abs_diff(300) <= 5 => "5h".to_owned(),
            Some(m) if m.abs_diff(10_080) <= 60 => "7d".to_owned(),
            Some(m) if m % 1440 == 0 => format!("{}d", m / 1440),
            Some(m) if m % 60 == 0 => format!("{}h", m / 60),
            Some(m) => format!("{m}m"),
        }
    }
}

/// An agent's latest word on its plan's limits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PlanLimits {
    /// Whose word it is.
    pub provider: Provider,
    /// When the agent wrote it.
    pub observed_at: Timestamp,
    /// Which limit (Codex's `limit_id`), when said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit_id: Option<String>,
    /// The plan (`plus`, `pro`, …), when said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan_type: Option<String>,
    /// The shorter window (five hours).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub primary: Option<LimitWindow>,
    /// The longer window (seven days).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secondary: Option<LimitWindow>,
}

impl PlanLimits {
    /// The limits as they stand at `now` (see [`LimitWindow::at`]).
    pub fn at(&self, now: Timestamp) -> PlanLimits {
        PlanLimits {
            primary: self.primary.map(|w| w.at(now)),
            secondary: self.secondary.map(|w| w.at(now)),
            ..self.clone()
        }
    }

    /// Both windows, the shorter first.
    pub fn windows(&self) -> impl Iterator<Item = &LimitWindow> {
        self.primary.iter().chain(self.secondary.iter())
    }
}

#[derive(Deserialize)]
struct RolloutLine {
    #[serde(default)]
    timestamp: Option<String>,
    #[serde(default)]
    payload: Option<RolloutPayload>,
}

#[derive(Deserialize)]
struct RolloutPayload {
    #[serde(default, rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    rate_limits: Option<RateLimits>,
}

#[derive(Deserialize)]
struct RateLimits {
    #[serde(default)]
    primary: Option<WrittenWindow>,
    #[serde(default)]
    secondary: Option<WrittenWindow>,
    #[serde(default)]
    plan_type: Option<String>,
    #[serde(default)]
    limit_id: Option<String>,
}

#[derive(Deserialize)]
struct WrittenWindow {
    #[serde(default)]
    used_percent: Option<f64>,
    #[serde(default, alias = "window_duration_mins")]
    window_minutes: Option<f64>,
    #[serde(default)]
    resets_at: Option<serde_json::Value>,
    #[serde(default)]
    resets_in_seconds: Option<f64>,
}

impl WrittenWindow {
    fn read(self, written_at: Timestamp) -> Option<LimitWindow> {
        let used_percent = self.used_percent.filter(|p| p.is_finite() && *p >= 0.0)?;
        let resets_at = match self.resets_at {
            Some(serde_json::Value::Number(n)) => n.as_f64().and_then(|secs| {
                // Seconds since the epoch (milliseconds past the year 5000 are taken as such).
                let millis = if secs < 1e11 { secs * 1000.0 } else { secs };
                (millis.is_finite() && millis.abs() < 1e15)
                    .then(|| Timestamp::from_millis(millis as i64))
            }),
            Some(serde_json::Value::String(text)) => Timestamp::parse(&text).ok(),
            _ => None,
        }
        .or_else(|| {
            self.resets_in_seconds
                .filter(|s| s.is_finite() && *s >= 0.0 && *s < 1e9)
                .map(|s| Timestamp::from_millis(written_at.millis() + (s * 1000.0) as i64))
        });
        Some(LimitWindow {
            used_percent,
            window_minutes: self
                .window_minutes
                .filter(|m| m.is_finite() && *m > 0.0 && *m < 1e9)
                .map(|m| m.round() as u64),
            resets_at,
        })
    }
}

/// The limits a Codex rollout line reports, if it is a `token_count` event that carries them
/// (with a time, and at least one window).
pub fn codex_line(line: &str) -> Option<PlanLimits> {
    if !line.contains("\"rate_limits\"") {
        return None;
    }
    let parsed: RolloutLine = serde_json::from_str(line).ok()?;
    let payload = parsed.payload?;
    if payload.kind.as_deref() != Some("token_count") {
        return None;
    }
    let limits = payload.rate_limits?;
    let observed_at = Timestamp::parse(parsed.timestamp.as_deref()?).ok()?;
    let primary = limits.primary.and_then(|w| w.read(observed_at));
    let secondary = limits.secondary.and_then(|w| w.read(observed_at));
    (primary.is_some() || secondary.is_some()).then_some(PlanLimits {
        provider: Provider::Codex,
        observed_at,
        limit_id: limits.limit_id,
        plan_type: limits.plan_type,
        primary,
        secondary,
    })
}

/// What a Claude Code transcript line says of its plan's limit: the message Claude Code writes
/// when a request is refused at the limit (an `isApiErrorMessage` line whose text is `Claude
/// AI usage limit reached|<reset, Unix seconds>`, or in newer versions says the limit was hit
/// and when it resets, in words Baton does not read). The five-hour window is taken as full;
/// a weekly limit's message fills the seven-day one.
pub fn claude_line(line: &str) -> Option<PlanLimits> {
    if !line.contains("isApiErrorMessage") || !line.contains("limit") {
        return None;
    }
    let value: serde_json::Value = serde_json::from_str(line).ok()?;
    if value
        .get("isApiErrorMessage")
        .and_then(serde_json::Value::as_bool)
        != Some(true)
    {
        return None;
    }
    let observed_at = Timestamp::parse(value.get("timestamp")?.as_str()?).ok()?;
    let content = value.pointer("/message/content")?;
    let text: String = match content {
        serde_json::Value::String(text) => text.clone(),
        serde_json::Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(serde_json::Value::as_str))
            .collect::<Vec<_>>()
            .join(" "),
        _ => return None,
    };
    let lower = text.to_lowercase();
    if !(lower.contains("limit reached") || (lower.contains("hit your") && lower.contains("limit")))
    {
        return None;
    }
    let resets_at = text
        .rsplit_once('|')
        .and_then(|(_, secs)| secs.trim().parse::<i64>().ok())
        .filter(|secs| *secs > 0 && *secs < 100_000_000_000)
        .map(|secs| Timestamp::from_millis(secs * 1000));
    let weekly = lower.contains("weekly") || lower.contains("7-day");
    let window = LimitWindow {
        used_percent: 100.0,
        window_minutes: Some(if weekly { 10_080 } else { 300 }),
        resets_at,
    };
    Some(PlanLimits {
        provider: Provider::ClaudeCode,
        observed_at,
        limit_id: None,
        plan_type: None,
        primary: (!weekly).then_some(window),
        secondary: weekly.then_some(window),
    })
}

/// The latest limits in a stretch of a Claude Code transcript (whole lines, oldest first).
pub fn claude_latest(text: &str) -> Option<PlanLimits> {
    text.lines().rev().find_map(claude_line)
}

/// The latest limits in a stretch of a Codex rollout (whole lines, oldest first).
pub fn codex_latest(text: &str) -> Option<PlanLimits> {
    text.lines().rev().find_map(codex_line)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Timestamp {
        Timestamp::parse(text).unwrap()
    }

    #[test]
    fn both_windows_and_their_resets_are_read_old_and_new_shapes() {
        let new = r#"{"timestamp":"2026-12-02T10:00:00.000Z","type":"event_msg","payload":{"type":"token_count","info":null,"rate_limits":{"limit_id":"codex","primary":{"used_percent":12.5,"window_minutes":300,"resets_at":1796220000},"secondary":{"used_percent":40.0,"window_minutes":10080,"resets_at":1796551200},"credits":null,"plan_type":"plus"}}}"#;
        let limits = codex_line(new).unwrap();
        assert_eq!(limits.observed_at, at("2026-12-02T10:00:00Z"));
        assert_eq!(limits.plan_type.as_deref(), Some("plus"));
        assert_eq!(limits.limit_id.as_deref(), Some("codex"));
        let primary = limits.primary.unwrap();
        assert_eq!(primary.used_percent, 12.5);
        assert_eq!(primary.label(), "5h");
        assert_eq!(primary.resets_at, Some(at("2026-12-02T14:00:00Z")));
        let secondary = limits.secondary.unwrap();
        assert_eq!(secondary.label(), "7d");
        assert_eq!(secondary.resets_at, Some(at("2026-12-06T10:00:00Z")));

        // Older rollouts: seconds from the line's time.
        let old = r#"{"timestamp":"2026-12-02T10:00:00.000Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":5,"cached_input_tokens":0,"output_tokens":1,"reasoning_output_tokens":0,"total_tokens":6}},"rate_limits":{"primary":{"used_percent":3.0,"window_minutes":299,"resets_in_seconds":5400},"secondary":null}}}"#;
        let limits = codex_line(old).unwrap();
        let primary = limits.primary.unwrap();
        assert_eq!(primary.label(), "5h");
        assert_eq!(primary.resets_at, Some(at("2026-12-02T11:30:00Z")));
        assert_eq!(limits.secondary, None);
    }

    #[test]
    fn claude_codes_limit_message_fills_its_window_until_the_reset() {
        let line = r#"{"type":"assistant","timestamp":"2026-12-02T10:00:00.000Z","isApiErrorMessage":true,"message":{"model":"<synthetic>","content":[{"type":"text","text":"Claude AI usage limit reached|1796220000"}]}}"#;
        let limits = claude_line(line).unwrap();
        assert_eq!(limits.provider, Provider::ClaudeCode);
        let primary = limits.primary.unwrap();
        assert_eq!(primary.used_percent, 100.0);
        assert_eq!(primary.resets_at, Some(at("2026-12-02T14:00:00Z")));
        assert_eq!(primary.label(), "5h");
        assert_eq!(
            limits
                .at(at("2026-12-02T14:00:00Z"))
                .primary
                .unwrap()
                .used_percent,
            0.0
        );
        // In words only: full, the reset unknown.
        let words = r#"{"type":"assistant","timestamp":"2026-12-02T10:00:00.000Z","isApiErrorMessage":true,"message":{"content":[{"type":"text","text":"You've hit your weekly limit · resets Mon 9am"}]}}"#;
        let limits = claude_line(words).unwrap();
        assert_eq!(limits.primary, None);
        assert_eq!(limits.secondary.unwrap().label(), "7d");
        assert_eq!(limits.secondary.unwrap().resets_at, None);
        // Not an error line, or another error: nothing.
        for other in [
            r#"{"type":"assistant","timestamp":"2026-12-02T10:00:00.000Z","message":{"content":[{"type":"text","text":"usage limit reached|1796220000"}]}}"#,
            r#"{"type":"assistant","timestamp":"2026-12-02T10:00:00.000Z","isApiErrorMessage":true,"message":{"content":[{"type":"text","text":"API Error: 529 overloaded (rate limit)"}]}}"#,
        ] {
            assert_eq!(claude_line(other), None, "{other}");
        }
    }

    #[test]
    fn a_window_past_its_reset_is_empty_and_lines_without_limits_say_nothing() {
        let window = LimitWindow {
            used_percent: 80.0,
            window_minutes: Some(300),
            resets_at: Some(at("2026-12-02T11:00:00Z")),
        };
        assert_eq!(window.at(at("2026-12-02T10:59:59Z")), window);
        assert_eq!(window.at(at("2026-12-02T11:00:00Z")).used_percent, 0.0);
        assert_eq!(window.at(at("2026-12-02T11:00:00Z")).resets_at, None);
        for line in [
            r#"{"timestamp":"2026-12-02T10:00:00Z","type":"event_msg","payload":{"type":"token_count","info":null,"rate_limits":null}}"#,
            r#"{"timestamp":"2026-12-02T10:00:00Z","type":"event_msg","payload":{"type":"agent_message","rate_limits":{"primary":{"used_percent":1}}}}"#,
            r#"{"type":"event_msg","payload":{"type":"token_count","rate_limits":{"primary":{"used_percent":1}}}}"#,
            r#"{"timestamp":"2026-12-02T10:00:00Z","payload":{"type":"token_count","rate_limits":{"primary":{"used_percent":"lots"}}}}"#,
            "not json \"rate_limits\"",
        ] {
            assert_eq!(codex_line(line), None, "{line}");
        }
        let text = [
            r#"{"timestamp":"2026-12-02T09:00:00Z","type":"event_msg","payload":{"type":"token_count","rate_limits":{"primary":{"used_percent":1}}}}"#,
            r#"{"timestamp":"2026-12-02T10:00:00Z","type":"event_msg","payload":{"type":"token_count","rate_limits":{"primary":{"used_percent":2}}}}"#,
            r#"{"timestamp":"2026-12-02T10:01:00Z","type":"response_item","payload":{"type":"message"}}"#,
        ]
        .join("\n");
        assert_eq!(
            codex_latest(&text)
                .and_then(|l| l.primary)
                .map(|w| w.used_percent),
            Some(2.0)
        );
        assert_eq!(
            LimitWindow {
                window_minutes: Some(120),
                ..window
            }
            .label(),
            "2h"
        );
    }
}
