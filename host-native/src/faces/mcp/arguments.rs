//! A tool's arguments as Baton reads them: checked against the very schema `tools/list`
//! shows (required, unknown, mistyped, control characters), in words a person can act on,
//! and that schema compacted once per type.

use super::*;

/// A tool's arguments, read by Baton: the schema `tools/list` shows is the one they are
/// checked against, and a mismatch is Baton's coded `INVALID_ARGUMENT` rather than rmcp's
/// protocol error. (The `#[tool]` macro takes a type named `Parameters` as the schema's.)
#[derive(Debug)]
pub(super) struct Parameters<P>(pub(super) Result<P, Error>);

impl<P: JsonSchema> JsonSchema for Parameters<P> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        P::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        P::json_schema(generator)
    }
}

impl<S, P> FromContextPart<ToolCallContext<'_, S>> for Parameters<P>
where
    P: DeserializeOwned + JsonSchema + 'static,
{
    fn from_context_part(context: &mut ToolCallContext<'_, S>) -> Result<Self, ErrorData> {
        let arguments = context.arguments.take().unwrap_or_default();
        Ok(Parameters(read_arguments::<P>(arguments)))
    }
}

/// Checks arguments against `P`'s schema (required, unknown and mistyped parameters, named
/// in words), then reads them; what the schema cannot say is serde's, with the path.
pub(super) fn read_arguments<P: DeserializeOwned + JsonSchema + 'static>(
    arguments: JsonObject,
) -> Result<P, Error> {
    if let Some(schema) = compact_schema_of::<P>() {
        check_arguments(&schema, &arguments)?;
    }
    serde_path_to_error::deserialize(Value::Object(arguments)).map_err(|err| {
        let path = err.path().to_string();
        let field = if path == "." { "arguments" } else { &path };
        Error::invalid(field, plain_serde_words(&err.inner().to_string()))
    })
}

/// `P`'s schema as `tools/list` shows it, compacted once per type and thread rather than on
/// every call.
pub(super) fn compact_schema_of<P: JsonSchema + 'static>() -> Option<Arc<JsonObject>> {
    use std::any::TypeId;
    use std::cell::RefCell;
    thread_local! {
        static COMPACTED: RefCell<HashMap<TypeId, Arc<JsonObject>>> = RefCell::default();
    }
    COMPACTED.with(|cache| {
        if let Some(schema) = cache.borrow().get(&TypeId::of::<P>()) {
            return Some(schema.clone());
        }
        let schema = Arc::new(compact_schema(&*schema_for_input::<P>().ok()?));
        cache.borrow_mut().insert(TypeId::of::<P>(), schema.clone());
        Some(schema)
    })
}

/// Whether `c` is a control character no parameter takes (tab, newline and carriage return
/// pass).
fn is_refused_control(c: char) -> bool {
    c.is_control() && !matches!(c, '\t' | '\n' | '\r')
}

/// The first refused control character in a value's strings, with where it is (`plan[2]`).
fn control_character(path: String, value: &Value) -> Option<(String, char)> {
    match value {
        Value::String(text) => text
            .chars()
            .find(|c| is_refused_control(*c))
            .map(|c| (path, c)),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, item)| control_character(format!("{path}[{i}]"), item)),
        Value::Object(fields) => control_in_fields(&path, fields),
        _ => None,
    }
}

/// The first refused control character in an object's keys or values (`prefix.key`, or
/// `key` at the top).
fn control_in_fields(prefix: &str, fields: &JsonObject) -> Option<(String, char)> {
    fields.iter().find_map(|(key, item)| {
        let at = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        match key.chars().find(|c| is_refused_control(*c)) {
            Some(c) => Some((at, c)),
            None => control_character(at, item),
        }
    })
}

/// The top-level check: no control characters, every required parameter present, none
/// unknown, each of its type.
pub(super) fn check_arguments(schema: &JsonObject, arguments: &JsonObject) -> Result<(), Error> {
    let found = control_in_fields("", arguments);
    if let Some((at, c)) = found {
        return Err(Error::invalid(
            &at,
            format!(
                "holds the control character U+{:04X}, which no parameter takes (tab, newline and carriage return are the only ones)",
                u32::from(c)
            ),
        )
        .with("parameter", at.as_str())
        .with("character", format!("U+{:04X}", u32::from(c))));
    }
    let empty = serde_json::Map::new();
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let takes = || {
        let names: Vec<&str> = properties.keys().map(String::as_str).collect();
        if names.is_empty() {
            "no parameters".to_owned()
        } else {
            names.join(", ")
        }
    };
    for name in arguments.keys() {
        if !properties.contains_key(name) {
            return Err(Error::invalid(
                name,
                format!("is not a parameter of this tool; it takes: {}", takes()),
            )
            .with("parameter", name.as_str())
            .with(
                "parameters",
                Value::from(properties.keys().cloned().collect::<Vec<_>>()),
            ));
        }
    }
    let required = schema.get("required").and_then(Value::as_array);
    for name in required.into_iter().flatten().filter_map(Value::as_str) {
        if !arguments.contains_key(name) {
            let about = properties[name]["description"].as_str().unwrap_or("");
            return Err(Error::invalid(
                name,
                format!(
                    "is required ({}): {about}",
                    expected_words(&properties[name])
                ),
            )
            .with("parameter", name)
            .with("expected", expected_words(&properties[name])));
        }
    }
    for (name, value) in arguments {
        let property = &properties[name];
        let optional = !required
            .into_iter()
            .flatten()
            .any(|r| r.as_str() == Some(name.as_str()));
        if !(value.is_null() && optional || type_fits(property, value)) {
            let expected = expected_words(property);
            return Err(Error::invalid(
                name,
                format!("must be {expected}, not {}", value_words(value)),
            )
            .with("parameter", name.as_str())
            .with("expected", expected)
            .with("got", value_words(value)));
        }
    }
    Ok(())
}

/// The JSON types a property's schema allows (empty when it says none, e.g. a `$ref`).
pub(super) fn schema_types(property: &Value) -> Vec<&str> {
    match &property["type"] {
        Value::String(kind) => vec![kind.as_str()],
        Value::Array(kinds) => kinds.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

pub(super) fn type_fits(property: &Value, value: &Value) -> bool {
    let kinds = schema_types(property);
    if kinds.is_empty() {
        return true;
    }
    kinds.iter().any(|kind| match (*kind, value) {
        ("null", Value::Null) => true,
        ("string", Value::String(_)) => true,
        ("boolean", Value::Bool(_)) => true,
        ("integer", Value::Number(n)) => n.is_i64() || n.is_u64(),
        ("number", Value::Number(_)) => true,
        ("array", Value::Array(_)) => true,
        ("object", Value::Object(_)) => true,
        _ => false,
    })
}

/// What a property takes, in words: "a whole number from 0 to 100", "text", "a list of text".
pub(super) fn expected_words(property: &Value) -> String {
    let kinds: Vec<&str> = schema_types(property)
        .into_iter()
        .filter(|k| *k != "null")
        .collect();
    let one = |kind: &str| -> String {
        match kind {
            "string" => match property["enum"].as_array() {
                Some(values) => format!(
                    "one of {}",
                    values
                        .iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                None => "text (a JSON string)".to_owned(),
            },
            "integer" => match (property["minimum"].as_i64(), property["maximum"].as_i64()) {
                (Some(lo), Some(hi)) => format!("a whole number from {lo} to {hi}"),
                (Some(lo), None) if lo >= 0 => "a whole number, 0 or more".to_owned(),
                _ => "a whole number".to_owned(),
            },
            "number" => "a number".to_owned(),
            "boolean" => "true or false".to_owned(),
            "array" => match schema_types(&property["items"]).first() {
                Some(&"string") => "a list of text".to_owned(),
                Some(&"integer") => "a list of whole numbers".to_owned(),
                _ => "a list".to_owned(),
            },
            "object" => "an object".to_owned(),
            other => other.to_owned(),
        }
    };
    match kinds.as_slice() {
        [] => "a value of the documented shape".to_owned(),
        kinds => kinds
            .iter()
            .map(|k| one(k))
            .collect::<Vec<_>>()
            .join(" or "),
    }
}

/// A JSON value, described: `the text "50"`, `the number 5`, `a list`.
pub(super) fn value_words(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => {
            let shown: String = s.chars().take(40).collect();
            format!("the text {shown:?}")
        }
        Value::Array(_) => "a list".to_owned(),
        Value::Object(_) => "an object".to_owned(),
    }
}

/// serde's message with Rust's type names put in words.
pub(super) fn plain_serde_words(message: &str) -> String {
    let mut text = message.to_owned();
    for (rust, words) in [
        ("expected u8", "expected a whole number from 0 to 255"),
        ("expected u16", "expected a whole number from 0 to 65535"),
        ("expected u32", "expected a whole number, 0 or more"),
        ("expected u64", "expected a whole number, 0 or more"),
        ("expected i64", "expected a whole number"),
        ("expected a sequence", "expected a list"),
        ("expected a map", "expected an object"),
        ("invalid type: string", "invalid type: text"),
        ("invalid type: sequence", "invalid type: a list"),
        ("invalid type: map", "invalid type: an object"),
    ] {
        text = text.replace(rust, words);
    }
    text
}

/// A tool's schema as an agent needs it, small enough to read at the start of every
/// conversation: no `$schema`, no `format`, no empty defaults, `null` left implicit in an
/// optional parameter, and an enumeration written out where it is used.
pub(super) fn compact_schema(schema: &JsonObject) -> JsonObject {
    let defs = schema.get("$defs").cloned().unwrap_or(Value::Null);
    let mut out = schema.clone();
    out.remove("$schema");
    out.remove("additionalProperties");
    // Every tool's `session_id` means the same: one short description, the tool's says the
    // rest.
    if let Some(Value::Object(id)) = out
        .get_mut("properties")
        .and_then(|p| p.get_mut("session_id"))
    {
        id.insert(
            "description".into(),
            "Id, 8+ hex of either end, or path.".into(),
        );
    }
    if let Some(Value::Object(properties)) = out.get_mut("properties") {
        for property in properties.values_mut() {
            if let Value::Object(property) = property {
                compact_property(property, &defs);
            }
        }
    }
    // A definition an object parameter refers to (a run report) is written out in place.
    if let Some(Value::Object(properties)) = out.get_mut("properties") {
        for property in properties.values_mut() {
            let Some(name) = property["$ref"]
                .as_str()
                .and_then(|r| r.strip_prefix("#/$defs/"))
            else {
                continue;
            };
            let Some(Value::Object(mut def)) = defs.get(name).cloned() else {
                continue;
            };
            def.remove("additionalProperties");
            def.remove("description");
            if let Some(Value::Object(fields)) = def.get_mut("properties") {
                // Fields that exist only to be refused are not offered.
                fields.retain(|_, f| {
                    !f["description"]
                        .as_str()
                        .is_some_and(|d| d.starts_with("Never send"))
                });
                for field in fields.values_mut() {
                    if let Value::Object(field) = field {
                        compact_property(field, &Value::Null);
                    }
                }
            }
            if let Value::Object(property) = property {
                property.remove("$ref");
                property.extend(def);
            }
        }
    }
    out.remove("$defs");
    out
}

pub(super) fn compact_property(property: &mut JsonObject, defs: &Value) {
    property.remove("format");
    if matches!(
        property.get("default"),
        Some(Value::Null | Value::Bool(false))
    ) || property.get("default") == Some(&Value::Array(Vec::new()))
        || property.get("default") == Some(&Value::from(0))
    {
        property.remove("default");
    }
    if let Some(Value::Array(kinds)) = property.get("type") {
        let kinds: Vec<Value> = kinds.iter().filter(|k| *k != "null").cloned().collect();
        if let [kind] = kinds.as_slice() {
            property.insert("type".into(), kind.clone());
        }
    }
    if property.get("maximum") == Some(&Value::from(255)) {
        property.remove("maximum");
    }
    if property.get("minimum") == Some(&Value::from(0)) {
        property.remove("minimum");
    }
    // `anyOf: [{$ref: an enumeration}, {type: null}]` becomes `enum: [...]`.
    let enumeration = property
        .get("anyOf")
        .and_then(Value::as_array)
        .and_then(|options| {
            options.iter().find_map(|o| {
                let name = o["$ref"].as_str()?.strip_prefix("#/$defs/")?;
                let values: Option<Vec<Value>> = defs[name]["oneOf"]
                    .as_array()?
                    .iter()
                    .map(|v| v.get("const").cloned())
                    .collect();
                values
            })
        });
    if let Some(values) = enumeration {
        property.remove("anyOf");
        property.insert("type".into(), Value::from("string"));
        property.insert("enum".into(), Value::Array(values));
    } else if let Some(Value::Array(options)) = property.get("anyOf") {
        let options: Vec<Value> = options
            .iter()
            .filter(|o| o.get("type") != Some(&Value::from("null")))
            .cloned()
            .collect();
        if let [only] = options.as_slice() {
            let only = only.clone();
            property.remove("anyOf");
            if let Value::Object(only) = only {
                property.extend(only);
            }
        }
    }
}
