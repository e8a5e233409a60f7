//! Plain FFI-safe data that crosses the kernel–plugin boundary: errors, descriptions,
//! per-call views of objects and time, messages, commands and state blobs.

use crate::math::{Quatf, Vec3f};
use abi_stable::StableAbi;
use abi_stable::std_types::{RSlice, RString, RVec};
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

/// What kind of failure a plugin reports.
#[repr(u8)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// An ordinary failure.
    Failed,
    /// A panic inside the plugin, caught by [`crate::guard`] before the boundary.
    Panicked,
    /// The factory or service does not exist in this plugin.
    Unsupported,
    /// A state blob of an unknown format or version.
    BadState,
    /// Interface version mismatch.
    Version,
}

/// A plugin-side error: kind plus message. Never a panic across the boundary.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq, Eq)]
pub struct PluginError {
    /// The kind.
    pub kind: ErrorKind,
    /// Human-readable message.
    pub message: RString,
}

impl PluginError {
    /// A [`ErrorKind::Failed`] error.
    pub fn failed(message: impl Into<String>) -> Self {
        Self {
            kind: ErrorKind::Failed,
            message: RString::from(message.into()),
        }
    }

    /// An error of `kind`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: RString::from(message.into()),
        }
    }
}

impl fmt::Display for PluginError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}: {}", self.kind, self.message)
    }
}

/// Bits of [`FactoryDescription::callbacks`]: which `Subsystem` callbacks an instance
/// implements. The host skips the others (no call, no object views built for them).
pub mod callbacks {
    /// `calculate_object` during queue traversal.
    pub const CALCULATE_OBJECT: u32 = 1 << 0;
    /// `on_object_message` / `on_message`.
    pub const MESSAGES: u32 = 1 << 1;
    /// `update` (without needing the objects slice).
    pub const UPDATE: u32 = 1 << 2;
    /// `update` with every registered object in the slice (implies [`UPDATE`]).
    pub const UPDATE_OBJECTS: u32 = 1 << 3;
    /// The render service during `render_world`.
    pub const RENDER: u32 = 1 << 4;
    /// `end_frame`.
    pub const END_FRAME: u32 = 1 << 5;
    /// `maintenance`.
    pub const MAINTENANCE: u32 = 1 << 6;
    /// Every callback.
    pub const ALL: u32 =
        CALCULATE_OBJECT | MESSAGES | UPDATE | UPDATE_OBJECTS | RENDER | END_FRAME | MAINTENANCE;
}

/// One factory a plugin library provides.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq, Eq)]
pub struct FactoryDescription {
    /// Factory name used in the registry (e.g. `LoadLandscape`, `wanderer`).
    pub name: RString,
    /// The slot its instances fill.
    pub slot: SlotKind,
    /// The callbacks its instances implement ([`callbacks`] bits).
    pub callbacks: u32,
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
    /// Its factories.
    pub factories: RVec<FactoryDescription>,
}

impl FactoryDescription {
    /// A factory `name` filling `slot` with the given callback bits.
    pub fn new(name: &str, slot: SlotKind, callbacks: u32) -> Self {
        Self {
            name: RString::from(name),
            slot,
            callbacks,
        }
    }
}

impl PluginDescription {
    /// A description of plugin `name` at `version`, built against this crate's interface
    /// version ([`crate::ABI_MAJOR`].[`crate::ABI_MINOR`]).
    pub fn current(name: &str, version: &str, factories: Vec<FactoryDescription>) -> Self {
        Self {
            name: RString::from(name),
            version: RString::from(version),
            abi_major: crate::ABI_MAJOR,
            abi_minor: crate::ABI_MINOR,
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
}

/// Mission start-up data handed to `Subsystem::init`.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq, Eq)]
pub struct MissionContext {
    /// Mission or scenario name.
    pub mission: RString,
    /// Master seed; plugins derive their own RNG streams from it (and save them in their state).
    pub seed: u64,
    /// Simulation ticks per second.
    pub tick_hz: u32,
    /// File-system path of the game directory (empty for the built-in scenario).
    pub game_dir: RString,
    /// File-system path of the mission directory holding `Land.msh` / `Land.map`
    /// (empty when the mission has none, e.g. the built-in scenario).
    pub mission_dir: RString,
}

/// A game command from input (`code`, `arg`), as in the kernel's input snapshot.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq)]
pub struct InputCommand {
    /// Command code.
    pub code: u32,
    /// Argument.
    pub arg: i32,
}

/// Time and input of the tick being computed.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug)]
pub struct TickInfo<'a> {
    /// Tick number.
    pub tick: u64,
    /// Fixed step in nanoseconds.
    pub step_ns: u64,
    /// Game commands of this tick, in arrival order.
    pub commands: RSlice<'a, InputCommand>,
    /// Keys held at this tick, ascending.
    pub held_keys: RSlice<'a, u32>,
}

impl TickInfo<'_> {
    /// The step in seconds.
    pub fn step_seconds(&self) -> f32 {
        self.step_ns as f32 / 1e9
    }
}

/// The mutable view of one object during a call. The kernel copies it in and writes the
/// simulation fields back after the call.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, Default, PartialEq)]
pub struct ObjectState {
    /// Original object id (raw).
    pub id: u32,
    /// Prototype / type number.
    pub kind: u32,
    /// True for a mirror of a remote object.
    pub is_mirror: bool,
    /// Takes part in calculation.
    pub active: bool,
    /// Position (written back).
    pub position: Vec3f,
    /// Orientation (written back).
    pub orientation: Quatf,
    /// Scale (written back).
    pub scale: Vec3f,
    /// Velocity (written back).
    pub velocity: Vec3f,
    /// AI / behaviour state id (written back).
    pub behaviour_state: u32,
}

/// Message codes: the original `GMSG_*` / `SYSMSG_*` names plus collision.
#[repr(u32)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq)]
pub enum MessageCode {
    /// `GMSG_CREATE_REMOTE_PLAYER`.
    CreateRemotePlayer,
    /// `GMSG_APPEND_RESOURCE`.
    AppendResource,
    /// `GMSG_CHANGE_OBJECT_OWNER`.
    ChangeObjectOwner,
    /// `GMSG_SET_PLAYER_DATA`.
    SetPlayerData,
    /// `GMSG_MISSION_DATA_PATH`.
    MissionDataPath,
    /// `GMSG_TAKE_OBJECT`.
    TakeObject,
    /// `GMSG_TEXT_FOR_PLAYER`.
    TextForPlayer,
    /// `GMSG_SYNC_STATE`.
    SyncState,
    /// `GMSG_CREATE_MIRROR`.
    CreateMirror,
    /// `GMSG_PAUSE_REMOTE_PLAYER`.
    PauseRemotePlayer,
    /// `GMSG_CONFIRM_PLAYER_DATA`.
    ConfirmPlayerData,
    /// `GMSG_KILL_PLAYER`.
    KillPlayer,
    /// `SYSMSG_SET_TIME`.
    SetTime,
    /// `SYSMSG_SET_PLAYER_NUMBER`.
    SetPlayerNumber,
    /// `GMSG_END_MESSAGE_SEQ`.
    EndMessageSeq,
    /// `GMSG_REMOVE_RESOURCE`.
    RemoveResource,
    /// `GMSG_COLLISION_DETECTED`.
    CollisionDetected,
}

/// A bus message in flat form: the code selects which fields carry meaning.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq)]
pub struct MessageView {
    /// Which message.
    pub code: MessageCode,
    /// Sender sequence number.
    pub sequence: u64,
    /// First object id (`a`, `object`).
    pub object_a: u32,
    /// Second object id (`b`).
    pub object_b: u32,
    /// Player number or owner.
    pub player: u32,
    /// Numeric value (time, sequence, flag).
    pub value: u64,
    /// Point (collision contact).
    pub point: Vec3f,
    /// Raw payload (names, text, data).
    pub data: RVec<u8>,
}

impl MessageView {
    /// A message with only `code` set.
    pub fn new(code: MessageCode) -> Self {
        Self {
            code,
            sequence: 0,
            object_a: 0,
            object_b: 0,
            player: 0,
            value: 0,
            point: Vec3f::default(),
            data: RVec::new(),
        }
    }
}

/// What a plugin asks the kernel to do after a call (applied in order, through the
/// kernel's own rules: deletions are deferred during traversal, sends wait for a boundary).
#[repr(u8)]
#[derive(StableAbi, Clone, Debug, PartialEq)]
pub enum Command {
    /// `DeleteGameObject` on the object with this original id.
    DeleteObject {
        /// Original id.
        id: u32,
    },
    /// `KillGameObject` on the object with this original id.
    KillObject {
        /// Original id.
        id: u32,
    },
    /// Send a message to one object.
    SendToObject {
        /// Original id of the target.
        id: u32,
        /// The message.
        message: MessageView,
    },
    /// Send a message to every system.
    Broadcast {
        /// The message.
        message: MessageView,
    },
}

/// Immutable frame data for render backends.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug)]
pub struct FrameView<'a> {
    /// Presented frame number.
    pub frame: u64,
    /// Last completed tick.
    pub tick: u64,
    /// Visible objects.
    pub objects: RSlice<'a, ObjectState>,
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

/// One portal of a corridor: the edge shared by two consecutive areas of a route.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, Default, PartialEq)]
pub struct Portal {
    /// First end of the shared edge.
    pub a: Vec3f,
    /// Second end of the shared edge.
    pub b: Vec3f,
}

/// A network packet.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, Default, PartialEq, Eq)]
pub struct Packet {
    /// Transport peer id (not an object id).
    pub peer: u32,
    /// Payload.
    pub bytes: RVec<u8>,
}

/// A raw input event from an input plugin.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq)]
pub struct RawInputEvent {
    /// 0 key, 1 axis, 2 command.
    pub kind: u8,
    /// Key code, axis number or command code.
    pub code: u32,
    /// Key down (1) / up (0), or command argument.
    pub value: i32,
    /// Axis value.
    pub axis: f32,
}
