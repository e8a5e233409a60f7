//! The root module of interface major 2 and the export macro for plugin libraries.

use crate::log::LogSinkBox;
use crate::plugin::PluginInstanceBox;
use crate::types::{PluginDescription, PluginError};
use abi_stable::StableAbi;
use abi_stable::library::RootModule;
use abi_stable::sabi_types::VersionStrings;
use abi_stable::std_types::{RResult, RStr, RString};

/// Interface major version: plugins of another major are refused.
pub const ABI_MAJOR: u32 = 2;
/// Interface minor version: additive changes only (see the crate's versioning policy).
pub const ABI_MINOR: u32 = 14;

/// The version string of the root module, checked by the host before anything else is
/// touched (a 1.x library is refused by name, not by a layout report).
pub const ROOT_VERSION: &str = "2.0.0";

/// The symbol abi_stable's loader looks up (`abi_stable::library::ROOT_MODULE_LOADER_NAME`
/// for abi_stable 0.11), written out in [`export_plugin!`](crate::export_plugin); a test
/// keeps them equal.
pub const LOADER_SYMBOL: &str = "_1as_0lib_1header_0root_bmodule_bloader";

#[cfg(test)]
mod tests {
    #[test]
    fn the_loader_symbol_is_abi_stables() {
        assert_eq!(
            super::LOADER_SYMBOL,
            abi_stable::library::ROOT_MODULE_LOADER_NAME
        );
    }
}

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

/// Root module of every plugin library for interface major 2. **Frozen for major 2**:
/// new capabilities come as methods at the end of the service and instance traits.
#[repr(C)]
#[derive(StableAbi)]
#[sabi(kind(Prefix(prefix_ref = PluginRootV2Ref)))]
#[sabi(missing_field(panic))]
pub struct PluginRootV2 {
    /// Describes the library: name, version, interface version, factories.
    pub describe: extern "C" fn() -> PluginDescription,
    /// Creates an instance from factory `factory`. Never panics across the boundary.
    #[sabi(last_prefix_field)]
    pub create: extern "C" fn(
        factory: RStr<'_>,
        host: HostContext,
    ) -> RResult<PluginInstanceBox, PluginError>,
}

impl RootModule for PluginRootV2Ref {
    abi_stable::declare_root_module_statics! {PluginRootV2Ref}
    const BASE_NAME: &'static str = "iron3d_plugin";
    const NAME: &'static str = "iron3d plugin (interface 2)";
    // Pinned, not the crate version: compatibility is decided by ABI_MAJOR/ABI_MINOR in
    // the description, so a newer engine of the same major still loads older plugins.
    const VERSION_STRINGS: VersionStrings = VersionStrings::new(ROOT_VERSION);
}

/// Exports a plugin library's root module.
///
/// ```text
/// iron3d_abi::export_plugin!(describe = describe, create = create);
/// ```
/// `describe` is `fn() -> PluginDescription`, `create` is
/// `fn(&str) -> Result<Box<dyn Plugin>, PluginError>` (the factory name). The paths are
/// resolved where the macro is invoked: `describe`, `super::describe` (the form older
/// guides used) and `crate::plugin::describe` all name the plugin's own functions — the
/// generated items live in a module `__iron3d_export` that sees its parent's items and
/// whose own functions have names a plugin never uses, so a plugin function is never
/// shadowed by the macro's (an earlier form of this macro made `describe = describe`
/// name the generated function itself, which recursed until the stack overflowed).
///
/// The generated `extern "C"` functions run both inside `catch_unwind`, record whether
/// the library was built with `panic = "unwind"`, and wrap every instance in this
/// crate's adapter, which guards every entry point (the adapter and the guard are
/// private to this crate: this macro is the only way to an instance). The library
/// header is exported under abi_stable's loader symbol ([`LOADER_SYMBOL`]), so a plugin
/// crate depends on `iron3d-abi` only.
///
/// [`LOADER_SYMBOL`]: crate::root::LOADER_SYMBOL
#[macro_export]
macro_rules! export_plugin {
    (describe = $describe:path, create = $create:path) => {
        #[doc(hidden)]
        pub mod __iron3d_export {
            // The plugin's own items, so that `describe = describe` names the plugin's
            // function (explicit items below would shadow a glob import: none of them
            // uses a name a plugin would).
            #[allow(unused_imports)]
            use super::*;

            extern "C" fn __iron3d_describe() -> $crate::PluginDescription {
                // `cfg!` evaluated in the plugin crate: its own build's panic strategy.
                $crate::__private::describe(|| $describe(), cfg!(panic = "unwind"))
            }

            extern "C" fn __iron3d_create(
                factory: $crate::abi_stable::std_types::RStr<'_>,
                host: $crate::HostContext,
            ) -> $crate::abi_stable::std_types::RResult<
                $crate::ffi::PluginInstanceBox,
                $crate::PluginError,
            > {
                $crate::__private::create(host, || $create(factory.as_str()))
            }

            /// The root module (what abi_stable's `export_root_module` attribute would
            /// export, written out so plugin crates need no `abi_stable` dependency).
            pub fn __iron3d_root_module() -> $crate::PluginRootV2Ref {
                use $crate::abi_stable::prefix_type::PrefixTypeTrait;
                $crate::PluginRootV2 {
                    describe: __iron3d_describe,
                    create: __iron3d_create,
                }
                .leak_into_prefix()
            }

            #[unsafe(export_name = "_1as_0lib_1header_0root_bmodule_bloader")]
            pub static __IRON3D_LIB_HEADER: $crate::abi_stable::library::LibHeader = {
                extern "C" fn erased_module() -> $crate::abi_stable::library::RootModuleResult {
                    $crate::abi_stable::library::__call_root_module_loader(__iron3d_root_module)
                }
                // SAFETY: the header describes `PluginRootV2Ref`, which `__iron3d_root_module`
                // returns; the layout is checked by the loader (`CheckTypeLayout::Yes`).
                unsafe {
                    $crate::abi_stable::library::LibHeader::from_constructor::<
                        $crate::PluginRootV2Ref,
                    >(
                        erased_module,
                        $crate::abi_stable::library::CheckTypeLayout::Yes,
                    )
                }
            };
        }
    };
}

/// What [`export_plugin!`](crate::export_plugin) expands to call; not an API (hidden, may
/// change any time).
#[doc(hidden)]
pub mod __private {
    use crate::guard::PluginRuntime;
    use crate::plugin::{Adapter, Plugin, PluginInstanceBox};
    use crate::root::HostContext;
    use crate::types::{PluginDescription, PluginError};
    use abi_stable::std_types::{RResult, RVec};

    /// The description `describe` answers, with `panic_unwind` from the plugin's build;
    /// a panic in `describe` answers a description the host refuses.
    pub fn describe(
        describe: impl FnOnce() -> PluginDescription,
        panic_unwind: bool,
    ) -> PluginDescription {
        let mut d = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(describe)) {
            Ok(d) => d,
            Err(_) => PluginDescription {
                name: "panicked-describe".into(),
                version: "".into(),
                abi_major: 0,
                abi_minor: 0,
                panic_unwind: true,
                factories: RVec::new(),
            },
        };
        d.panic_unwind = panic_unwind;
        d
    }

    /// The guarded instance `create` makes, logging through `host`'s sink.
    pub fn create(
        host: HostContext,
        create: impl FnOnce() -> Result<Box<dyn Plugin>, PluginError>,
    ) -> RResult<PluginInstanceBox, PluginError> {
        let runtime = PluginRuntime::new(host.log, host.log_mode);
        let guard_runtime = runtime.clone();
        guard_runtime.call("create", move || match create() {
            Ok(plugin) => RResult::ROk(Adapter::boxed(plugin, runtime)),
            Err(e) => RResult::RErr(e),
        })
    }
}
