//! End-to-end: `iron3d inspect texture|material|wear` and `iron3d texture export` on assets
//! written by our own writers; the exported PNG is read back with a standard decoder.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use iron3d_e2e::{gamedir, iron3d};
use iron3d_nres::{NewEntry, NresWriter};
use iron3d_texm::{PageRect, PixelFormat, RgbaImage, TexmWriter};
use std::process::ExitCode;

fn checker(w: u32, h: u32) -> RgbaImage {
    let mut px = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let on = (x / 4 + y / 4) % 2 == 0;
            px.extend_from_slice(if on {
                &[255, 0, 0, 255]
            } else {
                &[0, 0, 255, 128]
            });
        }
    }
    RgbaImage::new(w, h, px).unwrap()
}

#[test]
fn texture_inspect_and_png_export() {
    let dir = tempfile::tempdir().unwrap();
    let base = checker(32, 16);
    let texm = TexmWriter::new(PixelFormat::Argb8888)
        .with_page(vec![
            PageRect {
                x: 0,
                width: 16,
                y: 0,
                height: 16,
            },
            PageRect {
                x: 16,
                width: 16,
                y: 0,
                height: 16,
            },
        ])
        .write(&base.clone().mip_chain(3))
        .unwrap();
    let mut w = NresWriter::new();
    w.push(NewEntry::new(b"CHECKER", 0x6D78_6554, texm).unwrap());
    let lib = dir.path().join("Textures.lib");
    std::fs::write(&lib, w.finish().unwrap()).unwrap();

    let (code, out) = iron3d(&[
        "inspect",
        "texture",
        lib.to_str().unwrap(),
        "checker",
        "--json",
    ]);
    assert_eq!(code, ExitCode::SUCCESS, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (
            v["width"].as_u64(),
            v["height"].as_u64(),
            v["mip_count"].as_u64()
        ),
        (Some(32), Some(16), Some(3))
    );
    assert_eq!(v["format"], 8888);
    assert_eq!(
        v["page_rects"][1],
        serde_json::json!({"x": 16, "y": 0, "w": 16, "h": 16})
    );

    for (mip, (ew, eh)) in [(0u32, (32u32, 16u32)), (1, (16, 8))] {
        let png_path = dir.path().join(format!("out{mip}.png"));
        let (code, out) = iron3d(&[
            "texture",
            "export",
            lib.to_str().unwrap(),
            "CHECKER",
            "-o",
            png_path.to_str().unwrap(),
            "--mip",
            &mip.to_string(),
        ]);
        assert_eq!(code, ExitCode::SUCCESS, "{out}");
        let decoder = png::Decoder::new(std::io::BufReader::new(
            std::fs::File::open(&png_path).unwrap(),
        ));
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!((info.width, info.height), (ew, eh));
        assert_eq!(info.color_type, png::ColorType::Rgba);
        if mip == 0 {
            assert_eq!(
                &buf[..info.buffer_size()],
                base.pixels(),
                "lossless 8888 export"
            );
        }
    }
    let (code, _) = iron3d(&[
        "texture",
        "export",
        lib.to_str().unwrap(),
        "CHECKER",
        "-o",
        dir.path().join("x.png").to_str().unwrap(),
        "--mip",
        "9",
    ]);
    assert_eq!(code, ExitCode::FAILURE);
}

#[test]
fn material_and_wear_inspect() {
    let g = tempfile::tempdir().unwrap();
    gamedir::write(g.path());
    let (code, out) = iron3d(&[
        "inspect",
        "material",
        g.path().join("Material.lib").to_str().unwrap(),
        "steel",
        "--json",
    ]);
    assert_eq!(code, ExitCode::SUCCESS, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["version"], 6);
    assert_eq!(v["phases"][1]["texture"], "STEEL1");
    assert_eq!(v["metadata"]["c_raw"], 0x3F80_0000u32);
    let (code, out) = iron3d(&[
        "inspect",
        "wear",
        g.path().join("models.rlb").to_str().unwrap(),
        "tower.wea",
        "--json",
    ]);
    assert_eq!(code, ExitCode::SUCCESS, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["materials"][0]["name"], "CONCRETE");
    assert_eq!(v["lightmaps"].as_array().unwrap().len(), 2);
    let (code, _) = iron3d(&[
        "inspect",
        "wear",
        g.path().join("models.rlb").to_str().unwrap(),
        "nope.wea",
    ]);
    assert_eq!(code, ExitCode::FAILURE);
}

fn quad_model() -> Vec<u8> {
    use iron3d_msh::{Batch20, MshBuilder, Node38, Slot68};
    let slot = |batch_start: u16, batch_count: u16| Slot68 {
        tri_start: 0,
        tri_count: 0,
        batch_start,
        batch_count,
        aabb_min: [0.0; 3],
        aabb_max: [1.0; 3],
        sphere_center: [0.5; 3],
        sphere_radius: 1.0,
        opaque: [0; 5],
    };
    let batch = |index_start: u32, index_count: u16, base_vertex: u32| Batch20 {
        batch_flags: 0,
        material_index: 0,
        opaque4: 0,
        opaque6: 0,
        index_count,
        index_start,
        opaque14: 0,
        base_vertex,
    };
    let mut b = MshBuilder::new();
    let mut root = Node38::new(0);
    root.slot_index[0] = 0;
    let mut child = Node38::new(0);
    child.parent = 0;
    child.slot_index[1] = 1;
    b.nodes = vec![root, child];
    b.slots = vec![slot(0, 1), slot(1, 1)];
    b.positions = vec![
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [1.0, 1.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 2.0],
        [1.0, 0.0, 2.0],
        [0.0, 1.0, 2.0],
    ];
    b.indices = vec![0, 1, 2, 0, 2, 3, 0, 1, 2];
    b.batches = vec![batch(0, 6, 0), batch(6, 3, 4)];
    b.build().unwrap()
}

#[test]
fn model_inspect_and_obj_export() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = NresWriter::new();
    w.push(NewEntry::tagged(b"quad.msh", quad_model()).unwrap());
    let lib = dir.path().join("models.rlb");
    std::fs::write(&lib, w.finish().unwrap()).unwrap();
    let (code, out) = iron3d(&[
        "inspect",
        "model",
        lib.to_str().unwrap(),
        "QUAD.MSH",
        "--json",
    ]);
    assert_eq!(code, ExitCode::SUCCESS, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (
            v["node_count"].as_u64(),
            v["vertex_count"].as_u64(),
            v["batch_count"].as_u64()
        ),
        (Some(2), Some(7), Some(2))
    );
    assert_eq!(v["nodes"][1]["parent"], 0);
    let obj_path = dir.path().join("quad.obj");
    let (code, out) = iron3d(&[
        "model",
        "export",
        lib.to_str().unwrap(),
        "quad.msh",
        "-o",
        obj_path.to_str().unwrap(),
    ]);
    assert_eq!(code, ExitCode::SUCCESS, "{out}");
    let obj = std::fs::read_to_string(&obj_path).unwrap();
    assert_eq!(obj.lines().filter(|l| l.starts_with("v ")).count(), 7);
    assert_eq!(obj.lines().filter(|l| l.starts_with("f ")).count(), 3);
    assert!(obj.contains("o node0") && obj.contains("o node1"));
    assert!(
        obj.contains("v 0 1 2"),
        "child vertices at their positions:\n{obj}"
    );
    // Every face index refers to an emitted vertex.
    for f in obj.lines().filter(|l| l.starts_with("f ")) {
        for i in f[2..].split(' ') {
            let i: usize = i.parse().unwrap();
            assert!((1..=7).contains(&i), "{f}");
        }
    }
}
