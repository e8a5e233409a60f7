//! Test plugin built against a foreign interface major (99): the host must refuse it.

/// How much the counter advances per tick in this build.
pub const STEP: u64 = 1;
/// Interface major this build claims (deliberately wrong).
pub const REPORTED_ABI_MAJOR: u32 = 99;

#[path = "../../counter/src/body.rs"]
pub mod body;
