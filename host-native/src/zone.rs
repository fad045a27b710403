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
    if let Ok(tz) = std::env::var("TZ") {
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
