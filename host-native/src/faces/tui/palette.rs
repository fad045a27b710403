//! The terminal UI's colours: the 16 basic ones, or none at all (`NO_COLOR`, `--color never`),
//! with bold and reverse video standing in for colour where a choice must still show.

use ratatui::style::{Color, Modifier, Style};

/// Colours, or none (`NO_COLOR`, a pipe).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Palette {
    pub(crate) colour: bool,
}

impl Palette {
    pub(crate) fn fg(self, colour: Color) -> Style {
        if self.colour {
            Style::default().fg(colour)
        } else {
            Style::default()
        }
    }

    pub(crate) fn bold(self) -> Style {
        Style::default().add_modifier(Modifier::BOLD)
    }

    pub(crate) fn dim(self) -> Style {
        if self.colour {
            Style::default().fg(Color::DarkGray)
        } else {
            Style::default()
        }
    }

    pub(crate) fn selected(self) -> Style {
        if self.colour {
            Style::default().bg(Color::Blue).fg(Color::White)
        } else {
            Style::default().add_modifier(Modifier::REVERSED)
        }
    }
}
