//! Test plugin with a misdeclared export: its `describe` calls itself until the stack
//! overflows (what `export_plugin!(describe = describe, …)` did before the macro named
//! its own functions apart). Loading it must be refused with a message naming the
//! library, and the mission must go on (the load probe, PD-HOST-LOAD-PROBE).

use iron3d_abi::{Plugin, PluginDescription, PluginError};
use std::hint::black_box;

/// Recurses forever; each frame keeps a buffer alive so the recursion cannot become a
/// loop and the stack overflows within milliseconds.
pub fn describe() -> PluginDescription {
    let mut frame = [0u8; 1024];
    black_box(&mut frame);
    let d = if black_box(true) {
        describe()
    } else {
        PluginDescription::current("bad-describe", "0", Vec::new())
    };
    black_box(&frame);
    d
}

/// Never reached: the library is refused while it is described.
pub fn create(factory: &str) -> Result<Box<dyn Plugin>, PluginError> {
    Err(PluginError::failed(format!("no factory {factory}")))
}

iron3d_abi::export_plugin!(describe = describe, create = create);
