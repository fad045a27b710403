//! The ledger's facts: the event wire format and its payloads, the session view folded from
//! events, the storage traits hosts implement, and the archive formats (monthly rollups from
//! compaction, the checkpoint). Nothing here judges a session; that is `lifecycle`.

pub mod activity;
pub mod checkpoint;
pub mod compaction;
pub mod event;
pub mod fold;
pub mod liveness;
pub mod record;
pub mod session;
pub mod store;
