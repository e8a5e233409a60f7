//! End-to-end: `iron3d archive list/extract/check/roundtrip/pack` on archives built by our
//! own writers (NRes and RsLi with every storage method).

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use iron3d_e2e::iron3d;
use std::path::Path;
use std::process::ExitCode;

const METHODS: [&str; 7] = [
    "raw",
    "transform",
    "lzss",
    "transform+lzss",
    "lzhuf",
    "transform+lzhuf",
    "deflate",
];

fn payload(i: usize) -> Vec<u8> {
    (0..1000 + 37 * i)
        .map(|k| ((k * (i + 3)) % 251) as u8 ^ if k % 7 == 0 { 0x55 } else { 0 })
        .collect()
}

fn build(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let mut nres_entries = Vec::new();
    let mut rsli_entries = Vec::new();
    for (i, m) in METHODS.iter().enumerate() {
        let file = format!("f{i}.bin");
        std::fs::write(dir.join(&file), payload(i)).unwrap();
        nres_entries.push(serde_json::json!({"name": format!("Entry{i}.bin"), "file": file, "type_id": 0x4853_454D_u32, "attr1": i, "attr2": 2, "attr3": 3}));
        rsli_entries
            .push(serde_json::json!({"name": format!("E{i}.BIN"), "file": file, "method": m}));
    }
    let nm = dir.join("nres.json");
    std::fs::write(
        &nm,
        serde_json::json!({"format": "nres", "entries": nres_entries}).to_string(),
    )
    .unwrap();
    let rm = dir.join("rsli.json");
    std::fs::write(
        &rm,
        serde_json::json!({"format": "rsli", "seed": 4660, "entries": rsli_entries}).to_string(),
    )
    .unwrap();
    let n = dir.join("test.lib");
    let r = dir.join("test.rlb");
    for (m, o) in [(&nm, &n), (&rm, &r)] {
        let (code, out) = iron3d(&[
            "archive",
            "pack",
            "--manifest",
            m.to_str().unwrap(),
            "-o",
            o.to_str().unwrap(),
        ]);
        assert_eq!(code, ExitCode::SUCCESS, "{out}");
    }
    (n, r)
}

#[test]
fn pack_list_extract_check_and_roundtrip_every_method() {
    let dir = tempfile::tempdir().unwrap();
    let (n, r) = build(dir.path());

    let (code, out) = iron3d(&["archive", "list", "--json", n.to_str().unwrap()]);
    assert_eq!(code, ExitCode::SUCCESS);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["format"], "nres");
    let e = &v["entries"][2];
    for key in [
        "index",
        "name",
        "type_id",
        "attr1",
        "attr2",
        "attr3",
        "size",
        "data_offset",
        "sort_index",
    ] {
        assert!(e.get(key).is_some(), "nres entry lacks {key}: {e}");
    }
    assert_eq!(e["name"], "Entry2.bin");
    assert_eq!(e["attr1"], 2);
    assert_eq!(e["size"], payload(2).len());

    let (code, out) = iron3d(&["archive", "list", "--json", r.to_str().unwrap()]);
    assert_eq!(code, ExitCode::SUCCESS);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["format"], "rsli");
    let methods: Vec<u64> = v["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["method"].as_u64().unwrap())
        .collect();
    assert_eq!(
        methods,
        vec![0x000, 0x020, 0x040, 0x060, 0x080, 0x0A0, 0x100]
    );
    for key in [
        "index",
        "name",
        "flags",
        "method",
        "unpacked_size",
        "packed_size",
        "data_offset",
    ] {
        assert!(v["entries"][0].get(key).is_some(), "rsli entry lacks {key}");
    }

    for (i, _) in METHODS.iter().enumerate() {
        let out_file = dir.path().join(format!("x{i}"));
        let (code, _) = iron3d(&[
            "archive",
            "extract",
            r.to_str().unwrap(),
            &format!("e{i}.bin"),
            "-o",
            out_file.to_str().unwrap(),
        ]);
        assert_eq!(code, ExitCode::SUCCESS);
        assert_eq!(
            std::fs::read(&out_file).unwrap(),
            payload(i),
            "method {}",
            METHODS[i]
        );
        let (code, _) = iron3d(&[
            "archive",
            "extract",
            n.to_str().unwrap(),
            &format!("ENTRY{i}.BIN"),
            "-o",
            out_file.to_str().unwrap(),
        ]);
        assert_eq!(code, ExitCode::SUCCESS);
        assert_eq!(std::fs::read(&out_file).unwrap(), payload(i));
    }
    for f in [&n, &r] {
        assert_eq!(
            iron3d(&["archive", "check", f.to_str().unwrap()]).0,
            ExitCode::SUCCESS
        );
        assert_eq!(
            iron3d(&["archive", "check", "--compat", f.to_str().unwrap()]).0,
            ExitCode::SUCCESS
        );
        assert_eq!(
            iron3d(&["archive", "roundtrip", f.to_str().unwrap()]).0,
            ExitCode::SUCCESS
        );
    }
}

#[test]
fn corrupt_archives_fail_check_and_missing_entries_fail_extract() {
    let dir = tempfile::tempdir().unwrap();
    let (n, r) = build(dir.path());
    let mut bytes = std::fs::read(&n).unwrap();
    let len = bytes.len();
    bytes[len - 4] = 0x7F; // last entry's sort_index out of range
    std::fs::write(&n, &bytes).unwrap();
    assert_eq!(
        iron3d(&["archive", "check", n.to_str().unwrap()]).0,
        ExitCode::FAILURE
    );
    let mut bytes = std::fs::read(&r).unwrap();
    bytes.truncate(bytes.len() - 10); // last payload cut short
    std::fs::write(&r, &bytes).unwrap();
    assert_eq!(
        iron3d(&["archive", "check", r.to_str().unwrap()]).0,
        ExitCode::FAILURE
    );
    let (_, r2) = build(&{
        let d = dir.path().join("again");
        std::fs::create_dir_all(&d).unwrap();
        d
    });
    assert_eq!(
        iron3d(&["archive", "extract", r2.to_str().unwrap(), "NOPE.BIN"]).0,
        ExitCode::FAILURE
    );
    let bad_manifest = dir.path().join("bad.json");
    std::fs::write(
        &bad_manifest,
        r#"{"format":"rsli","entries":[{"name":"A","file":"f0.bin","method":"zip"}]}"#,
    )
    .unwrap();
    let out = dir.path().join("bad.rlb");
    assert_eq!(
        iron3d(&[
            "archive",
            "pack",
            "--manifest",
            bad_manifest.to_str().unwrap(),
            "-o",
            out.to_str().unwrap()
        ])
        .0,
        ExitCode::FAILURE
    );
}

#[test]
fn pack_fills_the_type_tag_of_known_families_and_takes_tags_by_name() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("m.bin"), b"model bytes").unwrap();
    std::fs::write(dir.path().join("w.bin"), b"1\n1 DEFAULT\n").unwrap();
    std::fs::write(dir.path().join("t.bin"), b"Texm and the rest").unwrap();
    std::fs::write(dir.path().join("p.bin"), b"models.rlb").unwrap();
    let manifest = serde_json::json!({"format": "nres", "entries": [
        {"name": "tank.MSH", "file": "m.bin"},
        {"name": "tank.wea", "file": "w.bin"},
        {"name": "GLASS0", "file": "t.bin"},
        {"name": "DEFAULT", "file": "p.bin", "type_id": "MAT0"},
        {"name": "tank_proto", "file": "p.bin"},
        {"name": "forced.wea", "file": "w.bin", "type_id": 7},
        {"name": "hex", "file": "p.bin", "type_id": "0x44495846"},
    ]});
    let m = dir.path().join("m.json");
    std::fs::write(&m, manifest.to_string()).unwrap();
    let out = dir.path().join("packed.rlb");
    let (code, text) = iron3d(&[
        "archive",
        "pack",
        "--manifest",
        m.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, ExitCode::SUCCESS, "{text}");
    let bytes = std::fs::read(&out).unwrap();
    let nres = iron3d_nres::Nres::parse(&bytes).unwrap();
    let tags: Vec<u32> = nres.entries().map(|e| e.type_id()).collect();
    assert_eq!(
        tags,
        [
            0x4853_454D,
            0x5241_4557,
            0x6D78_6554,
            0x3054_414D,
            0,
            7,
            0x4449_5846
        ]
    );

    let bad = dir.path().join("bad.json");
    std::fs::write(
        &bad,
        r#"{"format":"nres","entries":[{"name":"a.wea","file":"w.bin","type_id":"WE"}]}"#,
    )
    .unwrap();
    let e = iron3d_tools::archive::pack(&bad, &dir.path().join("bad.rlb"), None, &mut Vec::new())
        .unwrap_err();
    assert!(
        format!("{e:#}").contains("manifest entry 0 (a.wea): 'type_id' \"WE\""),
        "{e:#}"
    );
}
