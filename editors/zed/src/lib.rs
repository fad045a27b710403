//! Zed extension: registers Baton's MCP server (`baton mcp`, on stdio) as Zed's `baton`
//! context server. The binary is `baton` on the PATH unless the user's settings name another
//! (`context_servers.baton.command`); the server finds the project's `.baton/` ledger itself.

use zed_extension_api::{self as zed, settings::ContextServerSettings};

/// The context server's id, as `extension.toml` registers it.
const SERVER_ID: &str = "baton";

struct BatonExtension;

/// The command that starts the server: the user's `command` setting if any, else
/// `baton mcp` from the PATH.
fn server_command(configured: Option<zed::settings::CommandSettings>) -> zed::Command {
    let (path, arguments, env) = match configured {
        Some(c) => (c.path, c.arguments, c.env),
        None => (None, None, None),
    };
    let mut env: Vec<(String, String)> = env.unwrap_or_default().into_iter().collect();
    env.sort();
    zed::Command {
        command: path.unwrap_or_else(|| "baton".to_owned()),
        args: arguments.unwrap_or_else(|| vec!["mcp".to_owned()]),
        env,
    }
}

impl zed::Extension for BatonExtension {
    fn new() -> Self {
        BatonExtension
    }

    fn context_server_command(
        &mut self,
        context_server_id: &zed::ContextServerId,
        project: &zed::Project,
    ) -> zed::Result<zed::Command> {
        if context_server_id.as_ref() != SERVER_ID {
            return Err(format!(
                "this extension serves the `{SERVER_ID}` context server, not `{}`",
                context_server_id.as_ref()
            ));
        }
        let settings = ContextServerSettings::for_project(SERVER_ID, project).ok();
        Ok(server_command(settings.and_then(|s| s.command)))
    }
}

zed::register_extension!(BatonExtension);
