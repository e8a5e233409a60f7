//! Test plugin, build B: the counter body of build A with a step of 2 per tick.

/// How much the counter advances per tick in this build.
pub const STEP: u64 = 2;
/// Interface major this build claims.
pub const REPORTED_ABI_MAJOR: u32 = iron3d_abi::ABI_MAJOR;

#[path = "../../counter/src/body.rs"]
pub mod body;
