//! What a person checks before sharing a conversation: its text and JSON redacted as the
//! profile asks, and the preview of every replacement.

use super::Output;
use crate::faces::table::{Column, Fit, Table};

/// Every string of `value` redacted (keys kept).
pub(crate) fn redact_json(
    redactor: &mut baton_core::share::redact::Redactor,
    value: &mut serde_json::Value,
) {
    match value {
        serde_json::Value::String(text) => *text = redactor.redact(text),
        serde_json::Value::Array(items) => {
            for item in items {
                redact_json(redactor, item);
            }
        }
        serde_json::Value::Object(fields) => {
            for (_, field) in fields.iter_mut() {
                redact_json(redactor, field);
            }
        }
        _ => {}
    }
}

/// What a redaction replaced, as a person checks it before sharing.
pub(crate) fn preview(
    redactor: &baton_core::share::redact::Redactor,
    profile: baton_core::share::redact::Profile,
    style: &crate::faces::table::Style,
) -> Output {
    let replacements = redactor.preview();
    let total: usize = replacements.iter().map(|r| r.count).sum();
    let mut human = format!(
        "[ok] Redaction preview ({}): {} value(s), {total} replacement(s); nothing was written",
        serde_json::to_value(profile)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default(),
        replacements.len()
    );
    let mut table = Table::new(vec![
        Column::text("KIND"),
        Column::text("PLACEHOLDER"),
        Column::number("TIMES"),
        Column::text("VALUE").cut(Fit::End),
    ]);
    for r in &replacements {
        table.row(vec![
            r.kind.name().into(),
            r.placeholder.clone().into(),
            r.count.to_string().into(),
            r.value.clone().into(),
        ]);
    }
    table.append_to(&mut human, style);
    Output {
        human,
        json:
            serde_json::json!({ "profile": profile, "replacements": replacements, "total": total })
                .into(),
    }
}
