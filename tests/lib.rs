//! Shared helpers for the cross-host tests.
