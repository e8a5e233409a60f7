//! Panic containment and log scoping for every exported plugin call.
//!
//! abi_stable turns a panic that reaches a `#[sabi_trait]` boundary into
//! `process::exit(1)`, and the host's `catch_unwind` cannot stop it. So every plugin
//! body runs inside [`guard`] (or [`PluginRuntime::call`]), which catches the panic on
//! the plugin side and returns [`PluginError`] with [`ErrorKind::PANICKED`].

use crate::log::{ForwardingSubscriber, LogSinkBox};
use crate::root::LogMode;
use crate::types::{ErrorKind, PluginError};
use abi_stable::std_types::{RErr, RResult};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Runs `body`, turning a panic into `RErr(PluginError { kind: Panicked, .. })` that names `what`.
pub(crate) fn guard<T>(
    what: &str,
    body: impl FnOnce() -> RResult<T, PluginError>,
) -> RResult<T, PluginError> {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(r) => r,
        Err(payload) => RErr(PluginError::new(
            ErrorKind::PANICKED,
            format!("panic in {what}: {}", panic_message(&*payload)),
        )),
    }
}

/// Like [`guard`] for calls that return nothing; a panic is swallowed after being logged.
pub(crate) fn guard_unit(what: &str, body: impl FnOnce()) {
    if let Err(payload) = catch_unwind(AssertUnwindSafe(body)) {
        tracing::error!("panic in {what}: {}", panic_message(&*payload));
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_owned()
    }
}

/// Whether this image's global `tracing` dispatcher is our log bridge (one per image:
/// each cdylib has its own copy of this static).
static IMAGE_BRIDGE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();

/// Per-instance plugin runtime: the plugin's log bridge plus the panic guard.
///
/// Keep one in each subsystem instance (built from the [`HostContext`](crate::HostContext)
/// the host passed to the factory) and run every exported method through
/// [`PluginRuntime::call`].
#[derive(Clone)]
pub(crate) struct PluginRuntime {
    dispatch: tracing::Dispatch,
    scoped: bool,
}

impl PluginRuntime {
    /// A runtime whose `tracing` events go to `sink`. With [`LogMode::ImageGlobal`] the
    /// bridge becomes the image's global dispatcher (first instance wins; instances of one
    /// image share one plugin name); if the image already has another global dispatcher,
    /// or with [`LogMode::Scoped`], the bridge is scoped around each call instead.
    pub(crate) fn new(sink: LogSinkBox, mode: LogMode) -> Self {
        let dispatch = tracing::Dispatch::new(ForwardingSubscriber::new(sink));
        let scoped = match mode {
            LogMode::Scoped => true,
            LogMode::ImageGlobal => !*IMAGE_BRIDGE
                .get_or_init(|| tracing::dispatcher::set_global_default(dispatch.clone()).is_ok()),
        };
        Self { dispatch, scoped }
    }

    /// Runs `body` with panics contained (and the bridge scoped when needed).
    pub(crate) fn call<T>(
        &self,
        what: &str,
        body: impl FnOnce() -> RResult<T, PluginError>,
    ) -> RResult<T, PluginError> {
        if self.scoped {
            tracing::dispatcher::with_default(&self.dispatch, || guard(what, body))
        } else {
            guard(what, body)
        }
    }

    /// [`PluginRuntime::call`] for methods without a result.
    pub(crate) fn call_unit(&self, what: &str, body: impl FnOnce()) {
        if self.scoped {
            tracing::dispatcher::with_default(&self.dispatch, || guard_unit(what, body))
        } else {
            guard_unit(what, body)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use abi_stable::std_types::ROk;

    #[test]
    fn panics_become_errors() {
        let r: RResult<u32, PluginError> = guard("tick", || panic!("boom {}", 7));
        let e = r.unwrap_err();
        assert_eq!(e.kind, ErrorKind::PANICKED);
        assert!(e.message.as_str().contains("panic in tick: boom 7"), "{e}");
        assert_eq!(guard("ok", || ROk(3)).unwrap(), 3);
        guard_unit("unit", || panic!("swallowed"));
    }
}
