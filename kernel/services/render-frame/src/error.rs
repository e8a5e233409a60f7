//! The crate's one error enum: what failed while preparing render resources, and where.

use thiserror::Error;

/// A failure while loading the render resources of a mission.
#[derive(Debug, Error)]
pub enum RenderFrameError {
    /// A file or archive entry could not be read.
    #[error("render resources of mission {mission}: cannot read {what}: {cause}")]
    Read {
        /// Mission name.
        mission: String,
        /// `archive:entry` or file path.
        what: String,
        /// The underlying error.
        cause: String,
    },
    /// A resource did not parse.
    #[error("render resources of mission {mission}: {what} is invalid: {cause}")]
    Parse {
        /// Mission name.
        mission: String,
        /// `archive:entry` or file path, with the chain that led to it.
        what: String,
        /// The parser's message (offset, field).
        cause: String,
    },
    /// A model or the terrain is larger than a 16-bit index buffer can address.
    #[error("render resources of mission {mission}: {what}: {cause}")]
    Limit {
        /// Mission name.
        mission: String,
        /// The resource.
        what: String,
        /// Which limit.
        cause: String,
    },
}
