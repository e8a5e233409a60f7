//! Unit tests: strict checks (one per check), round-trips, properties, sampling.

mod anim;
mod props;
mod roundtrip;
mod strict;
mod support;
