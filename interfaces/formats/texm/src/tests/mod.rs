//! Unit and property tests of the crate, grouped by responsibility; fixtures are built in
//! code by the writer or by the raw payload builder in `support`.

mod chain;
mod codec;
mod page;
mod palette;
mod props;
mod strict;
mod support;
mod write;
