//! When a task runs: a cron pattern in a time zone, or one time. Read from
//! what the user writes: a cron pattern (`0 8 * * 1-5`), plain words for
//! a repeat (`every weekday at 8:00`, `on the first of the month`, turned
//! into a pattern by `english-to-cron`), or one time (`in 2 hours`,
//! `tomorrow at 9`, `at 17:30`, `2026-12-24 18:00`).

use std::str::FromStr;

use chrono::{DateTime, Duration, NaiveDate, NaiveDateTime, NaiveTime, TimeZone, Utc};
use chrono_tz::Tz;
use croner::Cron;
use croner::parser::CronParser;
use serde::{Deserialize, Serialize};

/// When a task runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Schedule {
    /// Again and again, on a cron pattern read in a time zone (so that
    /// "8:00" stays 8:00 across daylight-saving changes).
    Repeat {
        /// The pattern (seconds and year optional).
        cron: String,
        /// The IANA time zone it is read in, e.g. `Europe/Warsaw`.
        zone: String,
    },
    /// Once.
    Once {
        /// When.
        #[specta(type = String)]
        at: DateTime<Utc>,
    },
}

/// Why a time could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WhenError {
    /// The words are not a time Baton understands.
    #[error(
        "\u{201c}{0}\u{201d} is not a time Baton understands; write for example \u{201c}every weekday at 8:00\u{201d}, \u{201c}every monday at 9\u{201d}, \u{201c}on the first of the month\u{201d}, \u{201c}in 2 hours\u{201d}, \u{201c}tomorrow at 9:30\u{201d}, \u{201c}2026-12-24 18:00\u{201d} or a cron pattern such as \u{201c}0 8 * * 1-5\u{201d}"
    )]
    NotUnderstood(String),
    /// A cron pattern that does not parse.
    #[error("\u{201c}{0}\u{201d} is not a valid cron pattern: {1}")]
    BadCron(String, String),
    /// A time zone name that is not an IANA one.
    #[error("`{0}` is not a time zone (an IANA name such as Europe/Warsaw)")]
    UnknownZone(String),
    /// One time that has already passed.
    #[error("{0} has already passed")]
    Past(String),
    /// A pattern that never matches again.
    #[error("\u{201c}{0}\u{201d} never comes again")]
    Never(String),
}

/// The user's time zone: the system's, else UTC.
pub fn local_zone() -> Tz {
    iana_time_zone::get_timezone()
        .ok()
        .and_then(|z| Tz::from_str(&z).ok())
        .unwrap_or(Tz::UTC)
}

/// `at` for people, in `zone`: `2026-12-07 08:00 CET`.
pub fn shown(at: DateTime<Utc>, zone: Tz) -> String {
    at.with_timezone(&zone)
        .format("%Y-%m-%d %H:%M %Z")
        .to_string()
}

/// The time zone named `name`.
pub fn zone(name: &str) -> Result<Tz, WhenError> {
    Tz::from_str(name).map_err(|_| WhenError::UnknownZone(name.to_string()))
}

impl Schedule {
    /// Reads `when` as the user wrote it, at `now` in the user's zone.
    pub fn parse(when: &str, now: DateTime<Tz>) -> Result<Schedule, WhenError> {
        let text = when.trim();
        if text.is_empty() {
            return Err(WhenError::NotUnderstood(String::new()));
        }
        let lower = text.to_lowercase();
        let once = in_duration(&lower, now)
            .or_else(|| at_date_time(&lower, now))
            .or_else(|| on_day_at(&lower, now));
        if let Some(at) = once {
            let at = at.with_timezone(&Utc);
            if at <= now.with_timezone(&Utc) {
                return Err(WhenError::Past(text.to_string()));
            }
            return Ok(Schedule::Once { at });
        }
        let cron = if looks_like_cron(text) {
            text.to_string()
        } else {
            words_to_cron(&lower).ok_or_else(|| WhenError::NotUnderstood(text.to_string()))?
        };
        let schedule = Schedule::Repeat {
            cron: cron.clone(),
            zone: now.timezone().name().to_string(),
        };
        parser()
            .parse(&cron)
            .map_err(|e| WhenError::BadCron(cron.clone(), e.to_string()))?;
        if schedule.next_after(now.with_timezone(&Utc)).is_none() {
            return Err(WhenError::Never(text.to_string()));
        }
        Ok(schedule)
    }

    /// The first time after `after` it runs (`None`: never again).
    pub fn next_after(&self, after: DateTime<Utc>) -> Option<DateTime<Utc>> {
        match self {
            Schedule::Once { at } => (*at > after).then_some(*at),
            Schedule::Repeat { cron, zone: name } => {
                let tz = zone(name).ok()?;
                let cron: Cron = parser().parse(cron).ok()?;
                let next = cron
                    .find_next_occurrence(&after.with_timezone(&tz), false)
                    .ok()?;
                Some(next.with_timezone(&Utc))
            }
        }
    }

    /// In words: `at 2026-12-24 18:00 (Europe/Warsaw)` or the pattern's
    /// description.
    pub fn describe(&self, zone_for_once: Tz) -> String {
        match self {
            Schedule::Once { at } => format!("once, at {}", shown(*at, zone_for_once)),
            Schedule::Repeat { cron, zone } => match parser().parse(cron) {
                Ok(c) => format!("{} ({zone})", c.describe()),
                Err(_) => format!("{cron} ({zone})"),
            },
        }
    }
}

/// Croner as Baton reads patterns: seconds and year optional, and the
/// `0/15` steps `english-to-cron` writes.
fn parser() -> CronParser {
    CronParser::builder().sloppy_ranges(true).build()
}

/// Whether `text` is a cron pattern: five to seven fields of cron's
/// characters (digits, `*`, `,`, `-`, `/`, `?`, `L`, `W`, `#`, names).
fn looks_like_cron(text: &str) -> bool {
    let fields: Vec<&str> = text.split_whitespace().collect();
    (5..=7).contains(&fields.len())
        && fields.iter().all(|f| {
            f.chars()
                .all(|c| c.is_ascii_alphanumeric() || "*,-/?#+".contains(c))
        })
        && fields
            .iter()
            .any(|f| f.chars().any(|c| c == '*' || c.is_ascii_digit()))
}

/// `in 2 hours`, `in 30 minutes`, `in an hour`, `in 3 days`.
fn in_duration(text: &str, now: DateTime<Tz>) -> Option<DateTime<Tz>> {
    let rest = text.strip_prefix("in ")?;
    let mut words = rest.split_whitespace();
    let (n, unit) = match (words.next()?, words.next()) {
        ("a" | "an" | "one", Some(unit)) => (1, unit),
        (n, Some(unit)) => (n.parse::<i64>().ok()?, unit),
        (joined, None) => {
            let digits: String = joined.chars().take_while(char::is_ascii_digit).collect();
            (digits.parse().ok()?, &joined[digits.len()..])
        }
    };
    if words.next().is_some() || n <= 0 {
        return None;
    }
    let step = match unit.trim_end_matches('s') {
        "second" | "sec" => Duration::seconds(1),
        "minute" | "min" | "m" => Duration::minutes(1),
        "hour" | "hr" | "h" => Duration::hours(1),
        "day" | "d" => Duration::days(1),
        "week" | "w" => Duration::weeks(1),
        _ => return None,
    };
    Some(now + step * i32::try_from(n).ok()?)
}

/// `2026-12-24 18:00`, `2026-12-24T18:00`, an RFC 3339 time.
fn at_date_time(text: &str, now: DateTime<Tz>) -> Option<DateTime<Tz>> {
    if let Ok(t) = DateTime::parse_from_rfc3339(text) {
        return Some(t.with_timezone(&now.timezone()));
    }
    for format in ["%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M:%S"] {
        if let Ok(t) = NaiveDateTime::parse_from_str(text, format) {
            return local(now.timezone(), t);
        }
    }
    let day = NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()?;
    local(
        now.timezone(),
        day.and_time(NaiveTime::from_hms_opt(9, 0, 0)?),
    )
}

/// `today at 17:00`, `tonight at 8pm`, `tomorrow at 9`, `at 17:30`
/// (the next such time), `tomorrow` (at 9:00).
fn on_day_at(text: &str, now: DateTime<Tz>) -> Option<DateTime<Tz>> {
    let (day, rest) = match text.split_once(' ') {
        Some((d @ ("today" | "tonight" | "tomorrow"), rest)) => (Some(d), rest.trim()),
        None if text == "tomorrow" => (Some("tomorrow"), "at 9:00"),
        _ => (None, text),
    };
    let time = clock_time(rest.strip_prefix("at ")?)?;
    let today = now.date_naive();
    let date = match day {
        Some("tomorrow") => today.succ_opt()?,
        Some(_) => today,
        None => {
            let candidate = local(now.timezone(), today.and_time(time))?;
            if candidate > now {
                today
            } else {
                today.succ_opt()?
            }
        }
    };
    local(now.timezone(), date.and_time(time))
}

/// `8`, `8:30`, `08:30`, `8am`, `8:30 pm`, `noon`, `midnight`.
fn clock_time(text: &str) -> Option<NaiveTime> {
    let t = text.trim().replace('.', ":");
    match t.as_str() {
        "noon" => return NaiveTime::from_hms_opt(12, 0, 0),
        "midnight" => return NaiveTime::from_hms_opt(0, 0, 0),
        _ => {}
    }
    let (digits, half) = if let Some(d) = t.strip_suffix("am") {
        (d.trim(), Some(false))
    } else if let Some(d) = t.strip_suffix("pm") {
        (d.trim(), Some(true))
    } else {
        (t.as_str(), None)
    };
    let (h, m) = match digits.split_once(':') {
        Some((h, m)) => (h.parse::<u32>().ok()?, m.parse::<u32>().ok()?),
        None => (digits.parse::<u32>().ok()?, 0),
    };
    let h = match half {
        Some(pm) if (1..=12).contains(&h) => h % 12 + if pm { 12 } else { 0 },
        Some(_) => return None,
        None => h,
    };
    NaiveTime::from_hms_opt(h, m, 0)
}

/// A wall-clock time in `zone`: the earlier of two in an autumn overlap,
/// the first time after a spring gap.
fn local(zone: Tz, t: NaiveDateTime) -> Option<DateTime<Tz>> {
    zone.from_local_datetime(&t).earliest().or_else(|| {
        zone.from_local_datetime(&(t + Duration::hours(1)))
            .earliest()
    })
}

/// Plain words for a repeat, as a cron pattern: the words a user writes
/// made into those `english-to-cron` reads (`weekday` → Monday through
/// Friday, `first of the month` → `1st day of the month`, `at 9` → `at
/// 9:00`), and 9:00 for a repeat by days that names no time (a report at
/// midnight, or every minute of a Sunday, is never what is meant).
fn words_to_cron(text: &str) -> Option<String> {
    let words = phrase_for_cron(text);
    let cron = english_to_cron::str_cron_syntax(&words).ok()?;
    let mut fields: Vec<String> = cron.split_whitespace().map(String::from).collect();
    if fields.len() != 7 {
        return None;
    }
    // The year: any.
    if fields[6] == "*" {
        fields.pop();
    }
    let names_a_time = [" at ", ":", "noon", "midnight", "hour", "minute", "second"]
        .iter()
        .any(|w| format!(" {words} ").contains(w));
    let unset = |f: &str| f == "*" || f == "0";
    if !names_a_time && unset(&fields[1]) && unset(&fields[2]) {
        fields[0] = "0".into();
        fields[1] = "0".into();
        fields[2] = "9".into();
    }
    Some(fields.join(" "))
}

/// The words as `english-to-cron` reads them.
fn phrase_for_cron(text: &str) -> String {
    let mut words = format!(" {} ", text.replace(',', " "));
    for (from, to) in [
        (" weekdays ", " monday through friday "),
        (" weekday ", " monday through friday "),
        (" working day ", " monday through friday "),
        (" daily ", " every day "),
        (" each ", " every "),
        (" first ", " 1st "),
        (" second ", " 2nd "),
        (" third ", " 3rd "),
        (" of every month ", " of the month "),
        (" o'clock ", " "),
        (" in the morning ", " at 9:00 am "),
        (" in the evening ", " at 6:00 pm "),
    ] {
        words = words.replace(from, to);
    }
    let mut out: Vec<String> = Vec::new();
    for w in words.split_whitespace() {
        let after_at = out.last().is_some_and(|p| p == "at");
        let ordinal = ["st", "nd", "rd", "th"].iter().any(|s| {
            w.strip_suffix(s)
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        });
        match clock_words(w) {
            Some(time) if after_at => out.push(time),
            _ => out.push(w.to_string()),
        }
        if ordinal {
            out.push("day".into());
        }
    }
    out.join(" ").replace(" day day ", " day ")
}

/// `9` → `9:00`, `9am` → `9:00 am`, `9:30pm` → `9:30 pm`.
fn clock_words(w: &str) -> Option<String> {
    let (digits, half) = match (w.strip_suffix("am"), w.strip_suffix("pm")) {
        (Some(d), _) => (d, " am"),
        (_, Some(d)) => (d, " pm"),
        _ => (w, ""),
    };
    let valid = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit() || b == b':');
    if !valid {
        return None;
    }
    let time = if digits.contains(':') {
        digits.to_string()
    } else {
        format!("{digits}:00")
    };
    Some(format!("{time}{half}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn warsaw(y: i32, mo: u32, d: u32, h: u32, mi: u32) -> DateTime<Tz> {
        chrono_tz::Europe::Warsaw
            .with_ymd_and_hms(y, mo, d, h, mi, 0)
            .unwrap()
    }

    fn next(s: &Schedule, after: DateTime<Tz>) -> DateTime<Tz> {
        s.next_after(after.with_timezone(&Utc))
            .expect("a next time")
            .with_timezone(&chrono_tz::Europe::Warsaw)
    }

    // Friday 2026-12-04, 10:15 in Warsaw.
    fn friday() -> DateTime<Tz> {
        warsaw(2026, 12, 4, 10, 15)
    }

    #[test]
    fn every_weekday_at_eight_skips_the_weekend() {
        let s = Schedule::parse("every weekday at 8:00", friday()).unwrap();
        let monday = next(&s, friday());
        assert_eq!(monday, warsaw(2026, 12, 7, 8, 0), "{s:?}");
        assert_eq!(next(&s, monday), warsaw(2026, 12, 8, 8, 0));
        assert!(matches!(s, Schedule::Repeat { ref zone, .. } if zone == "Europe/Warsaw"));
    }

    #[test]
    fn plain_words_and_cron_patterns_repeat() {
        let cases = [
            ("every monday at 9", warsaw(2026, 12, 7, 9, 0)),
            ("each Monday at 9am", warsaw(2026, 12, 7, 9, 0)),
            ("every sunday", warsaw(2026, 12, 6, 9, 0)),
            ("every weekend at 10:30", warsaw(2026, 12, 5, 10, 30)),
            ("every day at 7:30 pm", warsaw(2026, 12, 4, 19, 30)),
            ("on the first of the month", warsaw(2027, 1, 1, 9, 0)),
            ("every 15 minutes", warsaw(2026, 12, 4, 10, 30)),
            ("0 8 * * 1-5", warsaw(2026, 12, 7, 8, 0)),
            ("30 6 1 * *", warsaw(2027, 1, 1, 6, 30)),
        ];
        for (words, want) in cases {
            let s = Schedule::parse(words, friday()).unwrap_or_else(|e| panic!("{words}: {e}"));
            assert_eq!(next(&s, friday()), want, "{words}: {s:?}");
        }
    }

    #[test]
    fn one_time_in_words_or_as_a_date() {
        let cases = [
            ("in 2 hours", warsaw(2026, 12, 4, 12, 15)),
            ("in an hour", warsaw(2026, 12, 4, 11, 15)),
            ("in 30 minutes", warsaw(2026, 12, 4, 10, 45)),
            ("tomorrow at 9", warsaw(2026, 12, 5, 9, 0)),
            ("tomorrow", warsaw(2026, 12, 5, 9, 0)),
            ("today at 5pm", warsaw(2026, 12, 4, 17, 0)),
            ("at 17:30", warsaw(2026, 12, 4, 17, 30)),
            ("at 8:00", warsaw(2026, 12, 5, 8, 0)),
            ("2026-12-24 18:00", warsaw(2026, 12, 24, 18, 0)),
        ];
        for (words, want) in cases {
            let s = Schedule::parse(words, friday()).unwrap_or_else(|e| panic!("{words}: {e}"));
            assert!(matches!(s, Schedule::Once { .. }), "{words}: {s:?}");
            assert_eq!(next(&s, friday()), want, "{words}");
            // Once only.
            assert_eq!(s.next_after(want.with_timezone(&Utc)), None, "{words}");
        }
    }

    #[test]
    fn what_cannot_be_read_or_has_passed_is_said() {
        let e = Schedule::parse("whenever you like", friday()).unwrap_err();
        assert!(matches!(e, WhenError::NotUnderstood(_)), "{e}");
        assert!(e.to_string().contains("every weekday at 8:00"), "{e}");
        let e = Schedule::parse("2020-01-01 10:00", friday()).unwrap_err();
        assert_eq!(e, WhenError::Past("2020-01-01 10:00".into()));
        let e = Schedule::parse("61 * * * *", friday()).unwrap_err();
        assert!(matches!(e, WhenError::BadCron(..)), "{e}");
    }

    #[test]
    fn eight_oclock_stays_eight_oclock_across_daylight_saving_changes() {
        let s = Schedule::parse("every day at 8:00", warsaw(2026, 3, 27, 12, 0)).unwrap();
        // Clocks go forward on Sunday 2026-03-29 and back on 2026-10-25.
        let sunday = next(&s, warsaw(2026, 3, 28, 12, 0));
        assert_eq!(sunday, warsaw(2026, 3, 29, 8, 0));
        let monday = next(&s, sunday);
        assert_eq!(monday, warsaw(2026, 3, 30, 8, 0));
        assert_eq!((monday - sunday).num_hours(), 24, "a wall-clock day");
        let autumn = next(&s, warsaw(2026, 10, 24, 12, 0));
        assert_eq!(autumn, warsaw(2026, 10, 25, 8, 0));
        // 2:30 on the night the clocks skip it comes at the first time
        // after the gap, once.
        let s = Schedule::parse("every day at 2:30", warsaw(2026, 3, 27, 12, 0)).unwrap();
        let gap = next(&s, warsaw(2026, 3, 28, 12, 0));
        assert!(
            gap.date_naive() == NaiveDate::from_ymd_opt(2026, 3, 29).unwrap(),
            "{gap}"
        );
        assert_eq!(next(&s, gap), warsaw(2026, 3, 30, 2, 30));
    }

    #[test]
    fn a_time_zone_is_read_in_its_own_zone() {
        let ny = chrono_tz::America::New_York
            .with_ymd_and_hms(2026, 12, 4, 10, 15, 0)
            .unwrap();
        let s = Schedule::parse("every day at 8:00", ny).unwrap();
        let n = s.next_after(ny.with_timezone(&Utc)).unwrap();
        assert_eq!(
            n,
            chrono_tz::America::New_York
                .with_ymd_and_hms(2026, 12, 5, 8, 0, 0)
                .unwrap()
                .with_timezone(&Utc)
        );
        assert_eq!(
            zone("Mars/Olympus"),
            Err(WhenError::UnknownZone("Mars/Olympus".into()))
        );
    }
}
