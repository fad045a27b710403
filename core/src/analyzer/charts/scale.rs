//! Axis arithmetic for the charts: round tick steps, and values worded short (`1.2k`, `25M`,
//! `$3.40`) for ticks or in full (`1,234,567`, `$3.4012`) for hover titles. Integers only.

/// What a chart's values count, and so how they are worded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Plain counts (messages, tokens, conversations).
    Count,
    /// US dollars, held as nano-dollars so sums stay exact.
    NanoUsd,
}

/// Nano-dollars in one dollar.
pub const NANO_PER_USD: u64 = 1_000_000_000;

impl Unit {
    /// A tick label: short, at most one decimal (`1.2k`, `25M`, `$3.40`, `$1.5k`).
    pub fn short(self, value: u64) -> String {
        match self {
            Unit::Count => compact(value),
            Unit::NanoUsd => {
                let cents = value / (NANO_PER_USD / 100);
                if cents >= 100_000 {
                    format!("${}", compact(cents / 100))
                } else if cents.is_multiple_of(100) {
                    format!("${}", cents / 100)
                } else {
                    format!("${}.{:02}", cents / 100, cents % 100)
                }
            }
        }
    }

    /// A tick label on an axis of `step`: like [`Unit::short`], but every dollar tick keeps
    /// its cents when the step has any (`$0.50`, `$1.00`, `$1.50`).
    pub fn tick(self, value: u64, step: u64) -> String {
        let cent = NANO_PER_USD / 100;
        match self {
            Unit::NanoUsd if !step.is_multiple_of(NANO_PER_USD) && value < 100_000 * cent => {
                let cents = value / cent;
                format!("${}.{:02}", cents / 100, cents % 100)
            }
            _ => self.short(value),
        }
    }

    /// A series' total in a legend: short for counts, to the cent for dollars.
    pub fn legend(self, value: u64) -> String {
        match self {
            Unit::Count => compact(value),
            Unit::NanoUsd => self.full(value),
        }
    }

    /// A value in full, for a hover title (`1,234,567`, `$3.40`; below a cent, `$0.0042`).
    pub fn full(self, value: u64) -> String {
        match self {
            Unit::Count => thousands(value),
            Unit::NanoUsd => {
                let tenth_cents = value / (NANO_PER_USD / 10_000);
                if value > 0 && value < NANO_PER_USD / 100 {
                    format!("${}.{:04}", tenth_cents / 10_000, tenth_cents % 10_000)
                } else {
                    let cents = value / (NANO_PER_USD / 100);
                    format!("${}.{:02}", thousands(cents / 100), cents % 100)
                }
            }
        }
    }
}

/// `1234567` → `1,234,567`.
pub fn thousands(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A count in at most four characters: `950`, `1.2k`, `25M`, `3.4B`, `12T`. One decimal below
/// ten of a unit, none above; a value that rounds up to the next unit is worded in it.
pub fn compact(value: u64) -> String {
    const UNITS: [(u64, &str); 5] = [
        (1_000_000_000_000_000, "P"),
        (1_000_000_000_000, "T"),
        (1_000_000_000, "B"),
        (1_000_000, "M"),
        (1_000, "k"),
    ];
    if value < 1_000 {
        return value.to_string();
    }
    // The largest unit the value reaches, in tenths, rounded half up.
    for (i, (size, suffix)) in UNITS.iter().enumerate() {
        if value < *size {
            continue;
        }
        let tenths = (u128::from(value) * 10 + u128::from(*size) / 2) / u128::from(*size);
        if tenths >= 10_000 && i > 0 {
            // 999.96k rounds to 1000k: say 1M.
            let (bigger, suffix) = UNITS[i - 1];
            let tenths = (u128::from(value) * 10 + u128::from(bigger) / 2) / u128::from(bigger);
            return format!("{}.{}{suffix}", tenths / 10, tenths % 10).replace(".0", "");
        }
        return if tenths >= 100 {
            format!(
                "{}{suffix}",
                (u128::from(value) + u128::from(*size) / 2) / u128::from(*size)
            )
        } else if tenths % 10 == 0 {
            format!("{}{suffix}", tenths / 10)
        } else {
            format!("{}.{}{suffix}", tenths / 10, tenths % 10)
        };
    }
    value.to_string()
}

/// A tick step (1, 2 or 5 times a power of ten) that divides `0..=max` into at most `ticks`
/// parts, and the top of the axis (the first multiple of the step at or above `max`).
pub fn nice_scale(max: u64, ticks: u64) -> (u64, u64) {
    let max = max.max(1);
    let ticks = ticks.max(1);
    let rough = max.div_ceil(ticks);
    let mut magnitude: u64 = 1;
    while magnitude <= rough / 10 {
        magnitude = magnitude.saturating_mul(10);
    }
    let step = [1u64, 2, 5, 10]
        .iter()
        .map(|m| magnitude.saturating_mul(*m))
        .find(|s| *s >= rough)
        .unwrap_or(u64::MAX);
    let top = max.div_ceil(step).saturating_mul(step);
    (step, top)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_words_each_magnitude() {
        let cases = [
            (0, "0"),
            (999, "999"),
            (1_000, "1k"),
            (1_234, "1.2k"),
            (9_950, "10k"),
            (25_386_844, "25M"),
            (999_960, "1M"),
            (3_400_000_000, "3.4B"),
            (u64::MAX, "18447P"),
        ];
        for (value, want) in cases {
            assert_eq!(compact(value), want, "{value}");
        }
    }

    #[test]
    fn dollars_are_worded_short_and_in_full() {
        assert_eq!(Unit::NanoUsd.short(3_400_000_000), "$3.40");
        assert_eq!(Unit::NanoUsd.short(2_000_000_000), "$2");
        assert_eq!(Unit::NanoUsd.short(1_500 * NANO_PER_USD), "$1.5k");
        assert_eq!(Unit::NanoUsd.full(4_200_000), "$0.0042");
        assert_eq!(
            Unit::NanoUsd.full(1_234_567 * NANO_PER_USD),
            "$1,234,567.00"
        );
        assert_eq!(Unit::Count.full(1_234_567), "1,234,567");
        let half = NANO_PER_USD / 2;
        assert_eq!(Unit::NanoUsd.tick(2 * half, half), "$1.00");
        assert_eq!(Unit::NanoUsd.tick(2 * NANO_PER_USD, NANO_PER_USD), "$2");
        assert_eq!(Unit::NanoUsd.legend(NANO_PER_USD), "$1.00");
    }

    #[test]
    fn scales_are_round_and_cover_the_maximum() {
        assert_eq!(nice_scale(25_386_844, 4), (10_000_000, 30_000_000));
        assert_eq!(nice_scale(7, 4), (2, 8));
        assert_eq!(nice_scale(0, 4), (1, 1));
        assert_eq!(nice_scale(100, 4), (50, 100));
        let (step, top) = nice_scale(u64::MAX, 4);
        assert!(step > 0 && top >= step);
    }
}
