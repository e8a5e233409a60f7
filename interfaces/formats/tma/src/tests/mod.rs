//! Unit tests of the reader and writer: round trips, one test per strict check and per
//! malformed input kind, the compatible mode's diagnostics, and property tests.

mod compat;
mod props;
mod roundtrip;
mod strict;
mod support;
