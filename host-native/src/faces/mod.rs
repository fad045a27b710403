//! What a person or an agent talks to: the command line (`cli`, which dispatches to the rest),
//! the MCP server, the agents' hooks, the status line, `watch`, the page's server and the demo;
//! and how they lay out human text (`table`, `present`). Faces parse and print; every
//! operation they offer is an `ops` call.

pub mod cli;
pub mod demo;
pub mod hook;
pub mod mcp;
pub mod otel;
pub mod present;
pub mod statusline;
pub mod table;
pub mod tui;
pub mod watch;
pub mod web;
