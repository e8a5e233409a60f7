//! The log bridge: the host hands each plugin a [`LogSink`]; the plugin's `tracing`
//! events reach the host's subscriber through it, tagged with the plugin name.
//!
//! Each cdylib has its own `tracing` globals, so a plugin's events would otherwise go
//! nowhere. The guard's plugin runtime (`guard::PluginRuntime`) scopes a forwarding
//! dispatcher around every exported call (it also works when a plugin is linked as an rlib).
#![allow(non_local_definitions)] // emitted by #[sabi_trait] on Rust 1.95 (HOT-SWAP-FACTS)

use abi_stable::sabi_trait;
use abi_stable::std_types::{RArc, RStr};
use std::fmt::Write as _;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Level, Metadata, Subscriber};

/// Log levels crossing the boundary (tracing's five).
#[repr(u8)]
#[derive(abi_stable::StableAbi, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum LogLevel {
    /// ERROR.
    Error,
    /// WARN.
    Warn,
    /// INFO.
    Info,
    /// DEBUG.
    Debug,
    /// TRACE.
    Trace,
}

impl From<&Level> for LogLevel {
    fn from(l: &Level) -> Self {
        match *l {
            Level::ERROR => LogLevel::Error,
            Level::WARN => LogLevel::Warn,
            Level::INFO => LogLevel::Info,
            Level::DEBUG => LogLevel::Debug,
            _ => LogLevel::Trace,
        }
    }
}

/// Host-provided sink for plugin log records.
#[sabi_trait]
pub trait LogSink: Send + Sync {
    /// Most verbose level the host wants.
    fn max_level(&self) -> LogLevel;
    /// One record: level, the plugin's target (module path) and the formatted message.
    #[sabi(last_prefix_field)]
    fn log(&self, level: LogLevel, target: RStr<'_>, message: RStr<'_>);
}

/// The shared, FFI-safe handle of a log sink.
pub type LogSinkBox = LogSink_TO<'static, RArc<()>>;

/// A `tracing` subscriber (plugin side) that forwards every event to a [`LogSinkBox`].
///
/// The host's level is asked at each event (callsites are never cached as disabled), so a
/// host that changes its filter, or installs a subscriber later, still gets the events.
pub struct ForwardingSubscriber {
    sink: LogSinkBox,
}

impl ForwardingSubscriber {
    /// Forwards to `sink`, filtering by the host's current maximum level.
    pub fn new(sink: LogSinkBox) -> Self {
        Self { sink }
    }
}

struct MessageVisitor {
    message: String,
    fields: String,
}

impl Visit for MessageVisitor {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.message.push_str(value);
        } else {
            let _ = write!(self.fields, " {}={}", field.name(), value);
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.message, "{value:?}");
        } else {
            let _ = write!(self.fields, " {}={:?}", field.name(), value);
        }
    }
}

impl Subscriber for ForwardingSubscriber {
    fn register_callsite(
        &self,
        _metadata: &'static Metadata<'static>,
    ) -> tracing::subscriber::Interest {
        tracing::subscriber::Interest::sometimes()
    }

    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        LogLevel::from(metadata.level()) <= self.sink.max_level()
    }

    fn new_span(&self, _span: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }

    fn record(&self, _span: &Id, _values: &Record<'_>) {}

    fn record_follows_from(&self, _span: &Id, _follows: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let mut v = MessageVisitor {
            message: String::new(),
            fields: String::new(),
        };
        event.record(&mut v);
        v.message.push_str(&v.fields);
        let meta = event.metadata();
        self.sink.log(
            LogLevel::from(meta.level()),
            RStr::from_str(meta.target()),
            RStr::from_str(&v.message),
        );
    }

    fn enter(&self, _span: &Id) {}

    fn exit(&self, _span: &Id) {}
}
