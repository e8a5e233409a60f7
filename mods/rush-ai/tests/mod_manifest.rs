//! `mods/rush-ai/mod.toml` as the engine reads it: valid, the documented fields, one
//! AI-slot plugin built from source (PD-MOD-SOURCE-PLUGIN) naming this crate's library,
//! and a mod the resolver loads for this engine and interface.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use iron3d_mods::{
    Environment, Manifest, ModDir, PluginBinary, PluginTarget, Slot, discover, verify_plugins,
};
use semver::Version;
use std::path::Path;

fn folder() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn the_manifest_parses_with_the_documented_fields() {
    let path = folder().join("mod.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let m = Manifest::parse(&text, &path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.id, "rush-ai");
    assert_eq!(m.version, Version::new(1, 0, 0));
    assert_eq!(m.name, "Rush AI");
    assert_eq!(m.authors, ["Iron3D-rs"]);
    assert!(m.description.as_deref().is_some_and(|d| !d.is_empty()));
    assert_eq!(m.license.as_deref(), Some("MIT OR Apache-2.0"));
    assert_eq!(m.engine.to_string(), ">=0.1, <0.2");
    assert!(
        m.engine
            .matches(&Version::parse(env!("CARGO_PKG_VERSION")).unwrap())
    );
    assert_eq!(m.interface, Some(iron3d_abi::ABI_MAJOR));
    assert!(m.simulation, "an AI changes the simulation");
    assert!(m.dependencies.is_empty() && m.conflicts.is_empty() && m.overlays.is_empty());
    assert_eq!(m.plugins.len(), 1);
    let p = &m.plugins[0];
    assert_eq!(p.target, PluginTarget::Slot(Slot::Ai));
    assert_eq!(p.factory, iron3d_mod_rush_ai::FACTORY);
    assert!(p.libraries.is_empty());
    // The cargo library name of this crate (Cargo.toml's [lib] name).
    assert_eq!(p.build.as_deref(), Some("iron3d_mod_rush_ai"));
}

#[test]
fn the_mod_is_discovered_verified_as_a_source_build_and_resolved() {
    let mods = folder().parent().unwrap();
    let found = discover(mods);
    let m = found
        .get("rush-ai")
        .unwrap_or_else(|| panic!("rush-ai not discovered: {:?}", found.broken));
    assert_eq!(m, &ModDir::open(folder()).unwrap());
    let env = Environment::current(
        Version::parse(env!("CARGO_PKG_VERSION")).unwrap(),
        iron3d_abi::ABI_MAJOR,
        iron3d_abi::ABI_MINOR,
    );
    let verified = verify_plugins(m, &env.platform).unwrap();
    assert_eq!(verified.len(), 1);
    assert_eq!(
        verified[0].binary,
        PluginBinary::Source {
            library: "iron3d_mod_rush_ai".to_owned()
        }
    );
    let r = found.resolve(&["rush-ai".to_owned()], &env);
    assert!(r.refused.is_empty(), "{:?}", r.refused);
    assert_eq!(r.ids(&found.mods), ["rush-ai"]);
}
