//! Service plugins (interface 2.5): plugins loaded by name beside the slots, answering
//! `Host::call_service` from the other plugins (see `iron3d_abi::service`).
//!
//! [`PluginHost::start_services`] loads them and returns one kernel system that owns
//! them for the mission: it puts their states in the state hash (in name order) and
//! finishes them at shutdown. A service that cannot be loaded is reported and left out;
//! the mission starts without it (its callers get `NO_PROVIDER` naming it).

use crate::call::HostShared;
use crate::error::HostError;
use crate::host::PluginHost;
use crate::slot::{HostEvent, Instance, SlotCell};
use abi_stable::std_types::RResult;
use crossbeam_channel::Sender;
use iron3d_kernel::{SavedState, System};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// One service plugin to load.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServiceSpec {
    /// The name callers use (`[a-z0-9][a-z0-9._-]{0,63}`, `iron3d_registry::is_service_name`).
    pub name: String,
    /// A registry library name or a library file, resolved like a registry entry.
    pub library: String,
    /// The factory to create (looked up by name; its declared slot is not used).
    pub factory: String,
    /// Who asked for it (e.g. `mod quick-path`), for reports.
    pub origin: String,
}

/// Format name of the services' combined saved state.
pub const SERVICES_FORMAT: &str = "iron3d-services";
/// Its version.
pub const SERVICES_VERSION: u32 = 1;

/// One service in the combined saved state.
#[derive(serde::Serialize, serde::Deserialize)]
struct ServiceBlob {
    name: String,
    state: Option<(String, u32, Vec<u8>)>,
}

/// The kernel system that owns a host's service plugins (see the module docs).
pub struct ServiceSystem {
    host: Arc<HostShared>,
    cells: Vec<(String, SlotCell)>,
    events: Sender<HostEvent>,
}

impl PluginHost {
    /// Loads `specs` in order (a later spec of the same name replaces an earlier one)
    /// and returns the system that owns them; add it to the kernel. Each load is
    /// reported as [`HostEvent::ServiceLoaded`] or [`HostEvent::ServiceLoadFailed`].
    pub fn start_services(&mut self, specs: &[ServiceSpec]) -> ServiceSystem {
        let mut chosen: BTreeMap<&str, &ServiceSpec> = BTreeMap::new();
        for s in specs {
            chosen.insert(s.name.as_str(), s);
        }
        let mut cells = Vec::new();
        for (name, spec) in chosen {
            match self.service_instance(spec) {
                Ok(instance) => {
                    let label = instance.label();
                    tracing::info!(target: "Iron3D", service = name, instance = %label, origin = spec.origin.as_str(), "service loaded");
                    let _ = self.events_sender().send(HostEvent::ServiceLoaded {
                        service: name.to_owned(),
                        instance: label,
                    });
                    let cell: SlotCell = Arc::new(Mutex::new(Some(instance)));
                    self.shared()
                        .services
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .insert(name.to_owned(), cell.clone());
                    cells.push((name.to_owned(), cell));
                }
                Err(e) => {
                    tracing::warn!(target: "Iron3D", service = name, origin = spec.origin.as_str(), error = %e, "service not loaded; the mission goes on without it");
                    let _ = self.events_sender().send(HostEvent::ServiceLoadFailed {
                        service: name.to_owned(),
                        reason: e.to_string(),
                    });
                }
            }
        }
        ServiceSystem {
            host: self.shared().clone(),
            cells,
            events: self.events_sender().clone(),
        }
    }

    fn service_instance(&self, spec: &ServiceSpec) -> Result<Instance, HostError> {
        if !iron3d_registry::is_service_name(&spec.name) {
            return Err(HostError::Registry(format!(
                "\"{}\" is not a valid service name; use [a-z0-9][a-z0-9._-]{{0,63}}",
                spec.name
            )));
        }
        let path = self.search_paths().resolve(&spec.library)?;
        let lib = self.load_plugin_library(&path)?;
        let factory = lib.factory_named(&spec.factory)?;
        Instance::create_service(lib, &factory, &spec.name, self.shared())
    }

    /// The loaded services by name with their instance labels, in name order.
    pub fn service_report(&self) -> Vec<(String, String)> {
        let services = self
            .shared()
            .services
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        services
            .into_iter()
            .map(|(name, cell)| {
                let label = cell
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .as_ref()
                    .map_or_else(|| "stopped".to_owned(), Instance::label);
                (name, label)
            })
            .collect()
    }
}

impl System for ServiceSystem {
    fn name(&self) -> &str {
        "services"
    }

    fn state_digest(&self) -> Option<[u8; 32]> {
        if self.cells.is_empty() {
            return None;
        }
        let mut h = blake3::Hasher::new();
        for (name, cell) in &self.cells {
            h.update(name.as_bytes());
            h.update(&[0]);
            let guard = cell
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            match guard.as_ref().map(|i| i.object.save_state()) {
                Some(RResult::ROk(b)) => {
                    h.update(b.format.as_bytes());
                    h.update(&b.version.to_le_bytes());
                    h.update(&(b.bytes.len() as u64).to_le_bytes());
                    h.update(&b.bytes);
                }
                Some(RResult::RErr(e)) => {
                    h.update(b"save_state failed:");
                    h.update(e.message.as_bytes());
                }
                None => {
                    h.update(b"stopped");
                }
            }
        }
        Some(*h.finalize().as_bytes())
    }

    /// Every service's state blob in one: format [`SERVICES_FORMAT`], postcard of
    /// `(name, Option<(format, version, bytes)>)` per service in load order (`None`: a
    /// stopped service).
    fn save_state(&self) -> Option<Result<SavedState, String>> {
        if self.cells.is_empty() {
            return None;
        }
        let mut all: Vec<ServiceBlob> = Vec::with_capacity(self.cells.len());
        for (name, cell) in &self.cells {
            let guard = cell
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let state = match guard.as_ref().map(|i| (i.label(), i.object.save_state())) {
                Some((_, RResult::ROk(b))) => {
                    Some((b.format.to_string(), b.version, b.bytes.to_vec()))
                }
                Some((label, RResult::RErr(e))) => {
                    return Some(Err(format!("service {name} ({label}): {e}")));
                }
                None => None,
            };
            all.push(ServiceBlob {
                name: name.clone(),
                state,
            });
        }
        Some(
            postcard::to_allocvec(&all)
                .map(|bytes| SavedState {
                    format: SERVICES_FORMAT.into(),
                    version: SERVICES_VERSION,
                    bytes,
                })
                .map_err(|e| format!("encoding the services' states: {e}")),
        )
    }

    /// Restores every service from [`ServiceSystem::save_state`]'s blob: the same
    /// services in the same order, each running one refusing nothing (checked by
    /// decoding first; a service refusing its blob is named, and the services before it
    /// keep what they were given).
    fn restore_state(&mut self, state: &SavedState) -> Result<(), String> {
        if state.format != SERVICES_FORMAT || state.version != SERVICES_VERSION {
            return Err(format!(
                "services state {} v{}, expected {SERVICES_FORMAT} v{SERVICES_VERSION}",
                state.format, state.version
            ));
        }
        let all: Vec<ServiceBlob> =
            postcard::from_bytes(&state.bytes).map_err(|e| format!("decoding: {e}"))?;
        let names: Vec<&str> = all.iter().map(|b| b.name.as_str()).collect();
        let ours: Vec<&str> = self.cells.iter().map(|(n, _)| n.as_str()).collect();
        if names != ours {
            return Err(format!(
                "saved services {names:?}, this session runs {ours:?}"
            ));
        }
        for (blob, (name, cell)) in all.into_iter().zip(&self.cells) {
            let mut guard = cell
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            match (guard.as_mut(), blob.state) {
                (Some(i), Some((format, version, bytes))) => {
                    let b = iron3d_abi::StateBlob {
                        format: format.as_str().into(),
                        version,
                        bytes: bytes.into(),
                    };
                    if let RResult::RErr(e) = i.object.restore_state(&b) {
                        return Err(format!("service {name} refused its state: {e}"));
                    }
                }
                (None, None) => {}
                (Some(_), None) => return Err(format!("service {name} was stopped in the save")),
                (None, Some(_)) => return Err(format!("service {name} is stopped here")),
            }
        }
        Ok(())
    }

    fn shutdown(&mut self) {
        for (name, cell) in self.cells.drain(..) {
            let taken = cell
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .take();
            if let Some(mut instance) = taken {
                // Finished as the service it is: failures are ServiceShutdownFailed events
                // naming it.
                instance.finish_reporting(&self.host, &self.events);
            }
            self.host
                .services
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .remove(&name);
        }
    }
}
