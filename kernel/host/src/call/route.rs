//! Service routing of a plugin call: the terrain and control services of the slots and
//! the named services of service plugins, each found active now, locked against
//! re-entry, and a provider's panic recorded as the provider's fault.

use super::*;

impl<'c, 'k> HostCall<'c, 'k> {
    /// Services are called from simulation phases only (never from a detached call):
    /// the phase of the call.
    pub(super) fn service_phase(&self, what: &str) -> Result<Phase, PluginError> {
        let phase = self.attached(what)?.ctx.phase();
        if simulation_phase(phase) {
            return Ok(phase);
        }
        Err(PluginError::new(
            ErrorKind::FORBIDDEN,
            format!("{what}: services are available in simulation phases, not in {phase}"),
        ))
    }

    /// Locks a provider's cell for one call; a cell locked already is a plugin that is
    /// running: re-entry, refused with `busy`'s words.
    pub(super) fn lock_provider<'g>(
        &self,
        cell: &'g SlotCell,
        busy: impl FnOnce() -> String,
    ) -> Result<std::sync::MutexGuard<'g, Option<Instance>>, PluginError> {
        match cell.try_lock() {
            Ok(g) => Ok(g),
            Err(std::sync::TryLockError::WouldBlock) => Err(PluginError::new(
                ErrorKind::REENTRY,
                format!("{} (called from {}): re-entry refused", busy(), self.caller),
            )),
            Err(std::sync::TryLockError::Poisoned(p)) => Ok(p.into_inner()),
        }
    }

    /// Runs `body` on the active instance of `slot` (the terrain service today).
    pub(super) fn with_provider<T>(
        &mut self,
        provider: SlotKind,
        what: &str,
        body: impl FnOnce(&mut Instance) -> Result<T, PluginError>,
    ) -> Result<T, PluginError> {
        let phase = self.service_phase(what)?;
        let Some(cell) = self.shared.cell(provider) else {
            return Err(PluginError::new(
                ErrorKind::NO_PROVIDER,
                format!("{what}: no {provider} slot in this host"),
            ));
        };
        let mut guard = self.lock_provider(&cell, || {
            format!("{what}: the {provider} plugin is running")
        })?;
        let result = match guard.as_mut() {
            Some(instance) => body(instance),
            None => Err(PluginError::new(
                ErrorKind::NO_PROVIDER,
                format!("{what}: the {provider} slot is vacant"),
            )),
        };
        drop(guard);
        if let Err(e) = &result {
            if e.kind == ErrorKind::PANICKED {
                // A panic is the provider's fault, not the caller's: its slot rolls back
                // at the next boundary; the caller gets the error and goes on.
                self.shared
                    .provider_faults
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .entry(provider)
                    .or_insert((phase, format!("{what} called from {}: {e}", self.caller)));
            }
        }
        result
    }

    pub(super) fn terrain<T>(
        &mut self,
        what: &str,
        body: impl FnOnce(
            iron3d_abi::ffi::TerrainService_TO<'_, abi_stable::RMut<'_, ()>>,
        ) -> RResult<T, PluginError>,
    ) -> RResult<T, PluginError> {
        self.with_provider(SlotKind::Terrain, what, |i| match i.object.terrain() {
            RResult::ROk(ROption::RSome(t)) => body(t).into_result(),
            RResult::ROk(ROption::RNone) => Err(PluginError::new(
                ErrorKind::NO_PROVIDER,
                format!("{what}: the active terrain plugin provides no terrain service"),
            )),
            RResult::RErr(e) => Err(e),
        })
        .into()
    }

    pub(super) fn control<T>(
        &mut self,
        what: &str,
        body: impl FnOnce(
            iron3d_abi::ffi::ControlService_TO<'_, abi_stable::RMut<'_, ()>>,
        ) -> RResult<T, PluginError>,
    ) -> RResult<T, PluginError> {
        self.with_provider(SlotKind::Control, what, |i| match i.object.control() {
            RResult::ROk(ROption::RSome(c)) => body(c).into_result(),
            RResult::ROk(ROption::RNone) => Err(PluginError::new(
                ErrorKind::NO_PROVIDER,
                format!("{what}: the active control plugin provides no control service"),
            )),
            RResult::RErr(e) => Err(e),
        })
        .into()
    }

    /// Routes a call to the service plugin `name` (the rules of `iron3d_abi::service`).
    pub(super) fn named_service(
        &mut self,
        name: &str,
        method: &str,
        request: RSlice<'_, u8>,
    ) -> Result<RVec<u8>, PluginError> {
        let what = format!("service {name:?} method {method:?}");
        self.service_phase(&what)?;
        if request.len() > iron3d_abi::MAX_SERVICE_PAYLOAD {
            return Err(PluginError::new(
                ErrorKind::INVALID,
                format!(
                    "{what}: a request of {} bytes (at most {})",
                    request.len(),
                    iron3d_abi::MAX_SERVICE_PAYLOAD
                ),
            ));
        }
        let cell = self
            .shared
            .services
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(name)
            .cloned();
        let Some(cell) = cell else {
            let stopped = self
                .shared
                .stopped_services
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .get(name)
                .cloned();
            return Err(PluginError::new(
                ErrorKind::NO_PROVIDER,
                match stopped {
                    Some(why) => format!("{what}: the service was stopped: {why}"),
                    None => format!("{what}: no service of that name is loaded"),
                },
            ));
        };
        let mut guard = self.lock_provider(&cell, || {
            format!("{what}: the service is answering another call")
        })?;
        let Some(instance) = guard.as_mut() else {
            return Err(PluginError::new(
                ErrorKind::NO_PROVIDER,
                format!("{what}: the service was stopped"),
            ));
        };
        let label = instance.label();
        let answer = match instance.object.service() {
            RResult::ROk(ROption::RSome(mut s)) => s.call(method.into(), request).into_result(),
            RResult::ROk(ROption::RNone) => Err(PluginError::new(
                ErrorKind::NO_PROVIDER,
                format!("{what}: the plugin {label} provides no named service"),
            )),
            RResult::RErr(e) => Err(e),
        };
        match answer {
            Ok(bytes) if bytes.len() > iron3d_abi::MAX_SERVICE_PAYLOAD => Err(PluginError::new(
                ErrorKind::INVALID,
                format!(
                    "{what}: an answer of {} bytes (at most {})",
                    bytes.len(),
                    iron3d_abi::MAX_SERVICE_PAYLOAD
                ),
            )),
            Ok(bytes) => Ok(bytes),
            Err(e) => {
                if e.kind == ErrorKind::PANICKED {
                    // A panicking service is stopped (it has no fallback to roll back
                    // to); the caller gets this error, later callers NO_PROVIDER.
                    let why = format!("{what} called from {} panicked: {e}", self.caller);
                    tracing::error!(target: "Iron3D", service = name, instance = %label, reason = %why, "service stopped");
                    if let Some(mut dead) = guard.take() {
                        let _ = dead.finish(self.shared);
                    }
                    drop(guard);
                    self.shared
                        .services
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .remove(name);
                    self.shared
                        .stopped_services
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .insert(name.to_owned(), why);
                }
                Err(e)
            }
        }
    }
}
