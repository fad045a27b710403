//! How human output is laid out and styled: whether colour is on and how wide the output may
//! be ([`Style`]), and aligned tables ([`Table`]) sized to their content and fitted to that
//! width (the widest cuttable column gives way first; a path keeps its tail). Colour is added
//! after alignment, so it never shifts a column.

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// `--color`: whether human output is coloured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub(crate) enum ColorChoice {
    /// On a terminal, unless `NO_COLOR` is set.
    #[default]
    Auto,
    /// Always, even into a pipe.
    Always,
    /// Never.
    Never,
}

/// Where human output goes: with colour or not, and how wide it may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Style {
    /// Colour the text (SGR codes).
    pub(crate) colour: bool,
    /// Fit tables to this many columns; `None` leaves them as wide as their content.
    pub(crate) width: Option<usize>,
}

impl Style {
    /// Plain text, no width limit.
    pub(crate) const PLAIN: Style = Style {
        colour: false,
        width: None,
    };

    /// The style for stdout: colour per `choice` (auto: a terminal without `NO_COLOR`), the
    /// width `COLUMNS` says, else the terminal's, else none (a pipe gets whole lines).
    pub(crate) fn for_stdout(choice: ColorChoice) -> Style {
        use std::io::IsTerminal;
        let terminal = std::io::stdout().is_terminal();
        Style {
            colour: colour_for(choice, terminal),
            width: columns_env().or_else(|| terminal.then(terminal_width).flatten()),
        }
    }

    /// The style for stderr (colour only; messages are not tables).
    pub(crate) fn for_stderr(choice: ColorChoice) -> Style {
        use std::io::IsTerminal;
        Style {
            colour: colour_for(choice, std::io::stderr().is_terminal()),
            width: None,
        }
    }

    /// `text` in `paint`, when colour is on.
    pub(crate) fn paint(&self, text: &str, paint: Paint) -> String {
        if !self.colour || text.is_empty() {
            return text.to_owned();
        }
        format!("\x1b[{}m{text}\x1b[0m", paint.sgr())
    }
}

fn colour_for(choice: ColorChoice, terminal: bool) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            terminal && crate::os::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        }
    }
}

fn columns_env() -> Option<usize> {
    crate::os::env::var("COLUMNS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&w| w >= 20)
}

/// The terminal's width in columns, when stdout is one.
fn terminal_width() -> Option<usize> {
    width_of(libc::STDOUT_FILENO)
}

fn width_of(fd: libc::c_int) -> Option<usize> {
    // SAFETY: TIOCGWINSZ fills the `winsize` passed; it reads nothing else.
    let mut size: libc::winsize = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::ioctl(fd, libc::TIOCGWINSZ, &mut size) } == 0;
    (ok && size.ws_col >= 20).then_some(usize::from(size.ws_col))
}

/// The width `--help` is laid out in, as clap lays out its own part: `COLUMNS`, else the
/// terminal's (stdout's, or stderr's when stdout is a pipe into `less`), at most 100.
pub(crate) fn help_width() -> usize {
    columns_env()
        .or_else(|| width_of(libc::STDOUT_FILENO))
        .or_else(|| width_of(libc::STDERR_FILENO))
        .unwrap_or(100)
        .min(100)
}

/// The colours Baton uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Paint {
    /// Success, a healthy or working state.
    Green,
    /// Attention: blocked, paused, degraded.
    Amber,
    /// Failure, stale, an error.
    Red,
    /// What matters less: ids, times.
    Dim,
    /// Headings.
    Bold,
}

impl Paint {
    fn sgr(self) -> &'static str {
        match self {
            Paint::Green => "32",
            Paint::Amber => "33",
            Paint::Red => "31",
            Paint::Dim => "2",
            Paint::Bold => "1",
        }
    }
}

/// How a column's cells sit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Align {
    /// Text.
    Left,
    /// Numbers.
    Right,
}

/// What a column does when the table is too wide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fit {
    /// Never cut (ids, numbers, statuses).
    Keep,
    /// Cut the end: `Implement the sea…`.
    End,
    /// Cut the start, keeping the tail a path is known by: `…/2026-07-18-2000-claude-33a39086`.
    Start,
}

/// One column.
#[derive(Debug, Clone)]
pub(crate) struct Column {
    header: &'static str,
    align: Align,
    fit: Fit,
    /// When even cut columns leave the table too wide, columns with a rank are left out,
    /// lowest rank first.
    drop_rank: Option<u8>,
    /// The narrowest a cut leaves this column while a droppable column can go instead.
    comfortable: usize,
}

impl Column {
    /// A text column that keeps its width.
    pub(crate) fn text(header: &'static str) -> Column {
        Column {
            header,
            align: Align::Left,
            fit: Fit::Keep,
            drop_rank: None,
            comfortable: 0,
        }
    }

    /// A right-aligned number column.
    pub(crate) fn number(header: &'static str) -> Column {
        Column {
            header,
            align: Align::Right,
            fit: Fit::Keep,
            drop_rank: None,
            comfortable: 0,
        }
    }

    /// This column may be cut as `fit` says when the table is too wide.
    pub(crate) fn cut(mut self, fit: Fit) -> Column {
        self.fit = fit;
        self
    }

    /// Rather than cut this column below `width`, leave out a droppable one.
    pub(crate) fn comfortable(mut self, width: usize) -> Column {
        self.comfortable = width;
        self
    }

    /// This column may be left out of a table too wide for the width, `rank` 0 first.
    pub(crate) fn droppable(mut self, rank: u8) -> Column {
        self.drop_rank = Some(rank);
        self
    }
}

/// One cell: its text, and its colour if any.
#[derive(Debug, Clone, Default)]
pub(crate) struct Cell {
    text: String,
    paint: Option<Paint>,
}

impl Cell {
    /// A painted cell.
    pub(crate) fn painted(text: impl Into<String>, paint: Option<Paint>) -> Cell {
        Cell {
            text: safe_cell(&text.into()),
            paint,
        }
    }
}

impl From<String> for Cell {
    fn from(text: String) -> Cell {
        Cell::painted(text, None)
    }
}

impl From<&str> for Cell {
    fn from(text: &str) -> Cell {
        Cell::painted(text, None)
    }
}

/// A cell's text on one line, with nothing that could move the cursor.
fn safe_cell(text: &str) -> String {
    let one_line = text.replace(['\n', '\r', '\t'], " ");
    crate::os::terminal::terminal_safe(&one_line).into_owned()
}

/// Rows under a header, aligned.
#[derive(Debug, Clone)]
pub(crate) struct Table {
    columns: Vec<Column>,
    rows: Vec<Vec<Cell>>,
}

/// The narrowest a cut column gets.
const MIN_CUT_WIDTH: usize = 6;
const GAP: usize = 2;

impl Table {
    /// An empty table with these columns.
    pub(crate) fn new(columns: Vec<Column>) -> Table {
        Table {
            columns,
            rows: Vec::new(),
        }
    }

    /// Adds a column at the end (before any row is added).
    pub(crate) fn push(&mut self, column: Column) {
        self.columns.push(column);
    }

    /// Adds a row (missing cells are blank).
    pub(crate) fn row(&mut self, cells: Vec<Cell>) {
        self.rows.push(cells);
    }

    /// Whether it has no rows.
    pub(crate) fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Adds the table on its own lines under `text`, when it has rows.
    pub(crate) fn append_to(&self, text: &mut String, style: &Style) {
        if !self.is_empty() {
            text.push('\n');
            text.push_str(&self.render(style));
        }
    }

    /// The table as lines, fitted to `style.width`: cuttable columns narrowed, then
    /// droppable ones left out, until it fits.
    pub(crate) fn render(&self, style: &Style) -> String {
        let mut shown: Vec<usize> = (0..self.columns.len()).collect();
        loop {
            let mut widths = self.natural_widths(&shown);
            let Some(limit) = style.width else {
                return self.lines(&shown, &widths, style);
            };
            let columns: Vec<&Column> = shown.iter().map(|&i| &self.columns[i]).collect();
            let can_drop = columns.iter().any(|c| c.drop_rank.is_some());
            if fit(&columns, &mut widths, limit, can_drop) {
                return self.lines(&shown, &widths, style);
            }
            let next_drop = shown
                .iter()
                .enumerate()
                .filter_map(|(at, &i)| self.columns[i].drop_rank.map(|rank| (rank, at)))
                .min();
            match next_drop {
                Some((_, at)) => {
                    shown.remove(at);
                }
                None => return self.lines(&shown, &widths, style),
            }
        }
    }

    fn natural_widths(&self, shown: &[usize]) -> Vec<usize> {
        shown
            .iter()
            .map(|&i| {
                self.rows
                    .iter()
                    .map(|row| row.get(i).map_or(0, |c| c.text.width()))
                    .chain(std::iter::once(self.columns[i].header.width()))
                    .max()
                    .unwrap_or(0)
            })
            .collect()
    }

    fn lines(&self, shown: &[usize], widths: &[usize], style: &Style) -> String {
        let blank = Cell::default();
        let header: Vec<Cell> = self
            .columns
            .iter()
            .map(|c| Cell::painted(c.header, Some(Paint::Bold)))
            .collect();
        let mut lines = Vec::with_capacity(self.rows.len() + 1);
        for row in std::iter::once(&header).chain(&self.rows) {
            let mut line = String::new();
            for (at, &i) in shown.iter().enumerate() {
                let column = &self.columns[i];
                let cell = row.get(i).unwrap_or(&blank);
                let text = shorten(&cell.text, widths[at], column.fit);
                let pad = widths[at].saturating_sub(text.width());
                let last = at + 1 == shown.len();
                let painted = match cell.paint {
                    Some(paint) => style.paint(&text, paint),
                    None => text,
                };
                match column.align {
                    Align::Right => {
                        line.push_str(&" ".repeat(pad));
                        line.push_str(&painted);
                    }
                    Align::Left => {
                        line.push_str(&painted);
                        if !last {
                            line.push_str(&" ".repeat(pad));
                        }
                    }
                }
                if !last {
                    line.push_str(&" ".repeat(GAP));
                }
            }
            lines.push(line.trim_end().to_owned());
        }
        lines.join("\n")
    }
}

/// Narrows the cuttable columns, widest first, until the table fits `limit`; whether it does.
/// While columns can still be dropped, none is cut below its comfortable width.
fn fit(columns: &[&Column], widths: &mut [usize], limit: usize, comfortably: bool) -> bool {
    let floor = |c: &Column| {
        let least = MIN_CUT_WIDTH.max(c.header.width());
        if comfortably {
            least.max(c.comfortable)
        } else {
            least
        }
    };
    let total =
        |widths: &[usize]| widths.iter().sum::<usize>() + GAP * widths.len().saturating_sub(1);
    while total(widths) > limit {
        let widest = columns
            .iter()
            .enumerate()
            .filter(|(i, c)| c.fit != Fit::Keep && widths[*i] > floor(c))
            .max_by_key(|(i, _)| widths[*i])
            .map(|(i, _)| i);
        match widest {
            Some(i) => widths[i] -= 1,
            None => return false,
        }
    }
    true
}

/// `text` in at most `width` columns, cut as `fit` says, with `…` where it was cut.
pub(crate) fn shorten(text: &str, width: usize, fit: Fit) -> String {
    if text.width() <= width || fit == Fit::Keep || width == 0 {
        return text.to_owned();
    }
    let room = width - 1;
    let mut kept = Vec::new();
    let mut used = 0;
    let chars: Box<dyn Iterator<Item = char>> = match fit {
        Fit::Start => Box::new(text.chars().rev()),
        _ => Box::new(text.chars()),
    };
    for c in chars {
        let w = c.width().unwrap_or(0);
        if used + w > room {
            break;
        }
        used += w;
        kept.push(c);
    }
    match fit {
        Fit::Start => std::iter::once('…').chain(kept.into_iter().rev()).collect(),
        _ => kept.into_iter().chain(std::iter::once('…')).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(width: usize) -> Style {
        Style {
            colour: false,
            width: Some(width),
        }
    }

    fn sample() -> Table {
        let mut table = Table::new(vec![
            Column::text("ID"),
            Column::text("PATH").cut(Fit::Start),
            Column::number("TOKENS"),
            Column::text("GOAL").cut(Fit::End),
        ]);
        table.row(vec![
            "33a39086".into(),
            "demo/2026-07-18-2000-claude-33a39086".into(),
            "1,234".into(),
            "Implement search across every transcript".into(),
        ]);
        table.row(vec!["0badcafe".into(), "x/y".into(), "5".into(), "".into()]);
        table
    }

    #[test]
    fn columns_align_and_numbers_sit_right() {
        let text = sample().render(&Style::PLAIN);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "ID        PATH                                  TOKENS  GOAL"
        );
        assert_eq!(
            lines[2],
            "0badcafe  x/y                                        5"
        );
    }

    #[test]
    fn a_narrow_width_cuts_the_widest_cuttable_column_first_and_paths_keep_their_tail() {
        let text = sample().render(&plain(60));
        for line in text.lines() {
            assert!(line.width() <= 60, "{line:?}");
        }
        let row = text.lines().nth(1).unwrap();
        assert!(row.starts_with("33a39086  …"), "{row}");
        assert!(
            row.contains("claude-33a39086"),
            "the tail of a path stays: {row}"
        );
        assert!(row.ends_with('…'), "{row}");
    }

    #[test]
    fn a_table_that_cannot_fit_leaves_out_its_droppable_columns_lowest_rank_first() {
        let mut table = Table::new(vec![
            Column::number("AAAAAAAAAA"),
            Column::number("BBBBBBBBBB").droppable(1),
            Column::number("CCCCCCCCCC").droppable(0),
        ]);
        table.row(vec!["1".into(), "2".into(), "3".into()]);
        assert_eq!(
            table.render(&plain(30)).lines().next(),
            Some("AAAAAAAAAA  BBBBBBBBBB")
        );
        assert_eq!(table.render(&plain(20)).lines().next(), Some("AAAAAAAAAA"));
        assert_eq!(table.render(&plain(40)).lines().count(), 2);
    }

    #[test]
    fn colour_never_shifts_a_column() {
        let mut table = Table::new(vec![Column::text("A"), Column::text("B")]);
        table.row(vec![Cell::painted("ok", Some(Paint::Green)), "x".into()]);
        let coloured = table.render(&Style {
            colour: true,
            width: None,
        });
        let row = coloured.lines().nth(1).unwrap();
        assert_eq!(row, "\x1b[32mok\x1b[0m  x");
    }

    #[test]
    fn shorten_counts_wide_characters() {
        assert_eq!(shorten("日本語のテキスト", 7, Fit::End), "日本語…");
        assert_eq!(shorten("a/b/c/d", 5, Fit::Start), "…/c/d");
        assert_eq!(shorten("short", 10, Fit::End), "short");
    }
}
