//! The run's side of the audio slot: the audio event trace (`--audio-trace FILE`) and
//! the one line that says there is no sound device.

use crate::SessionError;
use iron3d_plugin_host::PluginHost;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes the audio trace and says once when there is no sound.
pub struct AudioOutputWatch {
    trace: Option<(PathBuf, std::io::BufWriter<std::fs::File>)>,
    announced: bool,
}

impl AudioOutputWatch {
    /// Starts watching `host`'s audio slot; with `trace`, asks its plugin for the event
    /// trace and creates the file (an existing one is replaced). Without `announce` the
    /// "no sound device" line is never given.
    ///
    /// # Errors
    /// The trace file cannot be created.
    pub fn new(
        host: &PluginHost,
        trace: Option<&Path>,
        announce: bool,
    ) -> Result<Self, SessionError> {
        let trace = match trace {
            Some(p) => {
                let f = std::fs::File::create(p).map_err(|source| SessionError::File {
                    what: "audio trace",
                    path: p.to_owned(),
                    source,
                })?;
                host.set_audio_trace(true);
                Some((p.to_owned(), std::io::BufWriter::new(f)))
            }
            None => None,
        };
        Ok(Self {
            trace,
            announced: !announce,
        })
    }

    /// After a presented frame: appends the trace lines the plugin reported and, the
    /// first time the plugin reports that it has no device, answers the one line to
    /// show (`audio: no sound device (…); playing silently`).
    ///
    /// # Errors
    /// Writing the trace failed.
    pub fn after_frame(&mut self, host: &PluginHost) -> Result<Option<String>, SessionError> {
        if let Some((path, w)) = &mut self.trace {
            for line in host.take_audio_trace() {
                writeln!(w, "{line}").map_err(|source| SessionError::File {
                    what: "audio trace",
                    path: path.clone(),
                    source,
                })?;
            }
        }
        if !self.announced
            && let Some(s) = host.audio_status()
            && s.output == iron3d_abi::AudioOutput::NO_DEVICE
        {
            self.announced = true;
            let why = if s.reason.is_empty() {
                String::new()
            } else {
                format!(" ({})", s.reason)
            };
            return Ok(Some(format!(
                "audio: no sound device{why}; playing silently"
            )));
        }
        Ok(None)
    }

    /// Flushes the trace; answers its file.
    ///
    /// # Errors
    /// Writing the trace failed.
    pub fn finish(&mut self) -> Result<Option<PathBuf>, SessionError> {
        match &mut self.trace {
            Some((path, w)) => {
                w.flush().map_err(|source| SessionError::File {
                    what: "audio trace",
                    path: path.clone(),
                    source,
                })?;
                Ok(Some(path.clone()))
            }
            None => Ok(None),
        }
    }
}
