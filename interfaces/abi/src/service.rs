//! (2.5) Named services: a plugin that answers calls from other plugins by name.
//!
//! A mod declares a service plugin in its manifest (`service = "pathfinding"`); the
//! engine loads it beside the slots and routes [`crate::Host::call_service`] to it by
//! that name. A service is a request / answer interface: the caller names a method and
//! passes bytes, the service answers bytes. The encoding of both is the service's
//! contract with its callers (document it with the service; postcard, JSON or a fixed
//! little-endian layout all work) — the engine only carries them, so a service can grow
//! methods without a new interface version.
//!
//! Rules the engine enforces (errors, never panics):
//! * calls are made from simulation phases only, like the terrain and control services
//!   ([`ErrorKind::FORBIDDEN`](crate::ErrorKind::FORBIDDEN) elsewhere);
//! * an unknown service name is [`ErrorKind::NO_PROVIDER`](crate::ErrorKind::NO_PROVIDER)
//!   naming it; a service that is answering a call cannot be called again until it
//!   returns ([`ErrorKind::REENTRY`](crate::ErrorKind::REENTRY));
//! * a request or an answer larger than [`MAX_SERVICE_PAYLOAD`] is
//!   [`ErrorKind::INVALID`](crate::ErrorKind::INVALID);
//! * a service that panics is stopped: the caller gets the
//!   [`ErrorKind::PANICKED`](crate::ErrorKind::PANICKED) error, every later call
//!   [`ErrorKind::NO_PROVIDER`](crate::ErrorKind::NO_PROVIDER) saying why, and the
//!   mission goes on.
//!
//! A service gets `mission_start` (with the mission's files, parameters and seeds, no
//! world) and `mission_end`, and its `save_state` enters the state hash: a service
//! whose answers depend on its state must save that state. It gets no per-tick
//! callbacks; what it needs of the world, its callers pass in the request.
#![allow(non_local_definitions)]

use crate::types::PluginError;
use abi_stable::sabi_trait;
use abi_stable::std_types::{RResult, RSlice, RStr, RVec};

/// The largest request or answer of one service call, in bytes (16 MiB).
pub const MAX_SERVICE_PAYLOAD: usize = 16 << 20;

/// A named service, implemented by service plugins (see the module docs).
pub trait ServiceProvider {
    /// Answers `method` with `request`. A method the service does not know should be
    /// [`ErrorKind::UNSUPPORTED`](crate::ErrorKind::UNSUPPORTED) naming it, a request
    /// it cannot decode [`ErrorKind::INVALID`](crate::ErrorKind::INVALID).
    fn call(&mut self, method: &str, request: &[u8]) -> Result<Vec<u8>, PluginError>;
}

/// The FFI form of [`ServiceProvider`].
#[sabi_trait]
pub trait NamedService {
    /// [`ServiceProvider::call`].
    #[sabi(last_prefix_field)]
    fn call(&mut self, method: RStr<'_>, request: RSlice<'_, u8>)
    -> RResult<RVec<u8>, PluginError>;
}
