//! TypeScript declarations of the ABI, generated from the request and answer types' JSON
//! Schemas (schemars): every request an op takes, every answer, the error envelope and codes.
//! `host-web/npm/types.d.ts` is this text; a test keeps it in step.

use super::answers::*;
use super::{AbiRequest, analyzers::AnalyzerRequest};
use crate::error::ErrorCode;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Which answer type each op's `ok` holds.
pub const ANSWER_TYPES: &[(&str, &str)] = &[
    ("version", "VersionAnswer"),
    ("fold", "FoldAnswer"),
    ("query", "QueryAnswer"),
    ("execute", "ExecuteAnswer"),
    ("analyzer_open", "OpenedAnswer"),
    ("analyzer_begin", "BegunAnswer"),
    ("analyzer_push", "PushedAnswer"),
    ("analyzer_finish", "FileSummary"),
    ("analyzer_files", "FilesAnswer"),
    ("analyzer_usage", "UsageAnswer"),
    ("analyzer_overview", "OverviewAnswer"),
    ("analyzer_list", "ConversationList"),
    ("analyzer_view", "ViewAnswer"),
    ("analyzer_work", "WorkOverview"),
    ("analyzer_close", "ClosedAnswer"),
];

/// The declarations, as `types.d.ts` holds them.
pub fn declarations() -> String {
    // Requests are read (a field with a default may be left out); answers are written (every
    // field not skipped is there). The two contracts can give one type two shapes: a request's
    // is then named `…Input`.
    let mut requests = SchemaSettings::draft2020_12()
        .for_deserialize()
        .into_generator();
    requests.subschema_for::<AbiRequest>();
    requests.subschema_for::<AnalyzerRequest>();
    let mut answers = SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator();
    answers.subschema_for::<VersionAnswer>();
    answers.subschema_for::<FoldAnswer>();
    answers.subschema_for::<QueryAnswer>();
    answers.subschema_for::<ExecuteAnswer>();
    answers.subschema_for::<OpenedAnswer>();
    answers.subschema_for::<BegunAnswer>();
    answers.subschema_for::<PushedAnswer>();
    answers.subschema_for::<crate::analyzer::FileSummary>();
    answers.subschema_for::<FilesAnswer>();
    answers.subschema_for::<UsageAnswer>();
    answers.subschema_for::<OverviewAnswer>();
    answers.subschema_for::<ListAnswer>();
    answers.subschema_for::<ViewAnswer>();
    answers.subschema_for::<crate::analyzer::work::WorkOverview>();
    answers.subschema_for::<ClosedAnswer>();
    let answer_defs: BTreeMap<String, Value> = answers.take_definitions(true).into_iter().collect();
    let mut request_defs: BTreeMap<String, Value> =
        requests.take_definitions(true).into_iter().collect();
    for union in ["AbiRequest", "AnalyzerRequest"] {
        if let Some(schema) = request_defs.get_mut(union) {
            describe_ops(schema);
        }
    }
    let renamed: BTreeMap<String, String> = request_defs
        .iter()
        .filter(|(name, schema)| answer_defs.get(*name).is_some_and(|a| a != *schema))
        .map(|(name, _)| (name.clone(), format!("{name}Input")))
        .collect();

    let mut out = String::new();
    out.push_str("// The Baton core's JSON ABI (docs/embedding.md) as TypeScript types.\n");
    out.push_str("// Generated from the core's request and answer types by `BATON_UPDATE_DOCS=1 cargo test -p baton-tests --test suite typescript`: do not edit.\n\n");
    out.push_str(&format!(
        "/** The ABI version these types describe. */\nexport type AbiVersion = {};\n\n",
        super::ABI_VERSION
    ));
    out.push_str("/** Every request the core answers. */\nexport type Request = AbiRequest | AnalyzerRequest;\n\n");
    out.push_str("/** Which answer each op's `ok` holds. */\nexport interface Answers {\n");
    for (op, answer) in ANSWER_TYPES {
        out.push_str(&format!("  {op}: {answer};\n"));
    }
    out.push_str("}\n\n");
    out.push_str("/** An error code from docs/errors.md. */\nexport type ErrorCode =\n");
    for code in ErrorCode::ALL {
        out.push_str(&format!("  | {:?}\n", code.as_str()));
    }
    out.push_str(";\n\n");
    out.push_str("/** A refusal: the code, a message a person can act on, and structured details. */\nexport interface AbiError {\n  code: ErrorCode;\n  message: string;\n  details: { [key: string]: unknown };\n}\n\n");
    out.push_str("/** What the core answers to a request of op `Op`. */\nexport type Envelope<Op extends keyof Answers> = { ok: Answers[Op] } | { error: AbiError };\n");
    for (name, schema) in &request_defs {
        let name = renamed.get(name).unwrap_or(name);
        out.push_str(&definition(name, schema, &renamed));
    }
    for (name, schema) in &answer_defs {
        if request_defs.get(name) == Some(schema) {
            continue;
        }
        out.push_str(&definition(name, schema, &BTreeMap::new()));
    }
    out.lines()
        .map(str::trim_end)
        .fold(String::new(), |mut text, line| {
            text.push_str(line);
            text.push('\n');
            text
        })
}

/// Puts each op's summary and field meanings (from [`super::OPS`], where the docs take them
/// too) on its variant of a request union.
fn describe_ops(union: &mut Value) {
    let Some(variants) = union.get_mut("oneOf").and_then(Value::as_array_mut) else {
        return;
    };
    for variant in variants {
        let Some(op) = variant
            .pointer("/properties/op/const")
            .and_then(Value::as_str)
            .and_then(|name| super::OPS.iter().find(|op| op.name == name))
        else {
            continue;
        };
        variant["description"] = Value::String(op.summary.to_owned());
        if let Some(properties) = variant.get_mut("properties").and_then(Value::as_object_mut) {
            for field in op.fields {
                if let Some(property) = properties.get_mut(field.name) {
                    property["description"] = Value::String(field.meaning.to_owned());
                }
            }
        }
    }
}

fn definition(name: &str, schema: &Value, renamed: &BTreeMap<String, String>) -> String {
    let mut out = String::from("\n");
    out.push_str(&doc(schema, ""));
    out.push_str(&format!(
        "export type {name} = {};\n",
        ts(schema, renamed, "")
    ));
    out
}

fn doc(schema: &Value, indent: &str) -> String {
    match schema.get("description").and_then(Value::as_str) {
        Some(text) => {
            let text = text.replace("*/", "*\\/");
            let lines: Vec<&str> = text.lines().collect();
            if lines.len() == 1 {
                format!("{indent}/** {} */\n", lines[0])
            } else {
                let mut out = format!("{indent}/**\n");
                for line in lines {
                    out.push_str(&format!("{indent} * {line}\n").replace(" * \n", " *\n"));
                }
                out.push_str(&format!("{indent} */\n"));
                out
            }
        }
        None => String::new(),
    }
}

/// The TypeScript type of a schema.
fn ts(schema: &Value, renamed: &BTreeMap<String, String>, indent: &str) -> String {
    let Some(object) = schema.as_object() else {
        return if schema == &Value::Bool(false) {
            "never".into()
        } else {
            "unknown".into()
        };
    };
    if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
        let name = reference.rsplit('/').next().unwrap_or(reference);
        return renamed
            .get(name)
            .cloned()
            .unwrap_or_else(|| name.to_owned());
    }
    if let Some(constant) = object.get("const") {
        return constant.to_string();
    }
    if let Some(values) = object.get("enum").and_then(Value::as_array) {
        return values
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join(" | ");
    }
    for union in ["oneOf", "anyOf"] {
        if let Some(variants) = object.get(union).and_then(Value::as_array) {
            let mut base = object.clone();
            base.remove(union);
            base.remove("description");
            let shared = has_shape(&base).then(|| ts(&Value::Object(base), renamed, indent));
            let parts: Vec<String> = variants
                .iter()
                .map(|v| {
                    let t = ts(v, renamed, indent);
                    let t = match &shared {
                        Some(shared) => format!("({shared} & {t})"),
                        None => t,
                    };
                    let doc = doc(v, indent);
                    if doc.is_empty() {
                        t
                    } else {
                        format!("\n{doc}{indent}{t}")
                    }
                })
                .collect();
            return parts.join(" | ");
        }
    }
    if let Some(all) = object.get("allOf").and_then(Value::as_array) {
        return all
            .iter()
            .map(|v| ts(v, renamed, indent))
            .collect::<Vec<_>>()
            .join(" & ");
    }
    match object.get("type") {
        Some(Value::Array(types)) => types
            .iter()
            .map(|t| {
                let mut one = object.clone();
                one.insert("type".into(), t.clone());
                ts(&Value::Object(one), renamed, indent)
            })
            .collect::<Vec<_>>()
            .join(" | "),
        Some(Value::String(kind)) => match kind.as_str() {
            "string" => "string".into(),
            "integer" | "number" => "number".into(),
            "boolean" => "boolean".into(),
            "null" => "null".into(),
            "array" => array(object, renamed, indent),
            "object" => object_type(object, renamed, indent),
            _ => "unknown".into(),
        },
        _ if object.contains_key("properties") => object_type(object, renamed, indent),
        _ => "unknown".into(),
    }
}

fn has_shape(object: &Map<String, Value>) -> bool {
    object.contains_key("type") || object.contains_key("properties")
}

fn array(object: &Map<String, Value>, renamed: &BTreeMap<String, String>, indent: &str) -> String {
    if let Some(items) = object.get("prefixItems").and_then(Value::as_array) {
        let parts: Vec<String> = items.iter().map(|i| ts(i, renamed, indent)).collect();
        return format!("[{}]", parts.join(", "));
    }
    match object.get("items") {
        Some(items) => {
            let item = ts(items, renamed, indent);
            if item.contains(' ') {
                format!("({item})[]")
            } else {
                format!("{item}[]")
            }
        }
        None => "unknown[]".into(),
    }
}

fn object_type(
    object: &Map<String, Value>,
    renamed: &BTreeMap<String, String>,
    indent: &str,
) -> String {
    let required: Vec<&str> = object
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let inner = format!("{indent}  ");
    let mut fields = String::new();
    if let Some(properties) = object.get("properties").and_then(Value::as_object) {
        for (name, schema) in properties {
            fields.push_str(&doc(schema, &inner));
            let optional = if required.contains(&name.as_str()) {
                ""
            } else {
                "?"
            };
            fields.push_str(&format!(
                "{inner}{name}{optional}: {};\n",
                ts(schema, renamed, &inner)
            ));
        }
    }
    match object.get("additionalProperties") {
        Some(Value::Bool(false)) | None => {}
        Some(Value::Bool(true)) => {
            fields.push_str(&format!("{inner}[key: string]: unknown;\n"));
        }
        Some(values) => {
            fields.push_str(&format!(
                "{inner}[key: string]: {};\n",
                ts(values, renamed, &inner)
            ));
        }
    }
    if fields.is_empty() {
        if object.contains_key("additionalProperties") {
            return "Record<string, never>".into();
        }
        return "{ [key: string]: unknown }".into();
    }
    format!("{{\n{fields}{indent}}}")
}
