//! Unit and property tests of the crate, grouped by responsibility; fixtures are built in
//! code by the writer or by the free-form layout builder in `support`.

mod compat;
mod edit;
mod lookup;
mod props;
mod strict;
mod support;
