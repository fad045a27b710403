//! Where an agent's session worked, from what the agent wrote about it: a folder's URI as a
//! path (VS Code's `workspace.json`, Amp's trees), one rule for every reader that meets one.

use serde_json::Value;

/// The path a folder's URI names: `file:///home/dev/app` is `/home/dev/app`, percent escapes
/// decoded (`%20`), a Windows drive's leading slash dropped (`file:///c%3A/src` is `c:/src`),
/// a share kept as one (`file://server/share` is `//server/share`); a remote folder
/// (`vscode-remote://ssh-remote+box/srv/app`) is the path on that machine. Anything else,
/// or a URI that decodes to no text, names none.
pub fn path_of_uri(uri: &str) -> Option<String> {
    let (scheme, rest) = uri.split_once("://")?;
    let (authority, path) = match rest.find('/') {
        Some(at) => rest.split_at(at),
        None => (rest, ""),
    };
    let path = match scheme {
        "file" if authority.is_empty() || authority == "localhost" => decode(path)?,
        "file" => format!("//{authority}{}", decode(path)?),
        "vscode-remote" | "vscode-vfs" => decode(path)?,
        _ => return None,
    };
    // `/c:/src`: a drive letter after the slash every file URI's path starts with.
    let bytes = path.as_bytes();
    let path = if bytes.len() >= 3
        && bytes[0] == b'/'
        && bytes[1].is_ascii_alphabetic()
        && bytes[2] == b':'
    {
        path[1..].to_owned()
    } else {
        path
    };
    (!path.is_empty()).then_some(path)
}

/// `%XX` escapes decoded; a broken escape is kept as written, bytes that are no UTF-8 name no
/// path.
fn decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&high), Some(&low)) if hex(high).is_some() && hex(low).is_some() => {
                out.push((hex(high)? * 16 + hex(low)?) as u8);
                i += 3;
            }
            (byte, _, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// The folder a VS Code workspace's window had open, from its `workspace.json`: `folder`, or
/// for a multi-root workspace the folder its `.code-workspace` file is in.
pub fn workspace_folder(bytes: &[u8]) -> Option<String> {
    let value: Value = serde_json::from_slice(bytes).ok()?;
    if let Some(folder) = value["folder"].as_str().and_then(path_of_uri) {
        return Some(folder);
    }
    let file = value["workspace"].as_str().and_then(path_of_uri)?;
    let at = file.rfind(['/', '\\'])?;
    Some(file[..at.max(1)].to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_become_paths() {
        let path = |uri| path_of_uri(uri);
        assert_eq!(
            path("file:///home/dev/app").as_deref(),
            Some("/home/dev/app")
        );
        assert_eq!(
            path("file:///home/dev/my%20app").as_deref(),
            Some("/home/dev/my app")
        );
        assert_eq!(path("file:///c%3A/src/app").as_deref(), Some("c:/src/app"));
        assert_eq!(
            path("file://server/share/app").as_deref(),
            Some("//server/share/app")
        );
        assert_eq!(
            path("vscode-remote://ssh-remote%2Bbox/srv/app").as_deref(),
            Some("/srv/app")
        );
        assert_eq!(
            path("file:///bad%zzescape").as_deref(),
            Some("/bad%zzescape")
        );
        assert_eq!(path("file:///%ff%fe"), None);
        assert_eq!(path("file://"), None);
        assert_eq!(path("https://example.com/x"), None);
        assert_eq!(path("/home/dev/app"), None);
        assert_eq!(path("file:///ends%2"), Some("/ends%2".to_owned()));
    }

    #[test]
    fn a_workspace_names_its_folder() {
        let folder = |text: &str| workspace_folder(text.as_bytes());
        assert_eq!(
            folder(r#"{"folder":"file:///home/dev/app-2"}"#).as_deref(),
            Some("/home/dev/app-2")
        );
        assert_eq!(
            folder(r#"{"workspace":"file:///home/dev/all.code-workspace"}"#).as_deref(),
            Some("/home/dev")
        );
        assert_eq!(
            folder(r#"{"workspace":"file:///all.code-workspace"}"#).as_deref(),
            Some("/")
        );
        assert_eq!(folder(r#"{"folder":7}"#), None);
        assert_eq!(folder("not json"), None);
        assert_eq!(folder("[]"), None);
    }
}
