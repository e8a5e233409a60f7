//! The HUD of a running mission: loads the font and the mission's text through the
//! VFS, keeps the [`HudState`] the play loop fills each frame (the player clan's
//! figures counted from the kernel's world), and builds the frame's overlay in the frame
//! preparer (so every renderer draws it, interface 2.4).

use crate::{Font, Hud, HudError, HudState, Marker, MarkerKind, MissionText, Screen};
use glam::{Vec3, Vec4};
use iron3d_gameplay::clan::behavior_clan;
use iron3d_gameplay::params::shown_clan;
use iron3d_gameplay::property::{BEHAVIOR_CLAN, CURRENT_ORE, LIFE_STATE};
use iron3d_kernel::{Kernel, RenderSnapshot};
use iron3d_render_frame::FrameParams;
use iron3d_vfs::{ArchiveCache, GamePath, ReadMode, Vfs, VfsError};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// The world radius a selection marker brackets (units), and the smallest half side
/// in pixels (far-away units keep a visible marker).
const MARKER_RADIUS: f32 = 1.5;
const MARKER_MIN_HALF: f32 = 6.0;

/// The selection markers of a frame: each selected unit (and the followed or possessed
/// one) of the snapshot's player view as the frame's camera projects it, in
/// `params.target` pixels; units behind the eye get none.
pub fn markers(snapshot: &RenderSnapshot, params: &FrameParams) -> Vec<Marker> {
    let Some(view) = snapshot.view.as_ref() else {
        return Vec::new();
    };
    if view.selected.is_empty() && view.subject == 0 {
        return Vec::new();
    }
    let (w, h) = (params.target.width.max(1), params.target.height.max(1));
    let cam = &params.camera;
    let clip = cam.projection_matrix(w, h) * cam.view_matrix();
    let right = cam.right();
    let to_px = |p: Vec3| -> Option<[f32; 2]> {
        let c = clip * Vec4::from((p, 1.0));
        (c.w > cam.near * 0.5).then(|| {
            [
                (c.x / c.w * 0.5 + 0.5) * w as f32,
                (0.5 - c.y / c.w * 0.5) * h as f32,
            ]
        })
    };
    let mut out = Vec::new();
    for o in &snapshot.objects {
        let id = o.id.raw();
        let kind = if id == view.subject {
            MarkerKind::Subject
        } else if view.selected.binary_search(&id).is_ok() {
            MarkerKind::Selected
        } else {
            continue;
        };
        // The bracket is centred half a marker radius above the object's origin.
        let at = o.transform.position + Vec3::Z * MARKER_RADIUS * 0.5;
        let (Some(c), Some(e)) = (to_px(at), to_px(at + right * MARKER_RADIUS)) else {
            continue;
        };
        let half = ((e[0] - c[0]).hypot(e[1] - c[1])).max(MARKER_MIN_HALF);
        out.push(Marker {
            centre: c,
            half,
            kind,
        });
    }
    out
}

/// The HUD of a play session.
#[derive(Clone)]
pub struct HudView {
    /// The mission's HUD (font and text).
    pub hud: Arc<Hud>,
    /// What the next frame's HUD shows.
    pub state: Arc<Mutex<HudState>>,
    /// The player's clan slot.
    player_clan: u32,
    /// What players call the mission's units, by prototype (see [`unit_name`]).
    names: Arc<BTreeMap<Vec<u8>, Vec<u8>>>,
}

/// What the HUD calls an object made from `prototype` (**PD-HUD-UNIT-NAME**): the name
/// the data gives it in `names` (a unit DAT's root description, keyed by the resource
/// upper-cased), else the prototype's own name — the file stem of a path, `_` as a
/// space, the first letter upper-cased (`UNITS/Tank.dat` → `Tank`, `ore_truck` →
/// `Ore truck`); never an id. CP1251 bytes, as the HUD's text.
pub fn unit_name(prototype: &[u8], names: &BTreeMap<Vec<u8>, Vec<u8>>) -> Vec<u8> {
    if let Some(n) = names.get(&prototype.to_ascii_uppercase()) {
        return n.clone();
    }
    let file = prototype
        .rsplit(|&b| b == b'/' || b == b'\\')
        .next()
        .unwrap_or(prototype);
    let stem = match file.iter().rposition(|&b| b == b'.') {
        Some(dot) if dot > 0 => &file[..dot],
        _ => file,
    };
    let mut name: Vec<u8> = stem
        .iter()
        .map(|&b| if b == b'_' { b' ' } else { b })
        .collect();
    if let Some(first) = name.first_mut() {
        first.make_ascii_uppercase();
    }
    if name.is_empty() {
        name = b"Unit".to_vec();
    }
    name
}

/// The selection panel's lines (**PD-HUD-SELECTION**): `Selected: N`, then the kinds
/// selected by name, the most numerous first (ties by name), at most three lines —
/// `Tank chassis` for one, `3 x Ore truck` for several.
pub fn selection_lines(
    snapshot: &RenderSnapshot,
    selected: &[u32],
    names: &BTreeMap<Vec<u8>, Vec<u8>>,
) -> Vec<Vec<u8>> {
    if selected.is_empty() {
        return Vec::new();
    }
    let wanted: std::collections::BTreeSet<u32> = selected.iter().copied().collect();
    let mut kinds: BTreeMap<Vec<u8>, usize> = BTreeMap::new();
    for o in &snapshot.objects {
        if wanted.contains(&o.id.raw()) {
            *kinds.entry(unit_name(&o.prototype, names)).or_default() += 1;
        }
    }
    let mut kinds: Vec<(Vec<u8>, usize)> = kinds.into_iter().collect();
    kinds.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let mut lines = vec![format!("Selected: {}", selected.len()).into_bytes()];
    lines.extend(kinds.into_iter().take(3).map(|(name, n)| {
        if n == 1 {
            name
        } else {
            let mut l = format!("{n} x ").into_bytes();
            l.extend_from_slice(&name);
            l
        }
    }));
    lines
}

/// Reads `path` from the mission directory `mission` (then the game root); `None` when
/// neither has it.
fn mission_file(vfs: &Vfs, mission: &str, name: &str) -> Result<Option<Vec<u8>>, HudError> {
    let origin = || format!("MISSIONS/{mission}/{name}");
    let path_err = |source| HudError::Path {
        origin: origin(),
        source,
    };
    let dir = GamePath::parse(&format!("MISSIONS/{mission}")).map_err(path_err)?;
    let path = GamePath::parse(name).map_err(path_err)?;
    match vfs.resolve_in_mission(&dir, &path) {
        Ok(r) => std::fs::read(&r.path)
            .map(Some)
            .map_err(|source| HudError::Io {
                origin: r.path.display().to_string(),
                source,
            }),
        Err(VfsError::FileMissing { .. }) => Ok(None),
        Err(source) => Err(HudError::Vfs {
            origin: origin(),
            source: Box::new(source),
        }),
    }
}

/// The HUD font of the game directory (**PD-HUD-FONT**), or the built-in one when the
/// directory has none. A font file that is there but broken is an error. The entry is
/// read through the VFS's per-entry overlays, so a mod may replace the font entry alone.
pub fn load_font(vfs: &Vfs) -> Result<Font, HudError> {
    let archive = crate::font::FONT_ARCHIVE;
    let entry = crate::font::FONT_ENTRY;
    let origin = || format!("HUD font archive {archive}");
    let cache = ArchiveCache::new(ReadMode::Strict, FONT_CACHE_BUDGET);
    let path = GamePath::parse(archive).map_err(|source| HudError::Path {
        origin: origin(),
        source,
    })?;
    let bytes = match vfs.read_entry(&path, entry.as_bytes(), &cache) {
        Ok(bytes) => bytes,
        Err(VfsError::FileMissing { .. }) => {
            tracing::info!(target: "Iron3D", "no {archive}: the HUD uses the built-in font");
            return Ok(Font::builtin());
        }
        Err(source) => {
            return Err(HudError::Vfs {
                origin: origin(),
                source: Box::new(source),
            });
        }
    };
    Font::from_texm(&bytes, &format!("{archive}:{entry}"))
}

/// Blob budget of the font loader's own archive cache (one entry is read).
const FONT_CACHE_BUDGET: u64 = 16 << 20;

impl HudView {
    /// The HUD of `mission` in the game directory `vfs`: its font and its briefing,
    /// messages and objectives. A mission text file that does not parse is reported
    /// (with its file and line) and left out; the HUD still shows the rest.
    pub fn load(
        vfs: &Vfs,
        mission: &str,
        params: &std::collections::BTreeMap<String, String>,
        screen: Screen,
    ) -> Result<Self, HudError> {
        let font = load_font(vfs)?;
        let read = |name: &str| match mission_file(vfs, mission, name) {
            Ok(b) => b,
            Err(e) => {
                tracing::warn!(target: "Iron3D", file = name, error = %e, "mission text not read");
                None
            }
        };
        let (b, m, o) = (
            read("briefing.cfg"),
            read("messages.cfg"),
            read(iron3d_config::objectives::OBJECTIVES_FILE),
        );
        let text = match MissionText::load(mission, b.as_deref(), m.as_deref(), o.as_deref()) {
            Ok(t) => t,
            Err(e) => {
                tracing::warn!(target: "Iron3D", error = %iron3d_abi::error_chain(&e),
                    "mission text left out of the HUD");
                MissionText::load(mission, None, None, None)?
            }
        };
        let player_clan = shown_clan(|k| params.get(k).cloned());
        Ok(Self {
            hud: Arc::new(Hud::new(font, text)),
            state: Arc::new(Mutex::new(HudState {
                screen,
                ..HudState::default()
            })),
            player_clan,
            names: Arc::new(BTreeMap::new()),
        })
    }

    /// The HUD with `names` for the mission's units (a mission graph's
    /// `GraphReport::names`: a unit DAT's root description by resource, upper-cased).
    pub fn with_names(mut self, names: BTreeMap<Vec<u8>, Vec<u8>>) -> Self {
        self.names = Arc::new(names);
        self
    }

    /// The screen now up.
    pub fn screen(&self) -> Screen {
        self.lock().screen
    }

    /// Puts `screen` up.
    pub fn set_screen(&self, screen: Screen) {
        self.lock().screen = screen;
    }

    /// The warnings banner's lines (shown on every screen until replaced).
    pub fn set_warnings(&self, lines: Vec<Vec<u8>>) {
        self.lock().warnings = lines;
    }

    /// The match's status panel lines (empty: no panel; see [`HudState::status`]).
    pub fn set_status(&self, lines: Vec<Vec<u8>>) {
        self.lock().status = lines;
    }

    /// Shows a chat line of player `player` at game second `at` (`GMSG_TEXT_FOR_PLAYER`
    /// in a match), as `Player N: text`, among the triggered messages — for every seat.
    pub fn chat(&self, at: f32, player: u32, text: &str) {
        let line = format!("Player {player}: {text}");
        self.lock().trigger(at, crate::text::cp1251(&line));
    }

    /// The settings screen's lines for `settings`.
    pub fn set_settings(&self, settings: &iron3d_config::settings::Settings) {
        self.lock().settings = iron3d_config::settings::ITEMS
            .iter()
            .map(|i| (i.label().to_owned(), i.value(settings)))
            .collect();
    }

    /// The list [`Screen::List`] shows.
    pub fn set_list(&self, list: crate::screen::ListView) {
        self.lock().list = list;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HudState> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Refreshes the figures the HUD shows from the kernel: tick, game time, frames per
    /// second, and the player's clan: its units and the ore its units and buildings
    /// hold (PD-SEAT-CLAN: `BehaviorClan` = the shown seat's clan slot + 1, `shown_clan`).
    pub fn update(&self, kernel: &Kernel, fps: f32) {
        let clan = behavior_clan(Some(self.player_clan));
        let (mut units, mut ore) = (0i64, 0i64);
        for (_, o) in kernel.world().iter_registered() {
            if o.is_pending_delete()
                || o.props
                    .first(BEHAVIOR_CLAN.as_bytes())
                    .map(|p| BEHAVIOR_CLAN.value(p.raw_value))
                    != Some(clan)
            {
                continue;
            }
            if o.props
                .first(LIFE_STATE.as_bytes())
                .is_none_or(|p| LIFE_STATE.value(p.raw_value) > 0)
            {
                units += 1;
            }
            if let Some(p) = o.props.first(CURRENT_ORE.as_bytes()) {
                ore += i64::from(CURRENT_ORE.value(p.raw_value));
            }
        }
        let mut s = self.lock();
        // The tick itself comes from the frame's snapshot (see `overlay_source`).
        s.game_seconds = kernel.tick() as f32 / kernel.config().tick_hz.max(1) as f32;
        s.fps = fps;
        s.resources = vec![(b"Units".to_vec(), units), (b"Ore".to_vec(), ore)];
    }

    /// Shows a message player `player` was told at game second `at` (a delivered
    /// `GMSG_TEXT_FOR_PLAYER`, PD-HUD-TRIGGERED); messages for other players are not
    /// shown.
    pub fn trigger(&self, at: f32, player: u32, text: Vec<u8>) {
        if player == self.player_clan {
            self.lock().trigger(at, text);
        }
    }

    /// The frame preparer's overlay source: the HUD of the snapshot's selection on the
    /// frame's target.
    pub fn overlay_source(
        &self,
    ) -> impl FnMut(&RenderSnapshot, &FrameParams) -> Option<iron3d_abi::Overlay> + Send + 'static
    {
        let hud = self.hud.clone();
        let state = self.state.clone();
        let names = self.names.clone();
        move |snapshot, params| {
            let mut s = state
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .clone();
            s.tick = snapshot.tick;
            s.selection = match snapshot.view.as_ref() {
                Some(v) => selection_lines(snapshot, &v.selected, &names),
                None => Vec::new(),
            };
            s.markers = markers(snapshot, params);
            Some(hud.overlay(&s, params.target.width, params.target.height))
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "tests fail loudly")]
mod tests {
    use super::*;
    use iron3d_kernel::{OriginalObjectId, PlayerView, SnapshotObject};
    use iron3d_render_frame::CameraState;

    fn object(id: u32, at: Vec3) -> SnapshotObject {
        SnapshotObject {
            id: OriginalObjectId(id),
            kind: 0,
            transform: iron3d_kernel::Transform {
                position: at,
                ..Default::default()
            },
            prototype: Arc::from(&b""[..]),
            clan_id: None,
        }
    }

    fn made_of(id: u32, prototype: &[u8]) -> SnapshotObject {
        SnapshotObject {
            prototype: Arc::from(prototype),
            ..object(id, Vec3::ZERO)
        }
    }

    /// PD-HUD-UNIT-NAME: the data's name first, else the prototype's own, never an id.
    #[test]
    fn a_unit_is_called_by_its_data_name_or_its_prototype() {
        let names = BTreeMap::from([(b"UNITS/TANK.DAT".to_vec(), b"Tank chassis".to_vec())]);
        assert_eq!(unit_name(b"UNITS/Tank.dat", &names), b"Tank chassis");
        assert_eq!(unit_name(b"units\\Truck.dat", &names), b"Truck");
        assert_eq!(unit_name(b"ore_truck", &names), b"Ore truck");
        assert_eq!(unit_name(b"hangar", &names), b"Hangar");
        assert_eq!(unit_name(b"", &names), b"Unit");
        assert_eq!(unit_name(b".bas", &names), b".bas");
    }

    /// PD-HUD-SELECTION: kinds by name, the most numerous first, three lines at most.
    #[test]
    fn the_selection_panel_counts_the_kinds_by_name() {
        let names = BTreeMap::from([(b"UNITS/TANK.DAT".to_vec(), b"Tank chassis".to_vec())]);
        let snapshot = RenderSnapshot {
            objects: vec![
                made_of(1, b"UNITS/Tank.dat"),
                made_of(2, b"UNITS/Truck.dat"),
                made_of(3, b"UNITS/Tank.dat"),
                made_of(4, b"tower"),
                made_of(5, b"mine"),
                made_of(6, b"UNITS/Tank.dat"),
            ],
            ..RenderSnapshot::default()
        };
        let text = |l: Vec<Vec<u8>>| -> Vec<String> {
            l.into_iter()
                .map(|b| String::from_utf8(b).unwrap())
                .collect()
        };
        assert_eq!(
            text(selection_lines(&snapshot, &[1, 2, 3, 4, 5], &names)),
            ["Selected: 5", "2 x Tank chassis", "Mine", "Tower"]
        );
        assert_eq!(
            text(selection_lines(&snapshot, &[2], &names)),
            ["Selected: 1", "Truck"]
        );
        assert!(selection_lines(&snapshot, &[], &names).is_empty());
    }

    #[test]
    fn markers_follow_the_frame_camera_and_skip_units_behind_it() {
        let camera =
            CameraState::looking_at(Vec3::new(-20.0, 0.0, 0.75), Vec3::new(0.0, 0.0, 0.75));
        let params = FrameParams {
            camera,
            target: iron3d_abi::RenderTarget {
                width: 640,
                height: 480,
                window: iron3d_abi::abi_stable::std_types::ROption::RNone,
                clear: [0; 4],
            },
            lighting: iron3d_abi::Lighting {
                sun_direction: Vec3::Z.into(),
                sun_colour: [1.0; 3],
                ambient: [0.0; 3],
            },
        };
        let snapshot = RenderSnapshot {
            objects: vec![
                object(7, Vec3::ZERO),
                object(8, Vec3::new(0.0, 5.0, 0.0)),
                // Behind the eye.
                object(9, Vec3::new(-40.0, 0.0, 0.0)),
                object(10, Vec3::new(0.0, -5.0, 0.0)),
            ],
            view: Some(PlayerView {
                selected: vec![7, 8, 9],
                subject: 10,
                ..PlayerView::default()
            }),
            ..RenderSnapshot::default()
        };
        let m = markers(&snapshot, &params);
        assert_eq!(m.len(), 3, "{m:?}");
        // Unit 7 straight ahead: the centre of the target.
        assert_eq!(m[0].kind, MarkerKind::Selected);
        assert!((m[0].centre[0] - 320.0).abs() < 0.5 && (m[0].centre[1] - 240.0).abs() < 0.5);
        // Unit 8 lies to the left (+Y when looking along +X), 10 to the right.
        assert!(m[1].centre[0] < 320.0 && m[1].kind == MarkerKind::Selected);
        assert!(m[2].centre[0] > 320.0 && m[2].kind == MarkerKind::Subject);
        // The bracket grows as the unit comes closer.
        let near = RenderSnapshot {
            objects: vec![object(7, Vec3::new(-10.0, 0.0, 0.0))],
            ..snapshot.clone()
        };
        assert!(markers(&near, &params)[0].half > m[0].half);
        // Nothing selected, no subject: no markers.
        let none = RenderSnapshot {
            view: Some(PlayerView::default()),
            ..snapshot
        };
        assert!(markers(&none, &params).is_empty());
    }
}
