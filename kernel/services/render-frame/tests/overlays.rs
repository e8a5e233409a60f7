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
