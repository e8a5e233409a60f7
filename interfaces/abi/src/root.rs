//! The frozen root module of interface major 1 and the export macro for plugin libraries.

use crate::log::LogSinkBox;
use crate::subsystem::SubsystemBox;
use crate::types::{PluginDescription, PluginError};
use abi_stable::StableAbi;
use abi_stable::library::RootModule;
use abi_stable::sabi_types::VersionStrings;
use abi_stable::std_types::{RResult, RStr, RString};

/// Interface major version: plugins of another major are refused.
pub const ABI_MAJOR: u32 = 1;
/// Interface minor version: additive changes only (see the crate's versioning policy).
pub const ABI_MINOR: u32 = 1;

/// How a plugin installs its log bridge.
#[repr(u8)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogMode {
    /// The plugin was loaded as its own image (a cdylib): it may install the bridge as its
    /// image's global `tracing` dispatcher once, so calls pay nothing for logging.
    ImageGlobal,
    /// The plugin shares the host's `tracing` globals (linked in as an rlib): the bridge is
    /// scoped around each call and never installed globally (that would loop the host's
    /// own events back into itself).
    Scoped,
}

/// What the host passes to a factory.
#[repr(C)]
#[derive(StableAbi)]
pub struct HostContext {
    /// The registry slot or library name the instance is created for (log tag).
    pub plugin: RString,
    /// Where the instance's `tracing` events go.
    pub log: LogSinkBox,
    /// How to install the bridge.
    pub log_mode: LogMode,
}

/// Root module of every plugin library for interface major 1. **Frozen**: never add,
/// remove or change a field (newer hosts reject older prefix modules with fewer fields,
/// abi_stable issue #118). New capabilities come as `Subsystem` methods with defaults or
/// as a new root module for the next major.
#[repr(C)]
#[derive(StableAbi)]
#[sabi(kind(Prefix(prefix_ref = PluginRootV1Ref)))]
#[sabi(missing_field(panic))]
pub struct PluginRootV1 {
    /// Describes the library: name, version, interface version, factories.
    pub describe: extern "C" fn() -> PluginDescription,
    /// Creates an instance from factory `factory`. Never panics across the boundary.
    #[sabi(last_prefix_field)]
    pub create:
        extern "C" fn(factory: RStr<'_>, host: HostContext) -> RResult<SubsystemBox, PluginError>,
}

impl RootModule for PluginRootV1Ref {
    abi_stable::declare_root_module_statics! {PluginRootV1Ref}
    const BASE_NAME: &'static str = "iron3d_plugin";
    const NAME: &'static str = "iron3d plugin (interface 1)";
    // Pinned, not the crate version: compatibility is decided by ABI_MAJOR/ABI_MINOR in
    // the description, so a newer engine of the same major still loads older plugins.
    const VERSION_STRINGS: VersionStrings = VersionStrings::new("1.0.0");
}

/// Exports a plugin library's root module.
///
/// ```text
/// iron3d_abi::export_plugin!(describe = my_describe, create = my_create);
/// ```
/// `describe` is `fn() -> PluginDescription`, `create` is
/// `fn(&str, HostContext) -> RResult<SubsystemBox, PluginError>`; the generated
/// `extern "C"` wrappers run both inside [`crate::guard`]. The plugin crate must depend
/// on `abi_stable` (the export attribute expands to `::abi_stable` paths).
#[macro_export]
macro_rules! export_plugin {
    (describe = $describe:path, create = $create:path) => {
        #[doc(hidden)]
        pub mod __iron3d_export {
            extern "C" fn describe() -> $crate::PluginDescription {
                match ::std::panic::catch_unwind(|| $describe()) {
                    Ok(d) => d,
                    Err(_) => $crate::PluginDescription {
                        name: "panicked-describe".into(),
                        version: "".into(),
                        abi_major: 0,
                        abi_minor: 0,
                        factories: ::abi_stable::std_types::RVec::new(),
                    },
                }
            }

            extern "C" fn create(
                factory: ::abi_stable::std_types::RStr<'_>,
                host: $crate::HostContext,
            ) -> ::abi_stable::std_types::RResult<$crate::SubsystemBox, $crate::PluginError> {
                $crate::guard("create", move || $create(factory.as_str(), host))
            }

            #[::abi_stable::export_root_module]
            pub fn root_module() -> $crate::PluginRootV1Ref {
                use ::abi_stable::prefix_type::PrefixTypeTrait;
                $crate::PluginRootV1 { describe, create }.leak_into_prefix()
            }
        }
    };
}
