//! Mission-lifetime render resources: every model the mission places (MSH → mesh, nodes,
//! slots, batches; `<stem>.wea` rows resolved to MAT0 with the strict fallback order;
//! phase textures from `Textures.lib`; the WEAR `LIGHTMAPS` row from `LightMap.lib`), and
//! the terrain (`Land.msh` faces grouped by material, `Land1.wea`/`Land2.wea`, the terrain
//! lightmap). Everything is decoded once; a frame only samples poses and phases.

use crate::error::RenderFrameError;
use abi_stable::std_types::{RString, RVec};
use iron3d_abi::{
    MeshResource, NO_TEXTURE, RenderResources, TextureKind, TextureLevel, TextureResource,
};
use iron3d_material::{Mat0, MaterialHandle, Surface, Wear};
use iron3d_mission::{GameData, LoadedMission, MissionRef};
use iron3d_msh::{Batch20, Msh};
use iron3d_nres::Family;
use iron3d_texm::Texm;
use iron3d_vfs::GamePath;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The material archive (game root).
pub const MATERIAL_LIB: &[u8] = b"Material.lib";
/// The texture archive (game root).
pub const TEXTURES_LIB: &[u8] = b"Textures.lib";
/// The lightmap archive (game root).
pub const LIGHTMAP_LIB: &[u8] = b"LightMap.lib";
/// The archive whose effects' sprite textures the resources hold
/// (PD-RENDER-EFFECT-TEXTURES): the effects plugin's default archive.
pub const EFFECTS_ARCHIVE: &[u8] = iron3d_effects_rules::library::DEFAULT_ARCHIVE.as_bytes();

/// **Project decision PD-RENDER-MIP** (the original rule is unknown, FORMATS §16 item 21):
/// the loader skips top mip levels while the base level is larger than this on either
/// axis (a device texture-size limit), always keeping the last level.
pub const MAX_TEXTURE_SIZE: u32 = 256;

/// The top levels PD-RENDER-MIP skips for a `width × height` texture with `mip_count`
/// levels (never all of them).
pub fn mip_skip(width: u32, height: u32, mip_count: u32) -> u32 {
    let mut skip = 0;
    while skip + 1 < mip_count
        && ((width >> skip) > MAX_TEXTURE_SIZE || (height >> skip) > MAX_TEXTURE_SIZE)
    {
        skip += 1;
    }
    skip
}

/// **Project decision PD-RENDER-TERRAIN-UV**: the terrain's UV0 spans the whole map; the
/// diffuse stage repeats its texture once per this many world units.
pub const TERRAIN_TEXTURE_REPEAT: f32 = 16.0;

/// **PD-RENDER-CLAN-MATERIAL** (the spec has no per-clan look; our own rule): a WEAR
/// row named `NAME` is drawn for an object of clan `k < CLAN_VARIANTS` (its `ClanID`) with
/// the material `NAME_C<k>` when `Material.lib` has one, so a game's data can tell the
/// sides apart; without variants every clan draws the same.
pub const CLAN_VARIANTS: u32 = 16;

/// One resolved WEAR row.
#[derive(Clone, Debug)]
pub struct MaterialRow {
    /// `(table << 16) | row`.
    pub handle: u32,
    /// The resolved MAT0 (`None`: the material archive had nothing to fall back to).
    pub mat: Option<Arc<Mat0>>,
    /// Per phase: texture index or [`NO_TEXTURE`] (empty name = untextured, missing =
    /// untextured and counted in [`SceneAssets::missing_textures`]).
    pub textures: Vec<u32>,
    /// Per phase: the PD-MAT-4 surface.
    pub surfaces: Vec<Surface>,
}

/// A slot's draw range and bounds.
#[derive(Clone, Copy, Debug)]
pub struct SlotInfo {
    /// First batch.
    pub batch_start: usize,
    /// Batch count.
    pub batch_count: usize,
    /// Bounding sphere centre (node space).
    pub centre: glam::Vec3,
    /// Bounding sphere radius.
    pub radius: f32,
}

/// A model ready to draw.
#[derive(Clone, Debug)]
pub struct ModelAsset {
    /// `archive:entry`.
    pub name: String,
    /// The MSH bytes (re-parsed, zero-copy, for animation sampling).
    pub bytes: Arc<[u8]>,
    /// Mesh index in the resources.
    pub mesh: u32,
    /// Per node: `slot_index[lod * 5 + group]`.
    pub node_slots: Vec<[u16; 15]>,
    /// Slots.
    pub slots: Vec<SlotInfo>,
    /// Batches.
    pub batches: Vec<Batch20>,
    /// WEAR rows (table 0).
    pub rows: Vec<MaterialRow>,
    /// **PD-RENDER-CLAN-MATERIAL**: per clan whose variant of any row exists
    /// (`<NAME>_C<clan>` in `Material.lib`, clans `0..`[`CLAN_VARIANTS`]), the rows an
    /// object of that clan draws with: the variant where there is one, else the row;
    /// ascending by clan.
    pub clan_rows: Vec<(u32, Vec<MaterialRow>)>,
    /// The model's lightmap (first `LIGHTMAPS` row) or [`NO_TEXTURE`].
    pub lightmap: u32,
    /// Animation timeline length in frames (type 19 `attr2`), 0 when static.
    pub frame_count: u32,
}

/// One terrain draw: faces sharing a stage-0 material.
#[derive(Clone, Debug)]
pub struct TerrainGroup {
    /// First index in the terrain mesh.
    pub index_start: u32,
    /// Index count.
    pub index_count: u32,
    /// The material row (`Land1.wea` = table 0, `Land2.wea` = table 1), `None` when the
    /// face names no row of an existing table.
    pub row: Option<MaterialRow>,
}

/// The terrain ready to draw.
#[derive(Clone, Debug)]
pub struct TerrainAsset {
    /// Mesh index.
    pub mesh: u32,
    /// Draw groups in ascending material-handle order.
    pub groups: Vec<TerrainGroup>,
    /// Terrain lightmap (first `LIGHTMAPS` row of `Land1.wea`) or [`NO_TEXTURE`].
    pub lightmap: u32,
    /// Diffuse repeat over UV0.
    pub uv_scale: [f32; 2],
    /// The blend passes (PD-RENDER-TERRAIN-BLEND), ascending by group.
    pub blends: Vec<TerrainBlend>,
}

/// A terrain face's material: `(table, row)` of `Land1.wea` (0) or `Land2.wea` (1),
/// `None` for a face naming no row of an existing table.
type GroupKey = Option<(u16, u16)>;

/// One terrain material's blend pass over its neighbours' faces
/// ([`crate::terrain_blend`], PD-RENDER-TERRAIN-BLEND).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TerrainBlend {
    /// The group (index into [`TerrainAsset::groups`]) whose material fades in.
    pub group: usize,
    /// Its mask texture (alpha = weight, colour = the lightmap's).
    pub mask: u32,
    /// First index in the terrain mesh of the faces it is drawn over.
    pub index_start: u32,
    /// Index count.
    pub index_count: u32,
}

/// Where a placed model hangs: node `node` of model `parent_model` (its pose at the
/// frame's animation time), i.e. the mount of a unit DAT EXTO component (PD-UNIT-ROLE).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MountRef {
    /// The parent component's model (index into [`SceneAssets::models`]).
    pub parent_model: usize,
    /// The mount node, a valid index into the parent model's nodes.
    pub node: usize,
}

/// One model of a prototype and where it is drawn: at `object × mount node × node`
/// with a mount, at `object × node` without one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlacedModel {
    /// Index into [`SceneAssets::models`].
    pub model: usize,
    /// The unit DAT record it is the component of (`None`: a direct prototype).
    pub component: Option<usize>,
    /// The mount (`None`: the object's transform).
    pub mount: Option<MountRef>,
}

/// Everything a mission's frames draw from.
#[derive(Clone, Debug)]
pub struct SceneAssets {
    /// The FFI resources (meshes, textures).
    pub resources: abi_stable::std_types::RArc<RenderResources>,
    /// Models by index.
    pub models: Vec<ModelAsset>,
    /// Prototype (the object's resource name, upper-cased) → its placed models (the
    /// prototype's geometry, or each unit-DAT component's in record order, EXTO children
    /// at their mounts). Keyed by prototype, not by object, so objects created after the
    /// load (by plugins) are drawn when their prototype is one the mission uses.
    pub prototype_models: BTreeMap<Vec<u8>, Vec<PlacedModel>>,
    /// The terrain, when the mission has one that parsed.
    pub terrain: Option<TerrainAsset>,
    /// Texture names that did not resolve (`archive:name`), sorted.
    pub missing_textures: Vec<String>,
    /// The sky's mesh and texture in the resources (PD-RENDER-SKY; `None`: no sky).
    pub sky: Option<SkyAsset>,
    /// The mission's sky object (`mission.cfg` block `object sky`, PD-SKY-BLOCK), whose
    /// schedule the frames follow (PD-RENDER-SKY-WEATHER); `None`: the mission has none
    /// (or one that does not parse: a warning, the clear sky).
    pub sky_schedule: Option<iron3d_effects_rules::sky::SkyConfig>,
}

/// Where the sky ([`crate::sky`]) is in a mission's resources.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SkyAsset {
    /// Its mesh.
    pub mesh: u32,
    /// Its gradient texture ([`crate::sky::SkyLook::CLEAR`]'s); with a sky schedule the
    /// first of [`crate::sky::SkyLook::COUNT`] in [`crate::sky::SkyLook::index`] order
    /// (PD-RENDER-SKY-WEATHER).
    pub texture: u32,
    /// Indices of the mesh (drawn whole).
    pub index_count: u32,
}

impl SkyAsset {
    /// The dome's texture for `weather` (PD-RENDER-SKY-WEATHER): its
    /// [`crate::sky::SkyLook`] among the mission's looks, or the clear one without a sky
    /// schedule (`None`).
    pub fn texture_for(&self, weather: Option<&iron3d_effects_rules::sky::Weather>) -> u32 {
        match weather {
            Some(w) => self
                .texture
                .saturating_add(crate::sky::SkyLook::of(w).index()),
            None => self.texture,
        }
    }
}

struct Loader<'a, 'd> {
    data: &'a GameData<'d>,
    mission: String,
    meshes: Vec<MeshResource>,
    textures: Vec<TextureResource>,
    texture_index: BTreeMap<(u8, Vec<u8>), u32>,
    materials: BTreeMap<Vec<u8>, Option<Arc<Mat0>>>,
    missing: std::collections::BTreeSet<String>,
}

fn text(b: &[u8]) -> String {
    b.escape_ascii().to_string()
}

fn stem(name: &[u8]) -> &[u8] {
    match name.iter().rposition(|&b| b == b'.') {
        Some(dot) => &name[..dot],
        None => name,
    }
}

fn decode_normal(n: [i8; 4]) -> [f32; 3] {
    let c = |v: i8| (f32::from(v) / 127.0).clamp(-1.0, 1.0);
    [c(n[0]), c(n[1]), c(n[2])]
}

/// **Named rule PD-RENDER-NORMALS**: a model without a type-4 stream (or a shorter one)
/// gets per-vertex normals derived from its batches' triangles (area-weighted face
/// normals, normalised; unreferenced vertices get zero normals, i.e. ambient light only).
/// UV0 missing → `(0, 0)`.
pub fn derived_normals(
    positions: &[[f32; 3]],
    indices: &[u16],
    batches: &[Batch20],
) -> Vec<[f32; 3]> {
    let mut acc = vec![glam::Vec3::ZERO; positions.len()];
    for b in batches {
        let start = b.index_start as usize;
        let end = start
            .saturating_add(usize::from(b.index_count))
            .min(indices.len());
        let Some(range) = indices.get(start..end) else {
            continue;
        };
        for t in range.chunks_exact(3) {
            let v: Vec<usize> = t
                .iter()
                .map(|&i| b.base_vertex as usize + usize::from(i))
                .collect();
            if v.iter().any(|&i| i >= positions.len()) {
                continue;
            }
            let p = |i: usize| glam::Vec3::from(positions[v[i]]);
            let n = (p(1) - p(0)).cross(p(2) - p(0));
            for &i in &v {
                acc[i] += n;
            }
        }
    }
    acc.into_iter()
        .map(|n| n.try_normalize().unwrap_or(glam::Vec3::ZERO).to_array())
        .collect()
}

impl Loader<'_, '_> {
    fn read_err(&self, what: String, cause: impl ToString) -> RenderFrameError {
        RenderFrameError::Read {
            mission: self.mission.clone(),
            what,
            cause: cause.to_string(),
        }
    }

    fn parse_err(&self, what: String, cause: impl ToString) -> RenderFrameError {
        RenderFrameError::Parse {
            mission: self.mission.clone(),
            what,
            cause: cause.to_string(),
        }
    }

    /// The texture `name` of `kind`, loaded once (missing or broken → [`NO_TEXTURE`],
    /// recorded; a broken texture is an error).
    fn texture(&mut self, kind: TextureKind, name: &[u8]) -> Result<u32, RenderFrameError> {
        let key = (kind as u8, name.to_ascii_uppercase());
        if let Some(&i) = self.texture_index.get(&key) {
            return Ok(i);
        }
        let archive = match kind {
            TextureKind::Diffuse => TEXTURES_LIB,
            TextureKind::Lightmap => LIGHTMAP_LIB,
        };
        let what = format!("{}:{}", text(archive), text(name));
        let bytes = match self.data.entry_as(archive, name, Family::texm()) {
            Ok(b) => b,
            Err(
                iron3d_vfs::VfsError::EntryMissing { .. }
                | iron3d_vfs::VfsError::FileMissing { .. },
            ) => {
                self.missing.insert(what);
                self.texture_index.insert(key, NO_TEXTURE);
                return Ok(NO_TEXTURE);
            }
            Err(e) => return Err(self.read_err(what, e)),
        };
        let (skip, levels) = self.decode_texm(&what, &bytes)?;
        let index = u32::try_from(self.textures.len()).unwrap_or(NO_TEXTURE - 1);
        self.textures.push(TextureResource {
            name: RString::from(text(name)),
            kind,
            skipped_levels: skip,
            levels,
        });
        self.texture_index.insert(key, index);
        Ok(index)
    }

    /// The runtime mip chain of the Texm `bytes` (`what` names it in errors): the
    /// levels from the [`mip_skip`] on, and how many were skipped.
    fn decode_texm(
        &self,
        what: &str,
        bytes: &[u8],
    ) -> Result<(u32, RVec<TextureLevel>), RenderFrameError> {
        let texm = Texm::parse(bytes).map_err(|e| self.parse_err(what.to_owned(), e))?;
        let skip = mip_skip(texm.width(), texm.height(), texm.mip_count());
        let mut levels = RVec::new();
        for level in skip..texm.mip_count() {
            let img = texm
                .decode_level(level)
                .map_err(|e| self.parse_err(format!("{what} level {level}"), e))?;
            levels.push(TextureLevel {
                width: img.width(),
                height: img.height(),
                rgba: img.into_pixels().into(),
            });
        }
        Ok((skip, levels))
    }

    /// **PD-RENDER-EFFECT-TEXTURES**: the sprite textures (PD-FX-SPRITE-TEXTURE) of the
    /// effects in [`EFFECTS_ARCHIVE`], added to the resources named `archive/entry` as
    /// the effect frames name them (renderers match the names ASCII-case-insensitively).
    /// Effects are presentation: without the archive there is nothing to load; an
    /// entry that is not an FXID is skipped (the effects plugin reports it when used);
    /// a texture that is missing or does not decode is left out with a warning. The
    /// renderers draw those sprites soft and the mission loads all the same. The
    /// archive's entries are those every mount provides (a mod's overlay may add
    /// effects); each texture name is loaded once.
    fn effect_textures(&mut self) {
        let data = self.data;
        let Ok(archive) = GamePath::parse(&text(EFFECTS_ARCHIVE)) else {
            return;
        };
        let names = match data.vfs.entry_names(&archive, data.cache) {
            Ok(names) => names,
            Err(iron3d_vfs::VfsError::FileMissing { .. }) => return,
            Err(e) => {
                tracing::warn!(target: "Render", archive = %text(EFFECTS_ARCHIVE), error = %e,
                    "PD-RENDER-EFFECT-TEXTURES: the effects archive does not open; effect sprites draw soft");
                return;
            }
        };
        let mut seen = std::collections::BTreeSet::new();
        for entry in names {
            let Ok(bytes) = data.entry(EFFECTS_ARCHIVE, &entry) else {
                continue;
            };
            // Not an effect (or a broken one): the effects plugin reports it when used.
            let Ok(fx) = iron3d_fxid::Fxid::parse(&bytes) else {
                continue;
            };
            for name in iron3d_effects_rules::runtime::effect_textures(&fx) {
                if !seen.insert(name.to_ascii_uppercase()) {
                    continue;
                }
                // Entry names are flat; an archive name may hold a folder.
                let Some((archive, tex)) = name.rsplit_once('/') else {
                    continue;
                };
                let loaded = data
                    .entry_as(archive.as_bytes(), tex.as_bytes(), Family::texm())
                    .map_err(|e| self.read_err(name.clone(), e))
                    .and_then(|b| self.decode_texm(&name, &b));
                match loaded {
                    Ok((skip, levels)) => self.textures.push(TextureResource {
                        name: RString::from(name.as_str()),
                        kind: TextureKind::Diffuse,
                        skipped_levels: skip,
                        levels,
                    }),
                    Err(e) => tracing::warn!(target: "Render", texture = %name, error = %e,
                        "PD-RENDER-EFFECT-TEXTURES: effect sprite texture left out; drawn soft"),
                }
            }
        }
    }

    /// The MAT0 named `name` with the fallback order named → `DEFAULT` → entry 0.
    fn material(&mut self, name: &[u8]) -> Result<Option<Arc<Mat0>>, RenderFrameError> {
        let key = name.to_ascii_uppercase();
        if let Some(m) = self.materials.get(&key) {
            return Ok(m.clone());
        }
        let found = match self.data.resolve_material(MATERIAL_LIB, name) {
            Ok(found) => found,
            Err(iron3d_vfs::VfsError::FileMissing { .. } | iron3d_vfs::VfsError::Path(_)) => {
                self.materials.insert(key, None);
                return Ok(None);
            }
            Err(e) => return Err(self.read_err(text(MATERIAL_LIB), e)),
        };
        let result = match found {
            None => None,
            Some(r) => {
                let entry_name = r.entry.name;
                let version = r.entry.attrs[2];
                let what = format!(
                    "{}:{} (WEAR name {})",
                    text(MATERIAL_LIB),
                    text(&entry_name),
                    text(name)
                );
                let bytes = self
                    .data
                    .entry_as(MATERIAL_LIB, &entry_name, Family::mat0())
                    .map_err(|e| self.read_err(what.clone(), e))?;
                let mat = Mat0::parse(&bytes, version).map_err(|e| self.parse_err(what, e))?;
                Some(Arc::new(mat))
            }
        };
        self.materials.insert(key, result.clone());
        Ok(result)
    }

    fn row(&mut self, table: u16, row: u16, name: &[u8]) -> Result<MaterialRow, RenderFrameError> {
        let mat = self.material(name)?;
        let mut textures = Vec::new();
        let mut surfaces = Vec::new();
        if let Some(m) = &mat {
            for p in m.phases() {
                textures.push(if p.is_untextured() {
                    NO_TEXTURE
                } else {
                    self.texture(TextureKind::Diffuse, p.texture_lookup_key())?
                });
                surfaces.push(Surface::of(p));
            }
        }
        Ok(MaterialRow {
            handle: MaterialHandle::new(table, row).raw(),
            mat,
            textures,
            surfaces,
        })
    }

    fn wear_rows(&mut self, table: u16, wear: &Wear) -> Result<Vec<MaterialRow>, RenderFrameError> {
        let mut rows = Vec::new();
        for (i, r) in wear.materials().iter().enumerate() {
            rows.push(self.row(table, u16::try_from(i).unwrap_or(u16::MAX), r.name())?);
        }
        Ok(rows)
    }

    fn lightmap_of(&mut self, wear: &Wear) -> Result<u32, RenderFrameError> {
        match wear.lightmaps().first() {
            Some(r) if !r.name().is_empty() => self.texture(TextureKind::Lightmap, r.name()),
            _ => Ok(NO_TEXTURE),
        }
    }

    fn push_mesh(&mut self, mesh: MeshResource) -> u32 {
        self.meshes.push(mesh);
        u32::try_from(self.meshes.len() - 1).unwrap_or(u32::MAX)
    }

    fn model(&mut self, archive: &[u8], name: &[u8]) -> Result<ModelAsset, RenderFrameError> {
        let what = format!("{}:{}", text(archive), text(name));
        let bytes = self
            .data
            .entry_as(archive, name, Family::mesh())
            .map_err(|e| self.read_err(what.clone(), e))?;
        let msh = Msh::parse(&bytes).map_err(|e| self.parse_err(what.clone(), e))?;
        let positions: Vec<[f32; 3]> = msh.positions().map(|p| p.0).collect();
        let indices: Vec<u16> = msh.indices().collect();
        let mut normals: Vec<[f32; 3]> = msh.normals().map(|n| decode_normal(n.0)).collect();
        if normals.len() < positions.len() {
            normals = derived_normals(&positions, &indices, &msh.batches().collect::<Vec<_>>());
        }
        let mut uvs: Vec<[f32; 2]> = msh.uvs().map(|u| u.decode()).collect();
        uvs.resize(positions.len(), [0.0, 0.0]);
        let mesh = MeshResource {
            name: RString::from(what.clone()),
            positions: positions.into(),
            normals: normals.into(),
            uvs: uvs.into(),
            indices: indices.into(),
        };
        let node_slots = msh.nodes().map(|n| n.slot_index).collect();
        let slots = msh
            .slots()
            .map(|s| SlotInfo {
                batch_start: usize::from(s.batch_start),
                batch_count: usize::from(s.batch_count),
                centre: glam::Vec3::from(s.sphere_center),
                radius: s.sphere_radius,
            })
            .collect();
        let batches = msh.batches().collect();
        let frame_count = msh.frame_count();
        drop(msh);
        // The WEAR table beside the model (absent: rows resolve nothing, the fallback
        // order still applies per batch through `DEFAULT`).
        let mut wea = stem(name).to_vec();
        wea.extend_from_slice(b".wea");
        let (rows, clan_rows, lightmap) = match self.data.entry_as(archive, &wea, Family::wear()) {
            Ok(w) => {
                let wwhat = format!("{}:{} (for {what})", text(archive), text(&wea));
                let wear = Wear::parse(&w).map_err(|e| self.parse_err(wwhat, e))?;
                let rows = self.wear_rows(0, &wear)?;
                let clan_rows = self.clan_rows(0, &wear, &rows)?;
                (rows, clan_rows, self.lightmap_of(&wear)?)
            }
            Err(iron3d_vfs::VfsError::EntryMissing { .. }) => (Vec::new(), Vec::new(), NO_TEXTURE),
            Err(e) => return Err(self.read_err(format!("{}:{}", text(archive), text(&wea)), e)),
        };
        let mesh = self.push_mesh(mesh);
        Ok(ModelAsset {
            name: what,
            bytes,
            mesh,
            node_slots,
            slots,
            batches,
            rows,
            clan_rows,
            lightmap,
            frame_count,
        })
    }

    /// Whether `Material.lib` has an entry named exactly `name` (ASCII case ignored; the
    /// fallback to `DEFAULT` or entry 0 does not count).
    fn has_material(&self, name: &[u8]) -> Result<bool, RenderFrameError> {
        match self.data.resolve_material(MATERIAL_LIB, name) {
            Ok(Some(r)) => Ok(r.entry.name.eq_ignore_ascii_case(name)),
            Ok(None)
            | Err(iron3d_vfs::VfsError::FileMissing { .. } | iron3d_vfs::VfsError::Path(_)) => {
                Ok(false)
            }
            Err(e) => Err(self.read_err(text(MATERIAL_LIB), e)),
        }
    }

    /// PD-RENDER-CLAN-MATERIAL: the rows of each clan with a variant of any of `wear`'s
    /// rows (see [`ModelAsset::clan_rows`]).
    fn clan_rows(
        &mut self,
        table: u16,
        wear: &Wear,
        rows: &[MaterialRow],
    ) -> Result<Vec<(u32, Vec<MaterialRow>)>, RenderFrameError> {
        let mut out = Vec::new();
        for clan in 0..CLAN_VARIANTS {
            let mut variant = rows.to_vec();
            let mut any = false;
            for (i, r) in wear.materials().iter().enumerate() {
                let mut name = r.name().to_vec();
                name.extend_from_slice(format!("_C{clan}").as_bytes());
                if i < variant.len() && self.has_material(&name)? {
                    variant[i] = self.row(table, u16::try_from(i).unwrap_or(u16::MAX), &name)?;
                    any = true;
                }
            }
            if any {
                out.push((clan, variant));
            }
        }
        Ok(out)
    }

    fn mission_wear(
        &mut self,
        dir: &GamePath,
        file: &str,
    ) -> Result<Option<Wear>, RenderFrameError> {
        let Ok(p) = GamePath::parse(file) else {
            return Ok(None);
        };
        let Ok(resolved) = self.data.vfs.resolve_in_mission(dir, &p) else {
            return Ok(None);
        };
        let bytes = read_game_file(&resolved.path)
            .map_err(|e| self.read_err(resolved.path.display().to_string(), e))?;
        Wear::parse(&bytes)
            .map(Some)
            .map_err(|e| self.parse_err(resolved.path.display().to_string(), e))
    }

    /// The mission's sky object (PD-RENDER-SKY-WEATHER): `None` without a `mission.cfg`,
    /// with one that is no block file or has no sky block, and with a sky block that
    /// does not parse (a warning naming the file and why; the atmosphere's owner reports
    /// it too, and the frames draw the clear sky).
    fn sky_schedule(
        &mut self,
        dir: &GamePath,
    ) -> Result<Option<iron3d_effects_rules::sky::SkyConfig>, RenderFrameError> {
        let Ok(p) = GamePath::parse("mission.cfg") else {
            return Ok(None);
        };
        let Ok(resolved) = self.data.vfs.resolve_in_mission(dir, &p) else {
            return Ok(None);
        };
        let bytes = read_game_file(&resolved.path)
            .map_err(|e| self.read_err(resolved.path.display().to_string(), e))?;
        match iron3d_effects_rules::sky::SkyConfig::from_mission_cfg(&bytes) {
            Ok(sky) => Ok(sky),
            Err(e) => {
                tracing::warn!(
                    mission = %self.mission,
                    file = %resolved.path.display(),
                    error = %e,
                    "the sky object does not parse: the clear sky is drawn"
                );
                Ok(None)
            }
        }
    }

    /// The terrain: faces grouped by stage-0 material (**project rule PD-RENDER-TERRAIN**:
    /// the `Land1.wea` row of the high byte unless it is `0xFF`, else the `Land2.wea` row
    /// of the low byte), the lightmap = first `LIGHTMAPS` row of `Land1.wea`.
    fn terrain(&mut self, dir: &GamePath) -> Result<Option<TerrainAsset>, RenderFrameError> {
        let Ok(p) = GamePath::parse("Land.msh") else {
            return Ok(None);
        };
        let Ok(resolved) = self.data.vfs.resolve_in_mission(dir, &p) else {
            return Ok(None);
        };
        let what = resolved.path.display().to_string();
        let bytes = read_game_file(&resolved.path).map_err(|e| self.read_err(what.clone(), e))?;
        let land =
            iron3d_landmsh::LandMsh::parse(&bytes).map_err(|e| self.parse_err(what.clone(), e))?;
        let s = &land.streams;
        if s.positions.len() > usize::from(u16::MAX) + 1 {
            return Err(RenderFrameError::Limit {
                mission: self.mission.clone(),
                what,
                cause: format!(
                    "{} vertices exceed a 16-bit index buffer",
                    s.positions.len()
                ),
            });
        }
        let land1 = self.mission_wear(dir, "Land1.wea")?;
        let land2 = self.mission_wear(dir, "Land2.wea")?;
        let rows1 = match &land1 {
            Some(w) => self.wear_rows(0, w)?,
            None => Vec::new(),
        };
        let rows2 = match &land2 {
            Some(w) => self.wear_rows(1, w)?,
            None => Vec::new(),
        };
        let lightmap = match &land1 {
            Some(w) => self.lightmap_of(w)?,
            None => NO_TEXTURE,
        };
        // Group faces by (table, row); `None` rows sort first.
        let mut groups: BTreeMap<GroupKey, Vec<u16>> = BTreeMap::new();
        // Each drawn face's key, in file order (PD-RENDER-TERRAIN-BLEND).
        let mut face_keys: Vec<(GroupKey, [u16; 3])> = Vec::new();
        for f in &s.faces {
            let hi = f.material_tag >> 8;
            let lo = f.material_tag & 0xFF;
            let key = if hi != 0xFF && usize::from(hi) < rows1.len() {
                Some((0, hi))
            } else if usize::from(lo) < rows2.len() {
                Some((1, lo))
            } else {
                None
            };
            if f.vertices
                .iter()
                .all(|&v| usize::from(v) < s.positions.len())
            {
                groups
                    .entry(key)
                    .or_default()
                    .extend_from_slice(&f.vertices);
                face_keys.push((key, f.vertices));
            }
        }
        let group_of: BTreeMap<GroupKey, usize> =
            groups.keys().enumerate().map(|(g, &k)| (k, g)).collect();
        let sources: Vec<bool> = groups.keys().map(Option::is_some).collect();
        let mut indices = Vec::new();
        let mut out = Vec::new();
        for (key, idx) in groups {
            let row = key.map(|(t, r)| {
                if t == 0 {
                    rows1[usize::from(r)].clone()
                } else {
                    rows2[usize::from(r)].clone()
                }
            });
            out.push(TerrainGroup {
                index_start: u32::try_from(indices.len()).unwrap_or(u32::MAX),
                index_count: u32::try_from(idx.len()).unwrap_or(u32::MAX),
                row,
            });
            indices.extend(idx);
        }
        let (mut lo, mut hi) = (glam::Vec2::splat(f32::MAX), glam::Vec2::splat(f32::MIN));
        for p in &s.positions {
            lo = lo.min(glam::Vec2::new(p[0], p[1]));
            hi = hi.max(glam::Vec2::new(p[0], p[1]));
        }
        let extent = if s.positions.is_empty() {
            glam::Vec2::ONE
        } else {
            hi - lo
        };
        let uv_scale = [
            (extent.x / TERRAIN_TEXTURE_REPEAT).max(1.0),
            (extent.y / TERRAIN_TEXTURE_REPEAT).max(1.0),
        ];
        let uvs: Vec<[f32; 2]> = s
            .uvs
            .iter()
            .map(|&[u, v]| [iron3d_landmsh::uv_to_f32(u), iron3d_landmsh::uv_to_f32(v)])
            .collect();
        // PD-RENDER-TERRAIN-BLEND: each textured material's pass over its neighbours.
        let faces: Vec<crate::terrain_blend::BlendFace> = face_keys
            .iter()
            .map(|(k, v)| crate::terrain_blend::BlendFace {
                group: group_of[k],
                vertices: *v,
            })
            .collect();
        let lightmap_level = (lightmap != NO_TEXTURE)
            .then(|| self.textures.get(lightmap as usize))
            .flatten()
            .and_then(|t| t.levels.first());
        let passes = crate::terrain_blend::passes(
            &uvs,
            &faces,
            &sources,
            if s.positions.is_empty() {
                0.0
            } else {
                extent.x
            },
            lightmap_level,
        );
        let mut blends = Vec::with_capacity(passes.len());
        for p in passes {
            let index_start = u32::try_from(indices.len()).unwrap_or(u32::MAX);
            indices.extend(p.faces.iter().flatten());
            self.textures.push(p.mask);
            blends.push(TerrainBlend {
                group: p.group,
                mask: u32::try_from(self.textures.len() - 1).unwrap_or(u32::MAX),
                index_start,
                index_count: u32::try_from(p.faces.len() * 3).unwrap_or(u32::MAX),
            });
        }
        let mesh = MeshResource {
            name: RString::from(format!("terrain ({what})")),
            positions: s.positions.iter().copied().collect(),
            normals: s.normals.iter().map(|&n| decode_normal(n)).collect(),
            uvs: uvs.into(),
            indices: indices.into(),
        };
        let mesh = self.push_mesh(mesh);
        Ok(Some(TerrainAsset {
            mesh,
            groups: out,
            lightmap,
            uv_scale,
            blends,
        }))
    }
}

/// The last [`RenderResources::id`] handed out (0: none yet).
static LAST_RESOURCES_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl SceneAssets {
    /// The placed models of `prototype` (ASCII case ignored), empty when it has none.
    pub fn models_of(&self, prototype: &[u8]) -> &[PlacedModel] {
        self.prototype_models
            .get(prototype)
            .or_else(|| self.prototype_models.get(&prototype.to_ascii_uppercase()))
            .map_or(&[], Vec::as_slice)
    }

    /// Loads the render resources of `mission` (already loaded into the kernel). Every
    /// load gets a [`RenderResources::id`] never used before in this process, so a
    /// renderer's upload caches (keyed by it) never draw a previous mission's data.
    pub fn load(
        data: &GameData<'_>,
        mission: &LoadedMission,
    ) -> Result<SceneAssets, RenderFrameError> {
        let resources_id = LAST_RESOURCES_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        let _scope = data.cache.scope();
        let mut l = Loader {
            data,
            mission: mission.name.clone(),
            meshes: Vec::new(),
            textures: Vec::new(),
            texture_index: BTreeMap::new(),
            materials: BTreeMap::new(),
            missing: Default::default(),
        };
        let mref =
            MissionRef::locate(data.vfs, &mission.name).map_err(|e| RenderFrameError::Read {
                mission: mission.name.clone(),
                what: "mission directory".into(),
                cause: e.to_string(),
            })?;
        let terrain = l.terrain(&mref.dir)?;
        let mut models = Vec::new();
        let mut by_key: BTreeMap<(Vec<u8>, Vec<u8>), usize> = BTreeMap::new();
        let mut prototype_models: BTreeMap<Vec<u8>, Vec<PlacedModel>> = BTreeMap::new();
        let mut seen_objects: BTreeMap<Vec<u8>, usize> = BTreeMap::new();
        let mut index_of = |l: &mut Loader<'_, '_>,
                            models: &mut Vec<ModelAsset>,
                            archive: &[u8],
                            name: &[u8]|
         -> Result<usize, RenderFrameError> {
            let key = (archive.to_ascii_uppercase(), name.to_ascii_uppercase());
            if let Some(&i) = by_key.get(&key) {
                return Ok(i);
            }
            models.push(l.model(archive, name)?);
            by_key.insert(key, models.len() - 1);
            Ok(models.len() - 1)
        };
        for m in &mission.graph.models {
            let index = index_of(&mut l, &mut models, &m.archive, &m.name)?;
            let mount = match &m.mount {
                Some(mount) => {
                    let parent_model = index_of(&mut l, &mut models, &mount.archive, &mount.name)?;
                    let node = mount.node as usize;
                    if node < models[parent_model].node_slots.len() {
                        Some(MountRef { parent_model, node })
                    } else {
                        // The graph checked the node against the same model: only a
                        // model that changed since is outside; PD-UNIT-BAD-MOUNT applies.
                        tracing::warn!(
                            model = %models[index].name,
                            parent = %models[parent_model].name,
                            node,
                            "PD-UNIT-BAD-MOUNT: mount node outside the parent model; drawn at the object transform"
                        );
                        None
                    }
                }
                None => None,
            };
            // Every object of one prototype has the same models: take them from the
            // first object that uses it.
            let prototype = m.prototype.to_ascii_uppercase();
            let first = *seen_objects.entry(prototype.clone()).or_insert(m.object);
            if first == m.object {
                let placed = PlacedModel {
                    model: index,
                    component: m.component,
                    mount,
                };
                let list = prototype_models.entry(prototype).or_default();
                if !list.contains(&placed) {
                    list.push(placed);
                }
            }
        }
        let sky_schedule = l.sky_schedule(&mref.dir)?;
        l.effect_textures();
        // PD-RENDER-SKY: the generated sky after the mission's own resources.
        let mut meshes = l.meshes;
        let mut textures = l.textures;
        let sky_mesh = crate::sky::sky_mesh();
        let sky = SkyAsset {
            mesh: u32::try_from(meshes.len()).unwrap_or(u32::MAX),
            texture: u32::try_from(textures.len()).unwrap_or(u32::MAX),
            index_count: u32::try_from(sky_mesh.indices.len()).unwrap_or(0),
        };
        meshes.push(sky_mesh);
        if sky_schedule.is_some() {
            textures.extend(crate::sky::SkyLook::all().map(crate::sky::sky_texture_of));
        } else {
            textures.push(crate::sky::sky_texture());
        }
        let resources = RenderResources {
            id: resources_id,
            meshes: meshes.into(),
            textures: textures.into(),
        };
        Ok(SceneAssets {
            resources: abi_stable::std_types::RArc::new(resources),
            models,
            prototype_models,
            terrain,
            missing_textures: l.missing.into_iter().collect(),
            sky: Some(sky),
            sky_schedule,
        })
    }
}

/// A loose game file read whole: a regular file of bounded size (PD-VFS-REGULAR-FILES).
fn read_game_file(path: &std::path::Path) -> Result<Vec<u8>, iron3d_vfs::VfsError> {
    iron3d_vfs::files::read_regular(path, iron3d_vfs::files::MAX_LOOSE_FILE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mip_skip_drops_levels_above_the_size_limit_but_keeps_one() {
        assert_eq!(mip_skip(256, 256, 9), 0);
        assert_eq!(mip_skip(512, 128, 10), 1);
        assert_eq!(mip_skip(1024, 1024, 11), 2);
        assert_eq!(mip_skip(1024, 1024, 2), 1, "the last level always stays");
        assert_eq!(mip_skip(4096, 8, 1), 0);
    }

    #[test]
    fn derived_normals_point_out_of_a_ccw_triangle_and_skip_bad_ranges() {
        let positions = [
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [5.0, 5.0, 5.0],
        ];
        let batch = |index_start, index_count, base_vertex| Batch20 {
            batch_flags: 0,
            material_index: 0,
            opaque4: 0,
            opaque6: 0,
            index_count,
            index_start,
            opaque14: 0,
            base_vertex,
        };
        let n = derived_normals(
            &positions,
            &[0, 1, 2, 0, 1, 9],
            &[batch(0, 3, 0), batch(3, 3, 0)],
        );
        assert_eq!(n[0], [0.0, 0.0, 1.0]);
        assert_eq!(n[2], [0.0, 0.0, 1.0]);
        assert_eq!(
            n[3],
            [0.0, 0.0, 0.0],
            "unreferenced vertex: zero normal (ambient only)"
        );
        let past_end = derived_normals(&positions, &[0, 1, 2], &[batch(2, 3, 0)]);
        assert!(past_end.iter().all(|v| *v == [0.0, 0.0, 0.0]));
    }
}
