//! (2.9) Typed services as versioned extensions, looked up by id.
//!
//! The terrain and control services are typed interfaces of the plugin filling their
//! slot ([`crate::TerrainProvider`], [`crate::ControlProvider`]). A caller reaches the
//! provider active *now* through [`crate::HostApi::use_extension`] with the service's
//! [`ExtensionId`]: the host checks the phase, finds the provider, refuses re-entry, and
//! hands the provider's FFI object to the caller's [`ExtensionVisit`] for this call only;
//! a panic in the provider is the provider's fault, as for every service call. The
//! [`crate::Terrain`] and [`crate::Control`] wrappers' `call` do all of this for you:
//!
//! ```no_run
//! # use iron3d_abi::{Host, PluginError, Vec3f};
//! # fn f(host: &mut Host<'_>) -> Result<(), PluginError> {
//! let h = host.terrain().call("terrain height", |t| t.height_at(1.0, 2.0))?;
//! # let _ = h; Ok(()) }
//! ```
//!
//! **Versioning.** Each service's FFI trait is an abi_stable prefix type: a method added
//! after its `last_prefix_field` with a default body is a minor addition, and an older
//! provider answers that default ([`ErrorKind::UNSUPPORTED`] "predates interface 2.N").
//! **Adding a method to a typed service touches three places**, all in this crate: the
//! provider trait (with a default body), the FFI trait (after the last prefix field,
//! with a default body) and the adapter's forwarding (`impl TerrainService for Adapter`).
//! Callers reach it at once with `call`; the host is not touched, and neither is
//! [`crate::HostApi`]. A new *service* adds an [`ExtensionId`], a getter on the FFI
//! instance and a method of [`ExtensionVisit`] (both with defaults), and one arm of the
//! host's `use_extension`.
#![allow(non_local_definitions)]

pub use crate::plugin::{ControlService, ControlService_TO, TerrainService, TerrainService_TO};
use crate::types::{ErrorKind, PluginError};
use abi_stable::std_types::{RErr, ROk, RResult};
use abi_stable::{RMut, StableAbi, sabi_trait};

/// The id of a typed service (an open number: compare with the constants; an id the
/// host does not know is [`ErrorKind::UNSUPPORTED`]).
#[repr(transparent)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ExtensionId(pub u32);

impl ExtensionId {
    /// The terrain service of the terrain slot ([`crate::TerrainProvider`]); read-only,
    /// so every slot may use it.
    pub const TERRAIN: Self = Self(1);
    /// The control service of the control slot ([`crate::ControlProvider`]); it moves
    /// units, so only slots that may change the world use it.
    pub const CONTROL: Self = Self(2);
}

/// What a caller hands the host to use a typed service: the host calls the method of
/// the service it found, once, with the provider's FFI object (valid for that call
/// only). The error it returns is passed back to the caller, and a
/// [`ErrorKind::PANICKED`] one is the provider's fault.
#[sabi_trait]
pub trait ExtensionVisit {
    /// The terrain service.
    fn terrain(&mut self, service: TerrainService_TO<'_, RMut<'_, ()>>)
    -> RResult<(), PluginError>;
    /// The control service.
    #[sabi(last_prefix_field)]
    fn control(&mut self, service: ControlService_TO<'_, RMut<'_, ()>>)
    -> RResult<(), PluginError>;
}

/// A visit that runs one closure on the terrain or the control service and keeps its
/// answer (the plugin side of [`crate::Terrain::call`] and [`crate::Control::call`]).
pub(crate) struct Visit<F, T> {
    /// The closure, until it ran.
    pub(crate) run: Option<F>,
    /// Its answer, once it ran.
    pub(crate) answer: Option<T>,
}

impl<F, T> Visit<F, T> {
    pub(crate) fn new(run: F) -> Self {
        Self {
            run: Some(run),
            answer: None,
        }
    }

    fn once<S>(
        &mut self,
        service: S,
        f: impl FnOnce(F, S) -> RResult<T, PluginError>,
    ) -> RResult<(), PluginError> {
        match self.run.take() {
            Some(run) => match f(run, service) {
                ROk(v) => {
                    self.answer = Some(v);
                    ROk(())
                }
                RErr(e) => RErr(e),
            },
            None => RErr(PluginError::failed("a service visit ran twice")),
        }
    }
}

fn wrong(kind: &str) -> RResult<(), PluginError> {
    RErr(PluginError::new(
        ErrorKind::UNSUPPORTED,
        format!("the host offered the {kind} service to a visit of another"),
    ))
}

/// A visit of the terrain service.
pub(crate) struct TerrainVisit<F, T>(pub(crate) Visit<F, T>);

impl<F, T> ExtensionVisit for TerrainVisit<F, T>
where
    F: FnOnce(&TerrainService_TO<'_, RMut<'_, ()>>) -> RResult<T, PluginError>,
{
    fn terrain(
        &mut self,
        service: TerrainService_TO<'_, RMut<'_, ()>>,
    ) -> RResult<(), PluginError> {
        self.0.once(service, |run, s| run(&s))
    }
    fn control(&mut self, _: ControlService_TO<'_, RMut<'_, ()>>) -> RResult<(), PluginError> {
        wrong("control")
    }
}

/// A visit of the control service.
pub(crate) struct ControlVisit<F, T>(pub(crate) Visit<F, T>);

impl<F, T> ExtensionVisit for ControlVisit<F, T>
where
    F: FnOnce(&mut ControlService_TO<'_, RMut<'_, ()>>) -> RResult<T, PluginError>,
{
    fn terrain(&mut self, _: TerrainService_TO<'_, RMut<'_, ()>>) -> RResult<(), PluginError> {
        wrong("terrain")
    }
    fn control(
        &mut self,
        service: ControlService_TO<'_, RMut<'_, ()>>,
    ) -> RResult<(), PluginError> {
        self.0.once(service, |run, mut s| run(&mut s))
    }
}
