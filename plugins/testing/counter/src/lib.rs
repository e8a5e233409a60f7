//! Test plugin, build A: a stateful counter in the AI slot that advances by 1 per tick.
//! Builds B (`counter-v2`, +2 per tick) and `counter-wrong-abi` compile the same body.

/// How much the counter advances per tick in this build.
pub const STEP: u64 = 1;
/// Interface major this build claims.
pub const REPORTED_ABI_MAJOR: u32 = iron3d_abi::ABI_MAJOR;

pub mod body;
