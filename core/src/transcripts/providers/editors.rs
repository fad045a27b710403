//! The editors built on VS Code whose user folders agents keep their sessions in (the
//! extensions' tasks, Copilot Chat's sessions, Cursor's own store), as places the registry
//! names.

use super::{Base, Editor, Place};

/// VS Code, Insiders and VSCodium: where Copilot Chat runs.
pub(super) const VS_CODES: &[Editor] = &[
    Editor {
        base: Base::Config,
        user: "Code/User",
    },
    Editor {
        base: Base::Config,
        user: "Code - Insiders/User",
    },
    Editor {
        base: Base::Config,
        user: "VSCodium/User",
    },
];

/// The editors an extension such as Cline runs in: VS Code, Insiders, VSCodium, Cursor and
/// Windsurf.
pub(super) const EXTENSION_EDITORS: &[Editor] = &[
    VS_CODES[0],
    VS_CODES[1],
    VS_CODES[2],
    Editor {
        base: Base::Config,
        user: "Cursor/User",
    },
    Editor {
        base: Base::Config,
        user: "Windsurf/User",
    },
];

/// A remote VS Code server's user folder (on the Linux hosts of remote editors).
pub(super) const VS_CODE_SERVER: Editor = Editor {
    base: Base::Home,
    user: ".vscode-server/data/User",
};

/// VS Code, Insiders, VSCodium and a remote VS Code server.
pub(super) const VS_CODES_AND_SERVER: &[Editor] =
    &[VS_CODES[0], VS_CODES[1], VS_CODES[2], VS_CODE_SERVER];

/// The extensions' editors and a remote VS Code server.
pub(super) const EXTENSION_EDITORS_AND_SERVER: &[Editor] = &[
    EXTENSION_EDITORS[0],
    EXTENSION_EDITORS[1],
    EXTENSION_EDITORS[2],
    EXTENSION_EDITORS[3],
    EXTENSION_EDITORS[4],
    VS_CODE_SERVER,
];

/// Cursor's editor store: one for all its windows' chats.
pub(super) const CURSOR_HOME: &[Place] = &[Place {
    base: Base::Editors(&[Editor {
        base: Base::Config,
        user: "Cursor/User",
    }]),
    path: "globalStorage",
}];
