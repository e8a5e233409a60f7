//! The host side of the log bridge: plugin records become `tracing` events of the host,
//! target `iron3d::plugin`, with the plugin's name and its own target as fields.

use abi_stable::sabi_trait::TD_Opaque;
use abi_stable::std_types::{RArc, RStr};
use iron3d_abi::{LogLevel, LogSink, LogSink_TO, LogSinkBox};

/// Forwards one plugin instance's records to the host subscriber.
pub struct HostLogSink {
    plugin: String,
}

impl HostLogSink {
    /// A sink that tags records with `plugin`.
    pub fn boxed(plugin: &str) -> LogSinkBox {
        LogSink_TO::from_ptr(
            RArc::new(HostLogSink {
                plugin: plugin.to_owned(),
            }),
            TD_Opaque,
        )
    }
}

fn host_max_level() -> LogLevel {
    use tracing::level_filters::LevelFilter;
    match LevelFilter::current() {
        LevelFilter::OFF | LevelFilter::ERROR => LogLevel::Error,
        LevelFilter::WARN => LogLevel::Warn,
        LevelFilter::INFO => LogLevel::Info,
        LevelFilter::DEBUG => LogLevel::Debug,
        _ => LogLevel::Trace,
    }
}

impl LogSink for HostLogSink {
    fn max_level(&self) -> LogLevel {
        host_max_level()
    }

    fn log(&self, level: LogLevel, target: RStr<'_>, message: RStr<'_>) {
        let (plugin, target, message) = (self.plugin.as_str(), target.as_str(), message.as_str());
        match level {
            LogLevel::Error => {
                tracing::error!(target: "iron3d::plugin", plugin, plugin_target = target, "{message}")
            }
            LogLevel::Warn => {
                tracing::warn!(target: "iron3d::plugin", plugin, plugin_target = target, "{message}")
            }
            LogLevel::Info => {
                tracing::info!(target: "iron3d::plugin", plugin, plugin_target = target, "{message}")
            }
            LogLevel::Debug => {
                tracing::debug!(target: "iron3d::plugin", plugin, plugin_target = target, "{message}")
            }
            LogLevel::Trace => {
                tracing::trace!(target: "iron3d::plugin", plugin, plugin_target = target, "{message}")
            }
        }
    }
}
