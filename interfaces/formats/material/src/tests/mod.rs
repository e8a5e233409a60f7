//! Unit tests: WEAR grammar and losslessness, MAT0 versions and one test per strict
//! check, the fallback order, phase selection at the boundaries of every family, and
//! property tests (valid inputs re-encode byte for byte; arbitrary bytes never panic).

mod mat0;
mod phase;
mod props;
mod resolve;
mod wear;
