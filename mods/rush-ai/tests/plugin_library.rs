//! The built `libiron3d_mod_rush_ai` as the engine loads it: the plugin host finds one
//! root module in it — the mod's (`rush-ai`, factory `ai` in the AI slot); the AI rules
//! library it links (`iron3d-ai-rules`) has none, so no linker flag is needed.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use iron3d_abi::SlotKind;
use std::path::PathBuf;

/// The cdylib cargo built for these tests (`target/<profile>/deps/`).
fn library() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    let file = format!(
        "{}iron3d_mod_rush_ai.{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_EXTENSION
    );
    let p = deps.join(&file);
    assert!(p.is_file(), "{} not built", p.display());
    p
}

#[test]
fn the_library_exports_the_mods_root_module() {
    let shadow = tempfile::tempdir().unwrap();
    let lib = iron3d_plugin_host::library::load(&library(), shadow.path())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(lib.name(), "rush-ai");
    assert_eq!(lib.version(), env!("CARGO_PKG_VERSION"));
    assert_eq!(lib.factory_for(SlotKind::Ai, Some("ai")).unwrap(), "ai");
    assert_eq!(lib.factory_for(SlotKind::Ai, None).unwrap(), "ai");
    assert!(lib.factory_for(SlotKind::Control, None).is_err());
}
