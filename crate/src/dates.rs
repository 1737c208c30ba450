//! Calendar dates without a time zone database: ISO dates (`2026-12-01`) as days since
//! 1970-01-01, ISO date-times as milliseconds since the epoch, the week of a date. Tasks keep
//! their dates as days; property expressions compare dates and date-times.

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
pub fn days_from_civil(y: i32, m: u32, d: u32) -> i32 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = (y - era * 400) as u32;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe as i32 - 719_468
}

/// The (year, month, day) of a day number (`days_from_civil`'s inverse).
pub fn civil_from_days(z: i32) -> (i32, u32, u32) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = (z - era * 146_097) as u32;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe as i32 + era * 400 + i32::from(m <= 2);
    (y, m, d)
}

fn days_in_month(y: i32, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        _ => 28,
    }
}

fn digits(s: &str) -> Option<u32> {
    (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.parse().ok()).flatten()
}

/// `YYYY-MM-DD` (exactly) as days since 1970-01-01; None for anything else or an impossible
/// date (`2026-02-30`).
pub fn parse_date(s: &str) -> Option<i32> {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let (y, m, d) = (digits(&s[..4])? as i32, digits(&s[5..7])?, digits(&s[8..10])?);
    if !(1..=12).contains(&m) || d == 0 || d > days_in_month(y, m) {
        return None;
    }
    Some(days_from_civil(y, m, d))
}

/// A date or date-time as milliseconds since the epoch: `YYYY-MM-DD` (midnight),
/// `YYYY-MM-DDTHH:MM[:SS[.fff]]` with an optional `Z` or `±HH:MM` (without one: local to
/// `offset_minutes`, the host's offset from UTC). A space may stand for the `T`.
pub fn parse_datetime(s: &str, offset_minutes: i32) -> Option<f64> {
    let s = s.trim();
    if s.len() < 10 || !s.is_char_boundary(10) {
        return None;
    }
    let day = parse_date(&s[..10])?;
    let rest = &s[10..];
    let local_day_ms = day as f64 * 86_400_000.0;
    if rest.is_empty() {
        return Some(local_day_ms - offset_minutes as f64 * 60_000.0);
    }
    let rest = rest.strip_prefix('T').or_else(|| rest.strip_prefix(' '))?;
    let (clock, zone) = match rest.find(['Z', 'z', '+', '-']) {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    let mut parts = clock.split(':');
    let h = digits(parts.next()?)?;
    let mi = digits(parts.next()?)?;
    let (sec, frac) = match parts.next() {
        Some(sec) => match sec.split_once('.') {
            Some((s, f)) => (digits(s)?, format!("0.{}", f).parse::<f64>().ok().filter(|_| digits(f).is_some())?),
            None => (digits(sec)?, 0.0),
        },
        None => (0, 0.0),
    };
    if parts.next().is_some() || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let zone_minutes = match zone {
        "" => offset_minutes,
        "Z" | "z" => 0,
        z => {
            let sign = if z.starts_with('-') { -1 } else { 1 };
            let (zh, zm) = z[1..].split_once(':').unwrap_or((&z[1..], "00"));
            let (zh, zm) = (digits(zh)?, digits(zm)?);
            if zh > 23 || zm > 59 {
                return None;
            }
            sign * (zh * 60 + zm) as i32
        }
    };
    let ms = local_day_ms + ((h * 3600 + mi * 60 + sec) as f64 + frac) * 1000.0;
    Some(ms - zone_minutes as f64 * 60_000.0)
}

/// `YYYY-MM-DD` of a day number.
pub fn format_date(days: i32) -> String {
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}")
}

/// The day (days since 1970-01-01) of an instant in ms, at `offset_minutes` from UTC.
pub fn day_of_ms(ms: f64, offset_minutes: i32) -> i32 {
    ((ms + offset_minutes as f64 * 60_000.0) / 86_400_000.0).floor() as i32
}

/// The Monday that starts the ISO week of `day`.
pub fn week_start(day: i32) -> i32 {
    // 1970-01-01 was a Thursday: Monday-based weekday 3.
    day - (day + 3).rem_euclid(7)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_round_trip_and_reject_impossible_dates() {
        assert_eq!(parse_date("1970-01-01"), Some(0));
        assert_eq!(parse_date("2026-12-01").map(format_date).as_deref(), Some("2026-12-01"));
        assert_eq!(parse_date("2024-02-29").map(format_date).as_deref(), Some("2024-02-29"));
        for bad in ["2026-02-29", "2026-13-01", "2026-00-10", "2026-1-01", "26-01-01", "2026-01-01x", "２０２６-01-01"]
        {
            assert_eq!(parse_date(bad), None, "{bad}");
        }
        for d in [-800_000, -1, 0, 1, 20_000, 2_000_000] {
            let (y, m, dd) = civil_from_days(d);
            assert_eq!(days_from_civil(y, m, dd), d);
        }
    }

    #[test]
    fn datetimes_with_zones() {
        let day = 86_400_000.0 * parse_date("2026-11-26").unwrap() as f64;
        assert_eq!(parse_datetime("2026-11-26", 0), Some(day));
        assert_eq!(parse_datetime("2026-11-26T10:30", 0), Some(day + 37_800_000.0));
        assert_eq!(parse_datetime("2026-11-26 10:30:00Z", 0), Some(day + 37_800_000.0));
        assert_eq!(parse_datetime("2026-11-26T10:30:00+01:00", 0), Some(day + 34_200_000.0));
        assert_eq!(parse_datetime("2026-11-26T10:30:00.5-00:30", 0), Some(day + 39_600_500.0));
        assert_eq!(parse_datetime("2026-11-26T10:30", 60), Some(day + 34_200_000.0), "local at UTC+1");
        for bad in ["2026-11-26T", "2026-11-26T25:00", "2026-11-26T10", "2026-11-26T10:30:00+5:x", "yesterday"] {
            assert_eq!(parse_datetime(bad, 0), None, "{bad}");
        }
    }

    #[test]
    fn weeks_start_on_monday() {
        let thu = parse_date("2026-11-26").unwrap();
        assert_eq!(format_date(week_start(thu)), "2026-11-23");
        assert_eq!(week_start(parse_date("2026-11-23").unwrap()), parse_date("2026-11-23").unwrap());
        assert_eq!(format_date(week_start(parse_date("2026-11-29").unwrap())), "2026-11-23");
        assert_eq!(day_of_ms(parse_datetime("2026-11-26T23:30Z", 0).unwrap(), 60), thu + 1);
    }
}
