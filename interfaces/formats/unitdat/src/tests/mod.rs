//! Unit and property tests of the crate, grouped by responsibility; fixtures are built in
//! code by the writers or by the raw builders in `support`.

mod assembly;
mod dat;
mod objref;
mod props;
mod resolve;
mod support;
