//! Time zones for the core's reports: an IANA name or `UTC` from the command line, else this
//! machine's zone (`TZ`, else `/etc/localtime`), from the zone database compiled into Baton.

use baton_core::Error;
use baton_core::time::{Timestamp, Zone};
use chrono::{Offset, TimeZone};

/// A zone from the IANA database, or the system's local rules when it has no IANA name.
#[derive(Debug, Clone)]
pub enum HostZone {
    /// A named zone (`UTC`, `Europe/Paris`).
    Named(chrono_tz::Tz),
    /// The system's local zone, unnamed.
    Local,
}

impl Zone for HostZone {
    fn name(&self) -> String {
        match self {
            HostZone::Named(tz) => tz.name().to_owned(),
            HostZone::Local => "local".to_owned(),
        }
    }

    fn offset_seconds(&self, at: Timestamp) -> i32 {
        let Some(utc) = chrono::DateTime::from_timestamp_millis(at.millis()) else {
            return 0;
        };
        let naive = utc.naive_utc();
        match self {
            HostZone::Named(tz) => tz.offset_from_utc_datetime(&naive).fix().local_minus_utc(),
            HostZone::Local => chrono::Local
                .offset_from_utc_datetime(&naive)
                .local_minus_utc(),
        }
    }
}

/// The zone `--timezone` names, or this machine's.
pub fn resolve(name: Option<&str>) -> Result<HostZone, Error> {
    match name {
        Some(name) => parse(name),
        None => Ok(local()),
    }
}

fn parse(name: &str) -> Result<HostZone, Error> {
    let trimmed = name.trim();
    let utc_names = [
        "utc",
        "z",
        "zulu",
        "uct",
        "universal",
        "gmt",
        "etc/utc",
        "etc/uct",
        "etc/universal",
        "etc/zulu",
        "etc/gmt",
        "gmt0",
        "etc/gmt0",
    ];
    if utc_names.contains(&trimmed.to_ascii_lowercase().as_str()) {
        return Ok(HostZone::Named(chrono_tz::UTC));
    }
    trimmed
        .parse::<chrono_tz::Tz>()
        .map(HostZone::Named)
        .map_err(|_| {
            Error::invalid(
                "timezone",
                format!(
                    "`{name}` is not a time zone: use an IANA name such as Europe/Paris, or UTC"
                ),
            )
        })
}

/// This machine's zone: `TZ` when it names one, else the zone `/etc/localtime` links to,
/// else the system's rules without a name.
fn local() -> HostZone {
    if let Ok(tz) = crate::os::env::var("TZ") {
        let tz = tz.trim_start_matches(':');
        if let Ok(zone) = parse(tz) {
            return zone;
        }
    }
    if let Ok(target) = std::fs::read_link("/etc/localtime") {
        let target = target.to_string_lossy().into_owned();
        if let Some((_, name)) = target.split_once("zoneinfo/")
            && let Ok(zone) = parse(name)
        {
            return zone;
        }
    }
    if let Ok(name) = std::fs::read_to_string("/etc/timezone")
        && let Ok(zone) = parse(name.trim())
    {
        return zone;
    }
    HostZone::Local
}

/// A time a person gave: an RFC 3339 time as it is, or a day (`YYYY-MM-DD`) as the instant it
/// starts in this machine's zone (the core reads a bare day in UTC).
pub fn day_or_time(text: &str) -> Result<String, Error> {
    if baton_core::Timestamp::parse(text).is_ok() {
        return Ok(text.to_owned());
    }
    let zone = resolve(None)?;
    Ok(baton_core::time::parse_day_in("since", text, false, &zone)?.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use baton_core::time::{local_date, parse_day_in};

    fn day_bounds(zone: &str, day: &str) -> (String, String) {
        let zone = resolve(Some(zone)).unwrap();
        (
            parse_day_in("since", day, false, &zone)
                .unwrap()
                .to_string(),
            parse_day_in("until", day, true, &zone).unwrap().to_string(),
        )
    }

    #[test]
    fn a_day_whose_midnight_is_skipped_starts_at_the_change() {
        // Santiago moved its clocks from 00:00 to 01:00 on 8 September 2024 (UTC-4 to UTC-3).
        assert_eq!(
            day_bounds("America/Santiago", "2024-09-08"),
            (
                "2024-09-08T04:00:00.000Z".to_owned(),
                "2024-09-09T02:59:59.999Z".to_owned()
            )
        );
        assert_eq!(
            day_bounds("America/Santiago", "2024-09-07").1,
            "2024-09-08T03:59:59.999Z"
        );
        let zone = resolve(Some("America/Santiago")).unwrap();
        let late = Timestamp::parse("2024-09-08T03:30:00Z").unwrap();
        assert_eq!(local_date(late, &zone).to_string(), "2024-09-07");
    }

    #[test]
    fn a_day_after_clocks_go_back_starts_at_its_only_midnight() {
        // Santiago moved its clocks from midnight back to 23:00 on 6 April 2024 (UTC-3 to
        // UTC-4): 6 April began at 03:00Z, its last hour came twice, and 7 April began at 04:00Z.
        assert_eq!(
            day_bounds("America/Santiago", "2024-04-06").0,
            "2024-04-06T03:00:00.000Z"
        );
        assert_eq!(
            day_bounds("America/Santiago", "2024-04-07").0,
            "2024-04-07T04:00:00.000Z"
        );
    }

    #[test]
    fn utc_names_and_unknown_zones() {
        for name in ["UTC", "utc", "Etc/UTC", "Z"] {
            assert_eq!(resolve(Some(name)).unwrap().name(), "UTC");
        }
        assert_eq!(
            resolve(Some("Europe/Paris")).unwrap().name(),
            "Europe/Paris"
        );
        let err = resolve(Some("Mars/Olympus")).unwrap_err();
        assert_eq!(err.details["field"], "timezone");
    }
}
