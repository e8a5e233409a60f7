//! A plugin library cut short never takes the process down (rule PD-HOST-IMAGE-CHECK):
//! a real plugin truncated at every 4 KiB boundary and at odd lengths is loaded in this
//! very process (no load probe here) and each is refused by name before it is mapped —
//! a missed case would end this test binary with SIGBUS. The whole file still loads; a
//! directory, an ELF that is not a plugin and a non-ELF are refused with their reasons; a
//! directory found where a registry name points is "not an Iron3D plugin", not "not found".

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

use iron3d_e2e::plugins::library;
use iron3d_plugin_host::library::load;

#[test]
fn a_plugin_cut_at_any_length_is_refused_never_a_signal() {
    let dir = tempfile::tempdir().unwrap();
    let shadow = dir.path().join("shadow");
    let whole = std::fs::read(library("iron3d_null")).unwrap();
    let mut lengths: Vec<usize> = (1..whole.len() / 4096).map(|k| k * 4096).collect();
    lengths.extend([0, 1, 15, 16, 63, 64, 65, 511, 512, 4095, 4097, 65535, 65537]);
    lengths.extend([whole.len() / 2, whole.len() - 1, whole.len() - 4097]);
    lengths.retain(|&n| n < whole.len());
    assert!(lengths.len() > 100, "{} lengths", lengths.len());
    let cut = dir.path().join("libcut.so");
    for n in lengths {
        std::fs::write(&cut, &whole[..n]).unwrap();
        let e = load(&cut, &shadow).expect_err("a truncated library is refused");
        let text = e.to_string();
        assert!(
            text.contains("libcut.so") && text.contains("refused"),
            "cut at {n}: {text}"
        );
    }
    // Nothing refused was copied for mapping.
    let copies = std::fs::read_dir(&shadow).map_or(0, |d| d.count());
    assert_eq!(copies, 0, "refused images leave no shadow copy");
    std::fs::write(&cut, &whole).unwrap();
    let lib = load(&cut, &shadow).expect("the whole file loads");
    assert_eq!(lib.name(), "iron3d-null");
}

#[test]
fn a_directory_a_non_plugin_elf_and_a_text_file_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let shadow = dir.path().join("shadow");
    let folder = dir.path().join("libfolder.so");
    std::fs::create_dir(&folder).unwrap();
    let e = load(&folder, &shadow).unwrap_err().to_string();
    assert!(
        e.contains("libfolder.so") && e.contains("a directory"),
        "{e}"
    );
    let text = dir.path().join("libtext.so");
    std::fs::write(&text, "not a library\n").unwrap();
    let e = load(&text, &shadow).unwrap_err().to_string();
    assert!(e.contains("not an ELF"), "{e}");
    // An ELF shared library that is not a plugin: the C maths library of this Debian
    // machine.
    let libm = [
        "/lib/x86_64-linux-gnu/libm.so.6",
        "/usr/lib/x86_64-linux-gnu/libm.so.6",
        "/lib64/libm.so.6",
    ]
    .into_iter()
    .map(std::path::Path::new)
    .find(|p| p.is_file())
    .expect("libm.so.6 on a Debian machine");
    let e = load(libm, &shadow).unwrap_err().to_string();
    assert!(
        e.contains("not an Iron3D plugin") && e.contains("export_plugin"),
        "{e}"
    );
}

#[test]
fn a_directory_named_as_a_plugin_is_not_an_iron3d_plugin_rather_than_not_found() {
    use iron3d_plugin_host::SearchPaths;
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("libfolder.so")).unwrap();
    let paths = SearchPaths::new(vec![dir.path().to_owned()]);
    // By registry name through the search path, and by a path.
    for name in [
        "folder".to_owned(),
        dir.path().join("libfolder.so").display().to_string(),
    ] {
        let e = paths.resolve(&name).unwrap_err().to_string();
        assert!(
            e.contains("libfolder.so")
                && e.contains("not an Iron3D plugin")
                && e.contains("a directory"),
            "{name}: {e}"
        );
    }
    let e = paths.resolve("absent").unwrap_err().to_string();
    assert!(e.contains("not found; searched"), "{e}");
}

#[test]
fn an_oversized_or_escape_laden_library_name_is_cut_and_escaped_in_the_message() {
    use iron3d_plugin_host::SearchPaths;
    let dir = tempfile::tempdir().unwrap();
    let paths = SearchPaths::new(vec![dir.path().to_owned()]);
    let huge = "x".repeat(1 << 20);
    let e = paths.resolve(&huge).unwrap_err().to_string();
    assert!(e.len() < 400, "{} bytes: {}", e.len(), &e[..400]);
    assert!(e.contains("1048576 bytes, longer than any path"), "{e}");
    let e = paths.resolve("\u{1b}[2Jevil").unwrap_err().to_string();
    assert!(!e.contains('\u{1b}'), "{e:?}");
    assert!(e.contains("\\u{1b}[2Jevil"), "{e}");
}
