//! Terrain plugin (`terrain` factory, Terrain slot) behind the ABI's `TerrainService`:
//! surface height/normal and segment intersection from `Land.msh` ([`Surface`], with its
//! own X/Y cell accelerator), area lookup and A* routes over the `Land.map` areal graph
//! ([`Areals`]), plus the portal corridor of a route for movement controllers.
//!
//! # Behaviour
//!
//! * `mission_start` reads the mission's `Land.msh` and `Land.map` through the host's
//!   VFS (`Host::read_mission_file`: mission directory first, case-insensitive; the
//!   plugin never opens files by path). A mission without game data or without the
//!   files is not an error: the instance starts **without a map** and every query fails
//!   with "no map" (never a fake surface). A file that exists but does not parse fails
//!   `mission_start`.
//! * Queries off the surface fail explicitly; `area_at` misses are `RNone`; routes fail
//!   with [`RouteError`] (no map, no area under a point, not walkable, unreachable).
//! * The sky object ([`sky`]): `mission_start` also reads the sky block of
//!   `mission.cfg` (a bad line fails it, naming line and parameter); `update` steps it
//!   once per tick and sends the weather, the rain loop, strikes and thunder.
//! * State ([`STATE_FORMAT`] v2): the identity of the loaded data (see
//!   [`DataIdentity`]), then a 0/1 byte and, when 1, the atmosphere's state
//!   ([`iron3d_effects_rules::sky::Atmosphere::save`]). The accelerators are caches
//!   rebuilt from the files and never part of the (hashed) state. `restore_state` checks
//!   that the identity matches the data the instance loaded in `init` and that both
//!   have a sky or neither; a v1 blob (identity only, from an older terrain plugin) is
//!   taken too and the sky starts afresh.

mod areals;
pub mod sky;
mod surface;

pub use areals::{Areals, RouteError};
pub use surface::Surface;

use glam::Vec3;
use iron3d_abi::{
    AreaLink, ErrorKind, FactoryDescription, GroundSample, Host, MissionInfo, Passage, Plugin,
    PluginDescription, PluginError, Portal, SlotKind, StateBlob, TerrainProvider, Vec3f,
};
use std::path::Path;

/// State blob format name.
pub const STATE_FORMAT: &str = "iron3d-terrain";
/// State blob version.
pub const STATE_VERSION: u32 = 2;
/// Factory name.
pub const FACTORY: &str = "terrain";
/// Size of the data identity in bytes (the whole v1 payload; the start of v2).
const STATE_LEN: usize = 33;

fn describe() -> PluginDescription {
    PluginDescription::current(
        "iron3d-terrain",
        env!("CARGO_PKG_VERSION"),
        vec![FactoryDescription::of(FACTORY, SlotKind::Terrain)],
    )
}

fn create(factory: &str) -> Result<Box<dyn Plugin>, PluginError> {
    if factory != FACTORY {
        return Err(PluginError::no_factory("iron3d-terrain", factory));
    }
    Ok(Box::new(TerrainPlugin::new_local()))
}

iron3d_abi::export_plugin!(describe = super::describe, create = super::create);

/// 64-bit FNV-1a of `bytes` (offset basis `0xcbf29ce484222325`, prime `0x100000001b3`).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Identity of the loaded terrain files: byte length and FNV-1a-64 of each.
///
/// Encoded as 33 little-endian bytes: `u8 loaded (0/1)`, `u64 msh_len`, `u64 msh_fnv`,
/// `u64 map_len`, `u64 map_fnv` (all zero without a map).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DataIdentity {
    /// `Land.msh` length in bytes.
    pub msh_len: u64,
    /// FNV-1a-64 of `Land.msh`.
    pub msh_fnv: u64,
    /// `Land.map` length in bytes.
    pub map_len: u64,
    /// FNV-1a-64 of `Land.map`.
    pub map_fnv: u64,
}

impl DataIdentity {
    /// The identity of two file images.
    pub fn of(msh: &[u8], map: &[u8]) -> Self {
        Self {
            msh_len: msh.len() as u64,
            msh_fnv: fnv1a64(msh),
            map_len: map.len() as u64,
            map_fnv: fnv1a64(map),
        }
    }
}

fn encode_identity(id: Option<DataIdentity>) -> Vec<u8> {
    let mut b = Vec::with_capacity(STATE_LEN);
    b.push(u8::from(id.is_some()));
    let d = id.unwrap_or_default();
    for v in [d.msh_len, d.msh_fnv, d.map_len, d.map_fnv] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    b
}

fn decode_identity(b: &[u8]) -> Option<Option<DataIdentity>> {
    if b.len() != STATE_LEN || b[0] > 1 {
        return None;
    }
    let word = |i: usize| -> Option<u64> {
        let s = b.get(1 + 8 * i..9 + 8 * i)?;
        Some(u64::from_le_bytes(s.try_into().ok()?))
    };
    let d = DataIdentity {
        msh_len: word(0)?,
        msh_fnv: word(1)?,
        map_len: word(2)?,
        map_fnv: word(3)?,
    };
    Some((b[0] == 1).then_some(d))
}

/// The loaded terrain: surface, areal graph and the identity of their files.
#[derive(Clone, Debug)]
pub struct World {
    /// The surface from `Land.msh`.
    pub surface: Surface,
    /// The areal graph from `Land.map`.
    pub areals: Areals,
    /// Identity of the two files.
    pub identity: DataIdentity,
}

/// Why loading terrain data failed (a file exists but is not valid).
#[derive(Debug)]
pub enum LoadError {
    /// Reading a file failed for a reason other than "not found".
    Io(String, std::io::Error),
    /// `Land.msh` does not parse.
    Msh(iron3d_landmsh::LandMshError),
    /// `Land.map` does not parse.
    Map(iron3d_landmap::LandMapError),
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Io(p, e) => write!(f, "cannot read {p}: {e}"),
            Self::Msh(e) => write!(f, "bad Land.msh: {e}"),
            Self::Map(e) => write!(f, "bad Land.map: {e}"),
        }
    }
}

impl std::error::Error for LoadError {}

impl World {
    /// Builds the world from the two file images.
    pub fn from_bytes(msh: &[u8], map: &[u8]) -> Result<Self, LoadError> {
        let land = iron3d_landmsh::LandMsh::parse(msh).map_err(LoadError::Msh)?;
        let file = iron3d_landmap::LandMapFile::parse(map).map_err(LoadError::Map)?;
        Ok(Self {
            surface: Surface::from_streams(&land.streams),
            areals: Areals::new(file.map()),
            identity: DataIdentity::of(msh, map),
        })
    }

    /// Loads `Land.msh` and `Land.map` from `dir` (exact name, then lower case);
    /// `Ok(None)` when `dir` is empty or either file is missing.
    pub fn load(dir: &str) -> Result<Option<Self>, LoadError> {
        if dir.is_empty() {
            return Ok(None);
        }
        let read = |name: &str| -> Result<Option<Vec<u8>>, LoadError> {
            for n in [name.to_owned(), name.to_lowercase()] {
                let p = Path::new(dir).join(&n);
                match std::fs::read(&p) {
                    Ok(b) => return Ok(Some(b)),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => return Err(LoadError::Io(p.display().to_string(), e)),
                }
            }
            Ok(None)
        };
        let (Some(msh), Some(map)) = (read("Land.msh")?, read("Land.map")?) else {
            return Ok(None);
        };
        Self::from_bytes(&msh, &map).map(Some)
    }

    /// Route between the areas under two points: an end in no areal is
    /// [`ErrorKind::NO_AREA`], no walkable chain (or a non-walkable end) is
    /// [`ErrorKind::UNREACHABLE`].
    pub fn route_points(&self, from: Vec3, to: Vec3) -> Result<Vec<u32>, PluginError> {
        self.route_points_avoiding(from, to, &[])
    }

    /// [`Self::route_points`] never stepping along a link of `avoid` (either
    /// direction).
    pub fn route_points_avoiding(
        &self,
        from: Vec3,
        to: Vec3,
        avoid: &[(u32, u32)],
    ) -> Result<Vec<u32>, PluginError> {
        let area = |p: Vec3, end: &str| {
            self.areals.area_at(p.x, p.y).ok_or_else(|| {
                PluginError::new(
                    ErrorKind::NO_AREA,
                    format!("route {end} ({}, {}) is in no area", p.x, p.y),
                )
            })
        };
        let (a, b) = (area(from, "start")?, area(to, "goal")?);
        self.areals.route_avoiding(a, b, avoid).map_err(|e| {
            let kind = match e {
                RouteError::NotWalkable { .. } | RouteError::Unreachable { .. } => {
                    ErrorKind::UNREACHABLE
                }
                RouteError::NoMap => ErrorKind::NOT_FOUND,
                RouteError::NoSuchArea { .. } => ErrorKind::NO_AREA,
            };
            PluginError::new(kind, e.to_string())
        })
    }
}

/// The terrain plugin instance.
pub struct TerrainPlugin {
    world: Option<World>,
    atmosphere: Option<iron3d_effects_rules::sky::Atmosphere>,
}

impl TerrainPlugin {
    /// An instance without a map (call [`TerrainPlugin::start_with`] or let the host
    /// start it).
    pub fn new_local() -> Self {
        Self {
            world: None,
            atmosphere: None,
        }
    }

    /// The sky's atmosphere, if the mission has a sky.
    pub fn atmosphere(&self) -> Option<&iron3d_effects_rules::sky::Atmosphere> {
        self.atmosphere.as_ref()
    }

    /// Gives the instance the sky `sky` with draws from `seed` (`None`: no sky), as
    /// `mission_start` does from `mission.cfg` (tests and tools).
    pub fn start_sky(&mut self, sky: Option<iron3d_effects_rules::sky::SkyConfig>, seed: u64) {
        self.atmosphere = sky.map(|s| {
            iron3d_effects_rules::sky::Atmosphere::new(
                s,
                sky::default_bounds(self.world.as_ref()),
                seed,
            )
        });
    }

    /// The loaded world, if any.
    pub fn world(&self) -> Option<&World> {
        self.world.as_ref()
    }

    /// Starts on the files `read` returns (`Ok(None)`: absent): both present → the map,
    /// either absent → no map, a broken file → an error.
    pub fn start_with(
        &mut self,
        read: impl Fn(&str) -> Result<Option<Vec<u8>>, PluginError>,
    ) -> Result<(), PluginError> {
        let (msh, map) = (read("Land.msh")?, read("Land.map")?);
        self.world = match (msh, map) {
            (Some(msh), Some(map)) => Some(
                World::from_bytes(&msh, &map)
                    .map_err(|e| PluginError::failed(format!("terrain start: {e}")))?,
            ),
            _ => None,
        };
        match &self.world {
            Some(w) => tracing::debug!(
                faces = w.surface.face_count(),
                areas = w.areals.len(),
                "terrain loaded"
            ),
            None => tracing::info!("no terrain files: queries answer 'no map'"),
        }
        Ok(())
    }

    /// Starts from the files in `dir` (exact names, then lower case; tests and tools).
    pub fn start_from_dir(&mut self, dir: &str) -> Result<(), PluginError> {
        self.world =
            World::load(dir).map_err(|e| PluginError::failed(format!("terrain start: {e}")))?;
        Ok(())
    }

    /// The loaded map, or [`ErrorKind::NOT_FOUND`] naming the query.
    fn loaded(&self, what: &str) -> Result<&World, PluginError> {
        self.world.as_ref().ok_or_else(|| {
            PluginError::new(
                ErrorKind::NOT_FOUND,
                format!("{what}: no map (no Land.msh/Land.map loaded)"),
            )
        })
    }

    fn with_world<T>(
        &self,
        what: &str,
        body: impl FnOnce(&World) -> Result<T, String>,
    ) -> Result<T, PluginError> {
        match &self.world {
            None => Err(PluginError::failed(format!(
                "{what}: no map (no Land.msh/Land.map loaded)"
            ))),
            Some(w) => body(w).map_err(|m| PluginError::failed(format!("{what}: {m}"))),
        }
    }
}

impl Plugin for TerrainPlugin {
    fn mission_start(
        &mut self,
        host: &mut Host<'_>,
        mission: &MissionInfo,
    ) -> Result<(), PluginError> {
        self.atmosphere = None;
        if !mission.has_game_data {
            tracing::info!("no game data: terrain queries answer 'no map'");
            self.world = None;
            return Ok(());
        }
        let sky = sky::read_sky(host)?;
        self.start_with(|name| match host.read_mission_file(name) {
            Ok(b) => Ok(Some(b)),
            Err(e) if e.kind == ErrorKind::NOT_FOUND => {
                tracing::warn!(
                    file = name,
                    "mission has no terrain file: queries will fail with 'no map'"
                );
                Ok(None)
            }
            Err(e) => Err(e),
        })?;
        self.atmosphere = sky.map(|s| sky::atmosphere(host, s, self.world.as_ref()));
        Ok(())
    }

    fn update(&mut self, host: &mut Host<'_>) -> Result<(), PluginError> {
        match &mut self.atmosphere {
            Some(a) => sky::step(host, a),
            None => Ok(()),
        }
    }

    fn save_state(&self) -> Result<StateBlob, PluginError> {
        let mut bytes = encode_identity(self.world.as_ref().map(|w| w.identity));
        bytes.push(u8::from(self.atmosphere.is_some()));
        if let Some(a) = &self.atmosphere {
            bytes.extend_from_slice(&a.save());
        }
        Ok(StateBlob::new(STATE_FORMAT, STATE_VERSION, bytes))
    }

    fn restore_state(&mut self, blob: &StateBlob) -> Result<(), PluginError> {
        let bad = |why: String| PluginError::new(ErrorKind::BAD_STATE, why);
        let (bytes, sky) = if blob.format.as_str() == STATE_FORMAT && blob.version == 1 {
            (blob.bytes.as_slice(), None)
        } else {
            let bytes = blob.expect(STATE_FORMAT, STATE_VERSION)?;
            let rest = bytes.get(STATE_LEN..).unwrap_or_default();
            match rest.split_first() {
                Some((0, [])) => (&bytes[..STATE_LEN], Some(None)),
                Some((1, atmosphere)) => (&bytes[..STATE_LEN], Some(Some(atmosphere))),
                _ => {
                    return Err(bad(format!(
                        "{STATE_FORMAT} v2 needs {STATE_LEN} identity bytes, then 0, or 1 and the atmosphere"
                    )));
                }
            }
        };
        let Some(saved) = decode_identity(bytes) else {
            return Err(bad(format!(
                "{STATE_FORMAT} needs {STATE_LEN} identity bytes with a 0/1 flag"
            )));
        };
        let ours = self.world.as_ref().map(|w| w.identity);
        if saved != ours {
            return Err(PluginError::new(
                ErrorKind::BAD_STATE,
                format!("saved terrain identity {saved:?} differs from the loaded data {ours:?}"),
            ));
        }
        match (sky, &mut self.atmosphere) {
            // v1: the sky starts afresh.
            (None, _) | (Some(None), None) => Ok(()),
            (Some(Some(state)), Some(a)) => {
                let mut restored = a.clone();
                restored
                    .restore(state)
                    .map_err(|e| bad(format!("terrain sky: {e}")))?;
                *a = restored;
                Ok(())
            }
            (Some(Some(_)), None) => Err(bad(
                "the saved terrain has a sky; this mission's mission.cfg has none".into(),
            )),
            (Some(None), Some(_)) => Err(bad(
                "the saved terrain has no sky; this mission's mission.cfg has one".into(),
            )),
        }
    }

    fn terrain(&self) -> Option<&dyn TerrainProvider> {
        Some(self)
    }
}

impl TerrainProvider for TerrainPlugin {
    fn probe(&self, points: &[Vec3f]) -> Result<Vec<GroundSample>, PluginError> {
        let Some(w) = &self.world else {
            return Err(PluginError::new(
                ErrorKind::NOT_FOUND,
                "probe: no map (no Land.msh/Land.map loaded)",
            ));
        };
        Ok(points
            .iter()
            .map(|p| {
                let area = w.areals.area_at(p.x, p.y);
                let mut g = GroundSample {
                    area: area.unwrap_or(GroundSample::NO_AREA),
                    walkable: area.is_some_and(|a| w.areals.is_walkable(a)),
                    ..GroundSample::default()
                };
                if let Some((h, n)) = w.surface.sample(p.x, p.y) {
                    g.on_surface = true;
                    g.height = h;
                    g.normal = n.into();
                }
                g
            })
            .collect())
    }

    fn height_at(&self, x: f32, y: f32) -> Result<f32, PluginError> {
        self.with_world("height_at", |w| {
            w.surface
                .height_at(x, y)
                .ok_or_else(|| format!("({x}, {y}) is off the surface"))
        })
    }

    fn normal_at(&self, x: f32, y: f32) -> Result<Vec3f, PluginError> {
        self.with_world("normal_at", |w| {
            w.surface
                .normal_at(x, y)
                .map(Vec3f::from)
                .ok_or_else(|| format!("({x}, {y}) is off the surface"))
        })
    }

    fn intersect_segment(&self, a: Vec3f, b: Vec3f) -> Result<Option<Vec3f>, PluginError> {
        self.with_world("intersect_segment", |w| {
            Ok(w.surface
                .intersect_segment(a.into(), b.into())
                .map(Vec3f::from))
        })
    }

    fn area_at(&self, x: f32, y: f32) -> Result<Option<u32>, PluginError> {
        self.with_world("area_at", |w| Ok(w.areals.area_at(x, y)))
    }

    fn route(&self, from: Vec3f, to: Vec3f) -> Result<Vec<u32>, PluginError> {
        self.loaded("route")?
            .route_points(from.into(), to.into())
            .map_err(|e| PluginError::new(e.kind, format!("route: {}", e.message)))
    }

    fn passage(&self, from: Vec3f, to: Vec3f, avoid: &[AreaLink]) -> Result<Passage, PluginError> {
        let w = self.loaded("passage")?;
        let avoid: Vec<(u32, u32)> = avoid.iter().map(|l| (l.a, l.b)).collect();
        let route = w
            .route_points_avoiding(from.into(), to.into(), &avoid)
            .map_err(|e| PluginError::new(e.kind, format!("passage: {}", e.message)))?;
        let portals = w
            .areals
            .corridor(&route)
            .into_iter()
            .map(|(a, b)| Portal {
                a: a.into(),
                b: b.into(),
            })
            .collect();
        Ok(Passage {
            route: route.into(),
            portals,
        })
    }

    fn corridor(&self, from: Vec3f, to: Vec3f) -> Result<Vec<Portal>, PluginError> {
        let w = self.loaded("corridor")?;
        let route = w
            .route_points(from.into(), to.into())
            .map_err(|e| PluginError::new(e.kind, format!("corridor: {}", e.message)))?;
        Ok(w.areals
            .corridor(&route)
            .into_iter()
            .map(|(a, b)| Portal {
                a: a.into(),
                b: b.into(),
            })
            .collect())
    }
}

#[cfg(test)]
mod tests;
