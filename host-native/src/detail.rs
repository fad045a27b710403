//! Human detail under the `[ok]` line for answers a person would rather read than parse:
//! the timeline (coloured amber, red and green on a terminal), health dimensions, a brief.

use baton_core::commands::Response;
use baton_core::lifecycle::timeline::Tone;

fn paint(text: &str, tone: Tone, colour: bool) -> String {
    let code = match tone {
        Tone::Plain => return text.to_owned(),
        Tone::Amber => "33",
        Tone::Red => "31",
        Tone::Green => "32",
    };
    if colour {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_owned()
    }
}

/// Extra lines (each starting with a newline) for the human output; empty when none.
pub fn details(response: &Response, colour: bool) -> String {
    let mut out = String::new();
    match response {
        Response::Timeline(t) => {
            for e in &t.events {
                let marker = match e.tone {
                    Tone::Plain => "  ",
                    Tone::Amber => "! ",
                    Tone::Red => "x ",
                    Tone::Green => "v ",
                };
                let line = format!(
                    "{marker}{}  {:<24} {:<6} {:<12} {}",
                    e.at,
                    e.kind,
                    format!("{:?}", e.actor).to_lowercase(),
                    e.actor_name,
                    e.summary
                );
                out.push('\n');
                out.push_str(&paint(&line, e.tone, colour));
            }
        }
        Response::Health(h) => {
            for d in &h.report.dimensions {
                out.push_str(&format!(
                    "\n  {:<24} {:>5}  {}",
                    d.name,
                    d.score.map_or("—".to_owned(), |s| s.to_string()),
                    d.reason
                ));
            }
            for reason in &h.report.rebrief_reasons {
                out.push('\n');
                out.push_str(&paint(
                    &format!("  re-brief: {reason}"),
                    Tone::Amber,
                    colour,
                ));
            }
        }
        Response::Lifecycle(a) => {
            if let Some(brief) = &a.brief {
                if let Some(pause) = &brief.pause {
                    out.push('\n');
                    out.push_str(&paint(
                        &format!(
                            "  PAUSED: {} — next action: blocked",
                            pause["reason"].as_str().unwrap_or("")
                        ),
                        Tone::Amber,
                        colour,
                    ));
                }
                if let Some(mission) = &brief.mission {
                    out.push_str(&format!(
                        "\n  mission {} contract v{}",
                        mission["reference"].as_str().unwrap_or(""),
                        mission["contract_version"]
                    ));
                    for clause in mission["clauses"].as_array().into_iter().flatten() {
                        out.push_str(&format!("\n    - {}", clause.as_str().unwrap_or("")));
                    }
                }
                for d in &brief.active_decisions {
                    out.push_str(&format!("\n  decision #{}: {}", d.number, d.text));
                }
                for a in &brief.open_ambiguities {
                    out.push_str(&format!("\n  open ambiguity #{}: {}", a.number, a.text));
                }
            }
        }
        Response::Attention(a) => {
            for item in &a.items {
                out.push_str(&format!(
                    "\n  #{} [{} {}] {} ({})",
                    item.number, item.level, item.urgency, item.text, item.at
                ));
            }
        }
        _ => {}
    }
    out
}
