//! Library-name normalisation: maps `Terrain.DLL`, `plugins/libterrain.so` and
//! `libterrain.dylib` to the same stem, `terrain`.

/// The normalised stem of a library name: directories (`/` and `\`) stripped, a `.dll`,
/// `.so` or `.dylib` extension (ASCII case-insensitive) stripped, then a leading `lib`
/// stripped only when the extension was `.so` or `.dylib`, and ASCII lower-cased.
/// A strip that would leave nothing is skipped (`.dll` stays `.dll`, `lib.so` gives `lib`).
/// Never panics; non-ASCII characters pass through unchanged.
#[must_use]
pub fn library_stem(name: &str) -> String {
    let file = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let lower = file.to_ascii_lowercase();
    let strip = |s: &str, suffix: &str| -> Option<String> {
        s.strip_suffix(suffix)
            .filter(|rest| !rest.is_empty())
            .map(str::to_owned)
    };
    if let Some(stem) = strip(&lower, ".dll") {
        return stem;
    }
    if let Some(stem) = strip(&lower, ".so").or_else(|| strip(&lower, ".dylib")) {
        return match stem.strip_prefix("lib") {
            Some(rest) if !rest.is_empty() => rest.to_owned(),
            _ => stem,
        };
    }
    lower
}

#[cfg(test)]
mod tests {
    use super::library_stem;

    #[test]
    fn stems_follow_the_rules() {
        for (input, stem) in [
            ("Terrain.DLL", "terrain"),
            ("terrain.dll", "terrain"),
            ("plugins/libiron3d_null.so", "iron3d_null"),
            ("C:\\Games\\Parkan\\AniMesh.Dll", "animesh"),
            ("mods/x\\libFoo.DyLib", "foo"),
            ("libterrain.dll", "libterrain"),
            ("libterrain", "libterrain"),
            ("terrain.so.1", "terrain.so.1"),
            ("misload", "misload"),
            ("lib.so", "lib"),
            (".dll", ".dll"),
            ("dir/", ""),
            ("", ""),
            ("Ландшафт.DLL", "Ландшафт"),
        ] {
            assert_eq!(library_stem(input), stem, "{input}");
        }
    }
}
