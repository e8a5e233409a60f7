//! Data overlays reach the render resources: a mod's loose texture (a directory named
//! like the archive) replaces one texture of the scene; the others stay the game's.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

mod common;

use iron3d_abi::{TextureKind, TextureResource};
use iron3d_mission::{GameFiles, load_mission};
use iron3d_render_frame::SceneAssets;
use iron3d_render_frame::assets::TEXTURES_LIB;

fn textures(files: &GameFiles) -> Vec<TextureResource> {
    let data = files.data();
    let mut kernel = common::kernel();
    let loaded = load_mission(&mut kernel, &data, "DEMO1", None).unwrap();
    let assets = SceneAssets::load(&data, &loaded).unwrap();
    assets.resources.textures.iter().cloned().collect()
}

#[test]
fn a_loose_texture_in_a_mod_replaces_one_scene_texture() {
    let (_dir, mut files) = common::demo();
    let base = textures(&files);
    let diffuse: Vec<&TextureResource> = base
        .iter()
        .filter(|t| t.kind == TextureKind::Diffuse)
        .collect();
    // Two textures with different pictures: A gets B's bytes.
    let a = diffuse[0];
    let b = diffuse
        .iter()
        .find(|t| t.levels != a.levels)
        .copied()
        .unwrap();
    let b_bytes = files.data().entry(TEXTURES_LIB, b.name.as_bytes()).unwrap();
    let mods = tempfile::tempdir().unwrap();
    let dir = mods.path().join("textures.lib");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(a.name.as_str().to_ascii_lowercase()), &*b_bytes).unwrap();
    files.vfs.mount("hd-textures", mods.path());

    let modded = textures(&files);
    let find = |set: &[TextureResource], name: &str| {
        set.iter()
            .find(|t| t.name.as_str() == name && t.kind == TextureKind::Diffuse)
            .cloned()
            .unwrap()
    };
    let new_a = find(&modded, a.name.as_str());
    assert_eq!(
        (new_a.skipped_levels, &new_a.levels),
        (b.skipped_levels, &b.levels),
        "A now shows B's picture"
    );
    assert_eq!(find(&modded, b.name.as_str()), b.clone(), "B unchanged");
    assert_eq!(modded.len(), base.len());
}

/// PD-RENDER-EFFECT-TEXTURES through a mod: a loose effect added to `effects.rlb` whose
/// particles name a loose sprite added to `sprites.lib` brings that sprite into the
/// resources, under the name the effect frames use.
#[test]
fn a_mods_new_effect_brings_its_sprite_texture() {
    let (_dir, mut files) = common::demo();
    let base = textures(&files);
    assert!(
        !base
            .iter()
            .any(|t| t.name.as_str() == "sprites.lib/MODGLOW.TEX")
    );
    let mut c = iron3d_fxid::Command::with_resource(
        iron3d_fxid::Opcode::Op7,
        b"sprites.lib",
        b"MODGLOW.TEX",
    )
    .unwrap();
    iron3d_effects_rules::emitter::EmitterBlock {
        width: 1.0,
        count: 4,
        colour: [1.0; 4],
        ..Default::default()
    }
    .write(&mut c)
    .unwrap();
    let fx = iron3d_fxid::Fxid::builder()
        .duration_seconds(1.0)
        .settings_id(iron3d_effects_rules::emitter::PROJECT_LAYOUT)
        .command(c)
        .build();
    // The game's own smoke sprite, under the mod's new name.
    let sprite = files.data().entry(b"sprites.lib", b"SMOKE.TEX").unwrap();
    let mods = tempfile::tempdir().unwrap();
    for (archive, entry, bytes) in [
        ("effects.rlb", "modfx", fx.to_bytes().unwrap()),
        ("sprites.lib", "modglow.tex", sprite.to_vec()),
    ] {
        let dir = mods.path().join(archive);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(entry), bytes).unwrap();
    }
    files.vfs.mount("glow", mods.path());

    let modded = textures(&files);
    let glow = modded
        .iter()
        .find(|t| t.name.as_str() == "sprites.lib/MODGLOW.TEX")
        .expect("the mod's sprite is in the resources");
    let smoke = base
        .iter()
        .find(|t| t.name.as_str() == "sprites.lib/SMOKE.TEX")
        .unwrap();
    assert_eq!(glow.levels, smoke.levels);
    assert_eq!(modded.len(), base.len() + 1);
}
