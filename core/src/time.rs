//! Timestamps: UTC instants with millisecond precision, ISO 8601 on the wire, integer inside.
//!
//! The core never reads a clock; every `now` is an argument. Arithmetic is integer-only so the
//! same inputs give the same answers natively and in wasm.

use crate::error::{Error, Result};
use chrono::{DateTime, Datelike, NaiveDate, SecondsFormat, TimeZone, Timelike, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A UTC instant, milliseconds since the Unix epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Timestamp(i64);

impl Timestamp {
    /// The instant `millis` milliseconds after 1970-01-01T00:00:00Z.
    pub const fn from_millis(millis: i64) -> Timestamp {
        Timestamp(millis)
    }

    /// Milliseconds since the Unix epoch.
    pub const fn millis(self) -> i64 {
        self.0
    }

    /// Whole seconds from `self` to `later`, never negative (a clock that stepped back counts 0).
    pub fn whole_seconds_until(self, later: Timestamp) -> i64 {
        (later.0 - self.0).max(0) / 1000
    }

    /// The `YYYY-MM` month this instant falls in (UTC).
    pub fn month_key(self) -> String {
        let dt = self.to_chrono();
        format!("{:04}-{:02}", dt.year(), dt.month())
    }

    /// The `YYYY-MM-DD-HHMM` stamp used in presentation paths.
    pub fn path_stamp(self) -> String {
        let dt = self.to_chrono();
        format!(
            "{:04}-{:02}-{:02}-{:02}{:02}",
            dt.year(),
            dt.month(),
            dt.day(),
            dt.hour(),
            dt.minute()
        )
    }

    fn to_chrono(self) -> DateTime<Utc> {
        Utc.timestamp_millis_opt(self.0)
            .single()
            .unwrap_or(DateTime::<Utc>::MIN_UTC)
    }

    /// Parses ISO 8601 / RFC 3339 (any offset, any fraction; stored to the millisecond).
    pub fn parse(text: &str) -> Result<Timestamp> {
        if let Some(ts) = parse_canonical(text.as_bytes()) {
            return Ok(ts);
        }
        DateTime::parse_from_rfc3339(text)
            .map(|dt| Timestamp(dt.timestamp_millis()))
            .map_err(|e| {
                Error::invalid(
                    "timestamp",
                    format!("`{text}` is not an ISO 8601 UTC time ({e})"),
                )
            })
    }
}

/// Fast path for the form Baton writes: `YYYY-MM-DDTHH:MM:SS.mmmZ`.
fn parse_canonical(b: &[u8]) -> Option<Timestamp> {
    if b.len() != 24 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' {
        return None;
    }
    if b[16] != b':' || b[19] != b'.' || b[23] != b'Z' {
        return None;
    }
    let num = |range: std::ops::Range<usize>| -> Option<u32> {
        b[range].iter().try_fold(0u32, |acc, &c| {
            c.is_ascii_digit().then(|| acc * 10 + u32::from(c - b'0'))
        })
    };
    let date = NaiveDate::from_ymd_opt(num(0..4)? as i32, num(5..7)?, num(8..10)?)?;
    let (h, m, s, ms) = (num(11..13)?, num(14..16)?, num(17..19)?, num(20..23)?);
    if h > 23 || m > 59 || s > 59 {
        return None;
    }
    let days = i64::from(date.num_days_from_ce() - 719_163);
    let secs = days * 86_400 + i64::from(h * 3600 + m * 60 + s);
    Some(Timestamp(secs * 1000 + i64::from(ms)))
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            &self
                .to_chrono()
                .to_rfc3339_opts(SecondsFormat::Millis, true),
        )
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let text: std::borrow::Cow<'de, str> = Deserialize::deserialize(d)?;
        Timestamp::parse(&text).map_err(|e| serde::de::Error::custom(e.message))
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for Timestamp {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Timestamp".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "format": "date-time",
            "description": "RFC 3339 in UTC with milliseconds, e.g. `2026-07-18T20:00:00.000Z`."
        })
    }
}

/// A duration in whole seconds as `1h 30m`, `45s`, `2d 3h`.
pub fn human_duration(seconds: i64) -> String {
    let s = seconds.max(0);
    let (d, h, m, sec) = (s / 86_400, s % 86_400 / 3600, s % 3600 / 60, s % 60);
    let parts: Vec<String> = [(d, "d"), (h, "h"), (m, "m"), (sec, "s")]
        .into_iter()
        .skip_while(|(n, _)| *n == 0)
        .filter(|(n, _)| *n != 0)
        .take(2)
        .map(|(n, unit)| format!("{n}{unit}"))
        .collect();
    if parts.is_empty() {
        "0s".to_owned()
    } else {
        parts.join(" ")
    }
}

/// A time zone as the core needs one: its name and the offset from UTC in effect at an
/// instant. Hosts implement it from their zone database (the CLI from the IANA names and the
/// system's local zone); the core itself knows only [`UtcZone`].
pub trait Zone: fmt::Debug {
    /// How the zone is named to a person (`UTC`, `Europe/Paris`).
    fn name(&self) -> String;
    /// Seconds east of UTC at `at`.
    fn offset_seconds(&self, at: Timestamp) -> i32;
}

/// Coordinated Universal Time.
#[derive(Debug, Clone, Copy, Default)]
pub struct UtcZone;

impl Zone for UtcZone {
    fn name(&self) -> String {
        "UTC".to_owned()
    }
    fn offset_seconds(&self, _at: Timestamp) -> i32 {
        0
    }
}

/// The calendar day `at` falls on in `zone`.
pub fn local_date(at: Timestamp, zone: &dyn Zone) -> NaiveDate {
    let shifted = at.millis() + i64::from(zone.offset_seconds(at)) * 1000;
    Utc.timestamp_millis_opt(shifted)
        .single()
        .unwrap_or_default()
        .date_naive()
}

/// Midnight at the start of `date` in `zone`, as an instant (the zone's offset taken at `near`).
pub fn local_midnight(date: NaiveDate, zone: &dyn Zone, near: Timestamp) -> Timestamp {
    let local = date
        .and_hms_opt(0, 0, 0)
        .map(|t| t.and_utc().timestamp_millis())
        .unwrap_or(0);
    let offset = i64::from(zone.offset_seconds(near)) * 1000;
    // The offset at the day's start itself (a change of clocks that day moves it).
    let first = Timestamp::from_millis(local - offset);
    Timestamp::from_millis(local - i64::from(zone.offset_seconds(first)) * 1000)
}

/// The first instant a wall-clock time of `zone` names: of two (a time repeated when clocks go
/// back), the earlier; of none (a time skipped when clocks go forward), the instant of the
/// change, the first that is later.
fn instant_of_local(local_millis: i64, zone: &dyn Zone) -> Timestamp {
    const DAY: i64 = 86_400_000;
    let offset_at = |at: i64| i64::from(zone.offset_seconds(Timestamp(at))) * 1000;
    // Offsets a day either side: around one clock change, the two in effect.
    let candidates = [
        local_millis - offset_at(local_millis - DAY),
        local_millis - offset_at(local_millis + DAY),
    ];
    let names_it = |at: i64| at + offset_at(at) == local_millis;
    let instant = candidates
        .iter()
        .copied()
        .filter(|&at| names_it(at))
        .min()
        .unwrap_or_else(|| candidates[0].max(candidates[1]));
    Timestamp(instant)
}

/// Parses `YYYY-MM-DD` or `YYYYMMDD` as the start (or, with `end`, the last millisecond) of
/// that UTC day.
pub fn parse_day(field: &str, text: &str, end: bool) -> crate::error::Result<Timestamp> {
    parse_day_in(field, text, end, &UtcZone)
}

/// Parses `YYYY-MM-DD` or `YYYYMMDD` as the start (or, with `end`, the last millisecond) of
/// that day in `zone`.
pub fn parse_day_in(
    field: &str,
    text: &str,
    end: bool,
    zone: &dyn Zone,
) -> crate::error::Result<Timestamp> {
    let digits: String = text.chars().filter(char::is_ascii_digit).collect();
    let not_a_date = || Error::invalid(field, format!("`{text}` is not a date (YYYY-MM-DD)"));
    if digits.len() != 8 {
        return Err(not_a_date());
    }
    let number = |range: std::ops::Range<usize>| digits[range].parse::<u32>().unwrap_or(0);
    let day = NaiveDate::from_ymd_opt(number(0..4) as i32, number(4..6), number(6..8))
        .ok_or_else(not_a_date)?;
    let midnight = |d: NaiveDate| {
        d.and_hms_opt(0, 0, 0)
            .unwrap_or_default()
            .and_utc()
            .timestamp_millis()
    };
    Ok(if end {
        let next = day.succ_opt().ok_or_else(not_a_date)?;
        Timestamp(instant_of_local(midnight(next), zone).millis() - 1)
    } else {
        instant_of_local(midnight(day), zone)
    })
}

/// A span like `90s`, `20m`, `2h`, `7d` or `1w` (a bare number is seconds), in seconds.
pub fn parse_duration_seconds(field: &str, text: &str) -> crate::error::Result<u64> {
    let trimmed = text.trim();
    let digits = trimmed.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let unit = &trimmed[digits.len()..];
    let scale = match unit.to_ascii_lowercase().as_str() {
        "" | "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        "w" => 604_800,
        _ => 0,
    };
    digits
        .trim()
        .parse::<u64>()
        .ok()
        .filter(|_| scale > 0)
        .and_then(|n| n.checked_mul(scale))
        .ok_or_else(|| {
            crate::error::Error::invalid(
                field,
                format!("`{text}` is not a duration; write it like 90s, 20m, 2h, 7d or 1w"),
            )
            .with("value", text)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_round_trip_and_fallback_agree() {
        let t = Timestamp::parse("2026-07-18T20:00:00.123Z").unwrap();
        assert_eq!(t.to_string(), "2026-07-18T20:00:00.123Z");
        let slow = Timestamp::parse("2026-07-18T22:00:00.1234567+02:00").unwrap();
        assert_eq!(slow, t);
        let spec = Timestamp::parse("2026-07-18T20:00:00.0000000Z").unwrap();
        assert_eq!(spec.millis() % 1000, 0);
        assert_eq!(t.month_key(), "2026-07");
        assert_eq!(t.path_stamp(), "2026-07-18-2000");
    }

    #[test]
    fn rejects_garbage_and_out_of_range() {
        for bad in [
            "",
            "yesterday",
            "2026-13-01T00:00:00.000Z",
            "2026-02-30T00:00:00.000Z",
        ] {
            assert!(Timestamp::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn whole_seconds_never_negative() {
        let a = Timestamp::from_millis(10_000);
        let b = Timestamp::from_millis(5_409_999 + 1);
        assert_eq!(a.whole_seconds_until(b), 5_400);
        assert_eq!(b.whole_seconds_until(a), 0);
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(human_duration(5400), "1h 30m");
        assert_eq!(human_duration(45), "45s");
        assert_eq!(human_duration(0), "0s");
        assert_eq!(human_duration(86_400 * 2 + 3600 * 3 + 5), "2d 3h");
        assert_eq!(human_duration(3601), "1h 1s");
    }

    #[test]
    fn spans_read_with_their_unit_and_refuse_the_rest() {
        assert_eq!(super::parse_duration_seconds("f", "90").unwrap(), 90);
        assert_eq!(super::parse_duration_seconds("f", "20m").unwrap(), 1200);
        assert_eq!(super::parse_duration_seconds("f", " 7D ").unwrap(), 604_800);
        assert_eq!(super::parse_duration_seconds("f", "1w").unwrap(), 604_800);
        for bad in ["", "soon", "5y", "-3m", "m", "99999999999999999999d"] {
            assert!(super::parse_duration_seconds("f", bad).is_err(), "{bad}");
        }
    }
}
