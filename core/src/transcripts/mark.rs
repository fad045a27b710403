//! Where a session of an agent's database stood when it was last read: what says it changed
//! (a mark that moved), so a pass rebuilds only those sessions.

/// Where a session stood when it was last read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Mark {
    /// The newest write to any of its rows (ms).
    pub newest: i64,
    /// Its rows.
    pub rows: u64,
    /// The sum of its rows' write times (OpenCode) or sizes (Cursor).
    pub written: i64,
}
