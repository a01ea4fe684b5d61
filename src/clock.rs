//! The one clock. Every use of "now" goes through [`Clock`]; the environment variable `CAR_NOW`
//! (Unix seconds, or RFC 3339) overrides the system time so tests and replay scenarios can jump
//! 31 or 91 days ahead.

use chrono::{DateTime, Utc};

/// Name of the environment variable that pins the clock.
pub(crate) const CAR_NOW: &str = "CAR_NOW";

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{CAR_NOW}={value:?} is neither Unix seconds nor an RFC 3339 time (e.g. 2026-11-30T12:00:00Z)"
)]
pub(crate) struct ClockError {
    pub(crate) value: String,
}

/// A fixed instant, taken once per process so every step of one hook sees the same "now".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Clock {
    now: i64,
}

impl Clock {
    /// The system time, unless `CAR_NOW` says otherwise.
    pub(crate) fn from_env() -> Result<Clock, ClockError> {
        match std::env::var(CAR_NOW) {
            Ok(value) if !value.trim().is_empty() => Clock::parse(&value),
            _ => Ok(Clock::fixed(Utc::now().timestamp())),
        }
    }

    /// Parses Unix seconds or an RFC 3339 time.
    pub(crate) fn parse(value: &str) -> Result<Clock, ClockError> {
        let trimmed = value.trim();
        if let Ok(seconds) = trimmed.parse::<i64>() {
            return Ok(Clock::fixed(seconds));
        }
        DateTime::parse_from_rfc3339(trimmed)
            .map(|time| Clock::fixed(time.timestamp()))
            .map_err(|_| ClockError {
                value: value.to_string(),
            })
    }

    pub(crate) fn fixed(now: i64) -> Clock {
        Clock { now }
    }

    /// Unix seconds.
    pub(crate) fn now(&self) -> i64 {
        self.now
    }

    /// The calendar date (UTC) as `YYYY-MM-DD`, the seed format's `created` field.
    pub(crate) fn today(&self) -> String {
        date_of(self.now)
    }

    /// RFC 3339 text of now, for logs and prompts.
    pub(crate) fn rfc3339(&self) -> String {
        DateTime::<Utc>::from_timestamp(self.now, 0)
            .map(|time| time.to_rfc3339())
            .unwrap_or_else(|| self.now.to_string())
    }
}

/// `YYYY-MM-DD` (UTC) of Unix seconds.
pub(crate) fn date_of(seconds: i64) -> String {
    DateTime::<Utc>::from_timestamp(seconds, 0)
        .map(|time| time.format("%Y-%m-%d").to_string())
        .unwrap_or_default()
}

/// Unix seconds of a `YYYY-MM-DD` date (midnight UTC); `None` when it is not such a date.
pub(crate) fn parse_date(date: &str) -> Option<i64> {
    chrono::NaiveDate::parse_from_str(date.trim(), "%Y-%m-%d")
        .ok()
        .and_then(|day| day.and_hms_opt(0, 0, 0))
        .map(|time| time.and_utc().timestamp())
}

/// Seconds in one day.
pub(crate) const DAY: i64 = 86_400;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_seconds_and_rfc3339() {
        assert_eq!(Clock::parse("1779300000").unwrap().now(), 1_779_300_000);
        assert_eq!(
            Clock::parse("2026-05-21T00:00:00Z").unwrap().now(),
            parse_date("2026-05-21").unwrap()
        );
        assert!(Clock::parse("yesterday").is_err());
    }

    #[test]
    fn today_is_utc_date() {
        assert_eq!(Clock::fixed(1_779_300_000).today(), "2026-05-20");
        assert_eq!(date_of(0), "1970-01-01");
    }
}
