//! Plain FFI-safe data that crosses the kernel–plugin boundary: slots, errors,
//! descriptions, mission identity, state blobs and the small value types of services.
//!
//! Values that later versions may extend travel as open numbers ([`ErrorKind`] is a
//! `u32` newtype with named constants), never as Rust enums whose unknown discriminants
//! would be undefined behaviour on the other side.

use crate::math::Vec3f;
use abi_stable::StableAbi;
use abi_stable::std_types::{RString, RVec};
use std::fmt;

/// The subsystem slots of a mission (one plugin instance each).
#[repr(u8)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SlotKind {
    /// Terrain: surface, areals, routes (original CIDs 0, 1, 2, 5, 6 live in terrain.dll).
    Terrain,
    /// AI: decisions per object (calculation slot AI).
    Ai,
    /// Control / physics (calculation slot Control).
    Control,
    /// Effects (FXID instances).
    Effects,
    /// Audio backend.
    Audio,
    /// Render backend.
    Render,
    /// Network transport.
    Net,
    /// Input devices.
    Input,
}

impl SlotKind {
    /// Every slot in registry order.
    pub const ALL: [SlotKind; 8] = [
        SlotKind::Terrain,
        SlotKind::Ai,
        SlotKind::Control,
        SlotKind::Effects,
        SlotKind::Audio,
        SlotKind::Render,
        SlotKind::Net,
        SlotKind::Input,
    ];

    /// The registry name of the slot (`terrain`, `ai`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            SlotKind::Terrain => "terrain",
            SlotKind::Ai => "ai",
            SlotKind::Control => "control",
            SlotKind::Effects => "effects",
            SlotKind::Audio => "audio",
            SlotKind::Render => "render",
            SlotKind::Net => "net",
            SlotKind::Input => "input",
        }
    }

    /// The slot named `name` (exact lower-case registry name).
    pub fn from_name(name: &str) -> Option<SlotKind> {
        SlotKind::ALL.into_iter().find(|s| s.as_str() == name)
    }
}

impl fmt::Display for SlotKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What kind of failure an error reports: an open number, so later versions can add
/// kinds without breaking older plugins (compare with the constants, treat unknown
/// values as [`ErrorKind::FAILED`]).
#[repr(transparent)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ErrorKind(pub u32);

impl ErrorKind {
    /// An ordinary failure.
    pub const FAILED: Self = Self(0);
    /// A panic inside the plugin, caught before the boundary.
    pub const PANICKED: Self = Self(1);
    /// The factory, service or method does not exist.
    pub const UNSUPPORTED: Self = Self(2);
    /// A state blob of an unknown format or version.
    pub const BAD_STATE: Self = Self(3);
    /// Interface version mismatch.
    pub const VERSION: Self = Self(4);
    /// No such object (unknown id, or a handle whose object is gone: generation check).
    pub const NO_SUCH_OBJECT: Self = Self(5);
    /// A value refused by validation (NaN or infinite numbers, oversized payloads, a
    /// reserved message code, a write to a mirror by a slot that does not own mirrors).
    pub const INVALID: Self = Self(6);
    /// The operation is not allowed in the current phase.
    pub const FORBIDDEN: Self = Self(7);
    /// A service call that would re-enter a plugin already running (refused: the
    /// caller would see its own half-finished state).
    pub const REENTRY: Self = Self(8);
    /// No active plugin provides the service.
    pub const NO_PROVIDER: Self = Self(9);
    /// A game file or entry that does not exist.
    pub const NOT_FOUND: Self = Self(10);
    /// (2.1) Terrain: a route end lies in no areal of the map.
    pub const NO_AREA: Self = Self(11);
    /// (2.1) Terrain: no chain of walkable areals joins the route's ends (or an end's
    /// areal is not walkable).
    pub const UNREACHABLE: Self = Self(12);
    /// (2.9) A callback the instance does not take ([`PluginError::declined`]: its trait
    /// method kept the default body, or an override answered it). The host stops calling
    /// that callback on that instance; it is never a fault. Only a host of 2.9 or later
    /// is told (an older host's calls answer `Ok`).
    pub const DECLINED: Self = Self(13);

    /// A stable lower-case name (`"panicked"`, …; `"kind 42"` for unknown values).
    pub fn name(self) -> String {
        match self {
            Self::FAILED => "failed".into(),
            Self::PANICKED => "panicked".into(),
            Self::UNSUPPORTED => "unsupported".into(),
            Self::BAD_STATE => "bad state".into(),
            Self::VERSION => "version".into(),
            Self::NO_SUCH_OBJECT => "no such object".into(),
            Self::INVALID => "invalid".into(),
            Self::FORBIDDEN => "forbidden".into(),
            Self::REENTRY => "re-entry".into(),
            Self::NO_PROVIDER => "no provider".into(),
            Self::NOT_FOUND => "not found".into(),
            Self::NO_AREA => "no area".into(),
            Self::UNREACHABLE => "unreachable".into(),
            Self::DECLINED => "declined".into(),
            Self(n) => format!("kind {n}"),
        }
    }
}

/// An error crossing the boundary in either direction: kind plus message. Never a panic.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq, Eq)]
pub struct PluginError {
    /// The kind.
    pub kind: ErrorKind,
    /// Human-readable message.
    pub message: RString,
}

impl PluginError {
    /// An [`ErrorKind::FAILED`] error.
    pub fn failed(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::FAILED, message)
    }

    /// An error of `kind`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: RString::from(message.into()),
        }
    }

    /// An error of `kind` carrying `error` and its whole source chain as text
    /// ([`error_chain`]: the message crosses the boundary, the chain is not lost).
    pub fn from_error(kind: ErrorKind, error: &dyn std::error::Error) -> Self {
        Self::new(kind, error_chain(error))
    }

    /// (2.9) The answer of a callback the instance does not take ([`ErrorKind::DECLINED`]):
    /// what the default bodies of [`crate::Plugin`]'s callbacks and of
    /// [`crate::Renderer::world`] answer, and what an override answers to decline (for
    /// example a type serving several factories that takes `update` in one of them
    /// only). The host never calls that callback on that instance again (a swapped-in
    /// instance starts afresh); it is no fault.
    pub fn declined() -> Self {
        Self::new(ErrorKind::DECLINED, "declined: not taken by this instance")
    }

    /// The [`ErrorKind::UNSUPPORTED`] answer of a plugin's `create` for a factory it
    /// does not have: `<plugin> has no factory '<factory>'`.
    pub fn no_factory(plugin: &str, factory: &str) -> Self {
        Self::new(
            ErrorKind::UNSUPPORTED,
            format!("{plugin} has no factory '{factory}'"),
        )
    }
}

/// `error` and each of its sources, `": "`-separated, outermost first.
pub fn error_chain(error: &dyn std::error::Error) -> String {
    let mut s = error.to_string();
    let mut source = error.source();
    while let Some(inner) = source {
        s.push_str(": ");
        s.push_str(&inner.to_string());
        source = inner.source();
    }
    s
}

impl fmt::Display for PluginError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.name(), self.message)
    }
}

impl std::error::Error for PluginError {}

/// The callbacks of a plugin instance, as bits.
///
/// **Since 2.9 the callbacks a plugin takes are derived from its implementation**: the
/// host calls every callback, and a [`crate::Plugin`] method left with its default body
/// (or an override answering [`PluginError::declined`]) declines it, after which the
/// host never calls that callback on that instance again. Overriding a method is the
/// whole declaration: nothing to keep in step, nothing that fails silently, and nothing
/// added to the calls a plugin takes.
///
/// [`FactoryDescription::callbacks`] is read **only from plugins built before 2.9**,
/// whose hosts called just the declared callbacks; the host keeps what each instance
/// still takes with these bits.
pub mod callbacks {
    /// `calculate_object` during queue traversal (AI and Control slots).
    pub const CALCULATE_OBJECT: u32 = 1 << 0;
    /// `on_message`.
    pub const MESSAGES: u32 = 1 << 1;
    /// `update` once per tick.
    pub const UPDATE: u32 = 1 << 2;
    /// The render service during `render_world`.
    pub const RENDER: u32 = 1 << 4;
    /// `end_frame`.
    pub const END_FRAME: u32 = 1 << 5;
    /// `maintenance`.
    pub const MAINTENANCE: u32 = 1 << 6;
    /// `object_added` (and, for a plugin built before 2.9, `object_removed` too).
    pub const OBJECTS: u32 = 1 << 7;
    /// (2.8) A renderer: `Renderer::world` with every object of the world before each
    /// frame's `draw` ([`crate::RenderWorld`]).
    pub const WORLD: u32 = 1 << 8;
    /// (2.9) `object_removed` (declined on its own, apart from `object_added`).
    pub const OBJECT_REMOVED: u32 = 1 << 9;
    /// (2.11) A renderer: `Renderer::effects` with the frame's effect primitives before
    /// each frame's `draw` ([`crate::EffectFrame`]).
    pub const EFFECTS: u32 = 1 << 10;
    /// Every callback.
    pub const ALL: u32 = CALCULATE_OBJECT
        | MESSAGES
        | UPDATE
        | RENDER
        | END_FRAME
        | MAINTENANCE
        | OBJECTS
        | WORLD
        | OBJECT_REMOVED
        | EFFECTS;

    /// The callbacks a host calls on a new instance of a factory of a plugin built
    /// against interface minor `abi_minor` that declared `declared`: every callback
    /// from 2.9 on (derived from the implementation), the declared ones before (where
    /// [`OBJECTS`] meant both object callbacks).
    pub fn initial(abi_minor: u32, declared: u32) -> u32 {
        if abi_minor >= 9 {
            ALL
        } else if declared & OBJECTS != 0 {
            declared | OBJECT_REMOVED
        } else {
            declared & !OBJECT_REMOVED
        }
    }
}

/// One factory a plugin library provides.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq, Eq)]
pub struct FactoryDescription {
    /// Factory name used in the registry (e.g. `LoadLandscape`, `wanderer`).
    pub name: RString,
    /// The slot its instances fill.
    pub slot: SlotKind,
    /// The callbacks its instances take ([`callbacks`] bits): read only from a plugin
    /// built before 2.9. Since 2.9 the host derives them from the implementation, and
    /// [`FactoryDescription::of`] fills in [`callbacks::ALL`].
    pub callbacks: u32,
}

impl FactoryDescription {
    /// A factory `name` filling `slot`. Its callbacks are the [`crate::Plugin`] methods
    /// its instances override (see [`callbacks`]).
    pub fn of(name: &str, slot: SlotKind) -> Self {
        Self {
            name: RString::from(name),
            slot,
            callbacks: callbacks::ALL,
        }
    }

    /// A factory `name` filling `slot` that declares `callbacks`. Since 2.9 the
    /// declaration is ignored (callbacks are derived from what the plugin overrides);
    /// the result is [`FactoryDescription::of`].
    #[deprecated(
        since = "2.9.0",
        note = "callbacks are derived from the methods you override: use FactoryDescription::of(name, slot)"
    )]
    pub fn new(name: &str, slot: SlotKind, callbacks: u32) -> Self {
        let _ = callbacks;
        Self::of(name, slot)
    }
}

/// What a plugin library says about itself.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq, Eq)]
pub struct PluginDescription {
    /// Plugin name (stable across versions).
    pub name: RString,
    /// Plugin version (free text, usually the crate version).
    pub version: RString,
    /// Interface major version it was built against.
    pub abi_major: u32,
    /// Interface minor version it was built against.
    pub abi_minor: u32,
    /// Whether the library was built with `panic = "unwind"` (filled in by
    /// [`crate::export_plugin!`] from the plugin crate's own build). The host refuses a
    /// library built with `panic = "abort"`: any panic in it would end the process.
    pub panic_unwind: bool,
    /// Its factories.
    pub factories: RVec<FactoryDescription>,
}

impl PluginDescription {
    /// A description of plugin `name` at `version`, built against this crate's interface
    /// version ([`crate::ABI_MAJOR`].[`crate::ABI_MINOR`]). `panic_unwind` is set by the
    /// export macro.
    pub fn current(name: &str, version: &str, factories: Vec<FactoryDescription>) -> Self {
        Self {
            name: RString::from(name),
            version: RString::from(version),
            abi_major: crate::ABI_MAJOR,
            abi_minor: crate::ABI_MINOR,
            panic_unwind: true,
            factories: RVec::from(factories),
        }
    }
}

/// A versioned state blob: the same blobs serve hot swap and save games.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, Default, PartialEq, Eq)]
pub struct StateBlob {
    /// Plugin-defined format name (a plugin refuses formats it does not know).
    pub format: RString,
    /// Format version.
    pub version: u32,
    /// The bytes.
    pub bytes: RVec<u8>,
}

impl StateBlob {
    /// A blob of `format`/`version` with no bytes (plugins without simulation state).
    pub fn empty(format: &str, version: u32) -> Self {
        Self {
            format: RString::from(format),
            version,
            bytes: RVec::new(),
        }
    }

    /// A blob of `format`/`version` holding `bytes`.
    pub fn new(format: &str, version: u32, bytes: Vec<u8>) -> Self {
        Self {
            format: RString::from(format),
            version,
            bytes: RVec::from(bytes),
        }
    }

    /// `Ok` when the blob is `format` at `version`, else a [`ErrorKind::BAD_STATE`] error
    /// naming both.
    pub fn expect(&self, format: &str, version: u32) -> Result<&[u8], PluginError> {
        if self.format.as_str() == format && self.version == version {
            Ok(self.bytes.as_slice())
        } else {
            Err(PluginError::new(
                ErrorKind::BAD_STATE,
                format!(
                    "expected state {format} v{version}, got {} v{} ({} bytes)",
                    self.format,
                    self.version,
                    self.bytes.len()
                ),
            ))
        }
    }
}

/// The identity of the mission a plugin instance serves, handed to `mission_start`.
/// Game files are read through the host (`Host::read_mission_file`), never by path.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq, Eq)]
pub struct MissionInfo {
    /// Mission or scenario name.
    pub mission: RString,
    /// Master seed; plugins derive their own RNG streams from it (and save them in their
    /// state), e.g. with [`crate::rng::PluginRng`].
    pub seed: u64,
    /// Simulation ticks per second.
    pub tick_hz: u32,
    /// Loads in this process so far, this one included (a second mission in the same
    /// process gets a fresh instance and a higher number).
    pub load_number: u32,
    /// Whether the mission has game data (false for the built-in scenario).
    pub has_game_data: bool,
}

/// Counters a render backend returns per frame.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RenderStats {
    /// Draw items submitted.
    pub draw_items: u32,
    /// Objects seen.
    pub objects: u32,
}

/// An RGBA8 image (captures).
#[repr(C)]
#[derive(StableAbi, Clone, Debug, Default, PartialEq, Eq)]
pub struct ImageRgba8 {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height * 4` bytes, rows top to bottom.
    pub pixels: RVec<u8>,
}

/// (2.2) A link between two adjacent areas, in either direction: a way a route may be
/// asked to avoid ([`crate::HostApi::terrain_passage`]).
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AreaLink {
    /// One area id.
    pub a: u32,
    /// The other area id.
    pub b: u32,
}

impl AreaLink {
    /// The link between `a` and `b`.
    pub fn new(a: u32, b: u32) -> Self {
        Self { a, b }
    }

    /// The same link with its ends in ascending order (`a <= b`).
    pub fn normalized(self) -> Self {
        Self {
            a: self.a.min(self.b),
            b: self.a.max(self.b),
        }
    }

    /// Whether this link joins `x` and `y` (in either direction).
    pub fn joins(self, x: u32, y: u32) -> bool {
        (self.a == x && self.b == y) || (self.a == y && self.b == x)
    }
}

/// (2.2) A route and its corridor in one answer: the area ids from start to goal and
/// the portal between each consecutive pair (`portals.len() == route.len() - 1`).
#[repr(C)]
#[derive(StableAbi, Clone, Debug, Default, PartialEq)]
pub struct Passage {
    /// Area ids from the start's area to the goal's, both included.
    pub route: RVec<u32>,
    /// The portal between `route[i]` and `route[i + 1]`.
    pub portals: RVec<Portal>,
}

/// One portal of a corridor: the edge shared by two consecutive areas of a route.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, Default, PartialEq)]
pub struct Portal {
    /// First end of the shared edge.
    pub a: Vec3f,
    /// Second end of the shared edge.
    pub b: Vec3f,
}

#[cfg(test)]
mod callback_tests {
    use super::callbacks::*;

    #[test]
    fn a_plugin_before_2_9_is_called_for_what_it_declared_and_a_newer_one_for_everything() {
        assert_eq!(initial(9, 0), ALL);
        assert_eq!(initial(12, UPDATE), ALL);
        assert_eq!(initial(8, UPDATE), UPDATE);
        assert_eq!(
            initial(8, OBJECTS | MESSAGES),
            OBJECTS | OBJECT_REMOVED | MESSAGES
        );
        assert_eq!(
            initial(8, OBJECT_REMOVED),
            0,
            "a bit no older plugin could mean"
        );
    }
}
