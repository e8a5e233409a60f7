//! Link settings of the mod's library (**PD-MOD-RUSH-EXPORT**).
//!
//! `iron3d-ai` is a plugin library too: its rlib holds its own root module under the
//! loader symbol every plugin exports (`iron3d_abi::root::LOADER_SYMBOL`). When an
//! object of that rlib the mod needs also holds that definition (release builds merge
//! code into few units), the link sees the symbol twice. The mod's own objects come
//! first on the link line, so allowing the duplicate keeps the first definition — the
//! mod's — and the library exports exactly one root module, `rush-ai`'s (the test
//! `tests/plugin_library.rs` loads the built library and checks its name).
//!
//! A cargo feature leaving `iron3d-ai`'s export out does not do: in a workspace build
//! the feature is unified back on, and a build of this crate alone would rewrite
//! `libiron3d_ai.so` without any root module, breaking the `ai` plugin next to it.

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    // GNU ld, gold and lld on ELF targets; other linkers have no equivalent flag here.
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if matches!(
        os.as_str(),
        "linux" | "android" | "freebsd" | "netbsd" | "openbsd" | "dragonfly"
    ) {
        println!("cargo::rustc-link-arg=-Wl,--allow-multiple-definition");
    }
}
