//! Strict checks, lossless round trips, builder behaviour and runtime cell packing.

mod common;

use common::{squares, wrap};
use iron3d_landmap::*;
use iron3d_nres::{NewEntry, NresWriter};
use proptest::prelude::*;

fn payload(map: &LandMap) -> Vec<u8> {
    map.encode_payload().expect("encode")
}

/// Payload offset of area 0's link array.
fn links_off(map: &LandMap) -> usize {
    PREFIX_SIZE + map.areas[0].vertices.len() * VERTEX_SIZE
}

fn grid_off(map: &LandMap) -> usize {
    map.areas
        .iter()
        .map(|a| PREFIX_SIZE + a.vertices.len() * VERTEX_SIZE + a.links.len() * LINK_SIZE)
        .sum()
}

#[test]
fn generated_map_round_trips_byte_identically() {
    for (w, h, c) in [(1, 1, 1), (2, 2, 4), (3, 2, 8), (5, 5, 16)] {
        let map = squares(w, h, c);
        let bytes = map.to_file_bytes(b"Land").unwrap();
        let file = LandMapFile::parse(&bytes).unwrap();
        assert_eq!(file.to_bytes(), bytes);
        assert_eq!(file.map(), &map);
        assert_eq!(file.map().encode_payload().unwrap(), payload(&map));
        assert_eq!(file.document().record(0).unwrap().attr1(), (w * h) as u32);
    }
}

#[test]
fn builder_links_neighbours_and_fills_grid() {
    let map = squares(2, 2, 2);
    // Area 0 (0..1, 0..1): edge 1 (x=1) touches area 1, edge 2 (y=1) touches area 2.
    let a0 = &map.areas[0];
    assert_eq!(a0.links[1].target().map(|t| t.0), Some(1));
    assert_eq!(a0.links[2].target().map(|t| t.0), Some(2));
    assert_eq!(a0.links[0], EdgeLink::NONE);
    let (t, e) = a0.links[1].target().unwrap();
    assert_eq!(map.areas[t].links[e].target(), Some((0, 1)));
    assert_eq!(a0.prefix.logic_flag(), AUTHORED_WALKABLE_FLAG);
    assert_eq!(map.areas[1].prefix.logic_flag(), 0);
    assert_eq!(a0.prefix.normal(), [0.0, -0.4472136, 0.8944272]);
    assert_eq!(a0.prefix.class_id(), 7);
    // Cell (0,0) covers [0,1) x [0,1): the square 0 and those whose boxes touch x=1/y=1.
    assert!(map.grid.cell(0, 0).unwrap().contains(&0));
    assert!(map.grid.cell(1, 1).unwrap().contains(&3));
    assert!(!map.grid.cell(1, 1).unwrap().contains(&0) || map.grid.cell(1, 1).unwrap().len() == 4);
}

#[test]
fn build_grid_rejects_bad_input() {
    let map = squares(1, 1, 1);
    let b = Bounds {
        min: [0.0, 0.0],
        max: [1.0, 1.0],
    };
    assert!(matches!(
        build_grid(&map.areas, 0, 4, b),
        Err(LandMapError::GridSize { .. })
    ));
    let bad = Bounds {
        min: [1.0, 0.0],
        max: [1.0, 1.0],
    };
    assert!(matches!(
        build_grid(&map.areas, 4, 4, bad),
        Err(LandMapError::Build { .. })
    ));
    assert!(matches!(
        build_grid(&map.areas, 1 << 13, 1 << 13, b),
        Err(LandMapError::Overflow { .. })
    ));
    // 1024 areas in one cell exceed the 10-bit packed hit count.
    let many = vec![map.areas[0].clone(); 1024];
    assert!(matches!(
        build_grid(&many, 1, 1, b),
        Err(LandMapError::Overflow {
            field: "packed hit_count",
            ..
        })
    ));
    let mut bld = MapBuilder::new();
    let spec = AreaSpec {
        polygon: vec![[0.0; 3]; 3],
        walkable: true,
        class_id: 0,
    };
    assert!(matches!(
        bld.add_area(&spec),
        Err(LandMapError::Build { area: Some(0), .. })
    ));
    assert!(bld.link(0, 0, 1, 0).is_err());
}

#[test]
fn rejects_wrong_entry_type() {
    let map = squares(1, 1, 1);
    let bytes = wrap(&payload(&map), 13, 1);
    assert_eq!(
        LandMapFile::parse(&bytes).unwrap_err(),
        LandMapError::EntryType { found: 13 }
    );
}

#[test]
fn rejects_entry_count() {
    let p = payload(&squares(1, 1, 1));
    let mut w = NresWriter::new();
    w.push(
        NewEntry::new(b"a", 12, p.clone())
            .unwrap()
            .with_attrs(1, 0, 0),
    );
    w.push(NewEntry::new(b"b", 12, p).unwrap().with_attrs(1, 0, 0));
    let bytes = w.finish().unwrap();
    assert_eq!(
        LandMapFile::parse(&bytes).unwrap_err(),
        LandMapError::EntryCount { found: 2 }
    );
    let empty = NresWriter::new().finish().unwrap();
    assert_eq!(
        LandMapFile::parse(&empty).unwrap_err(),
        LandMapError::EntryCount { found: 0 }
    );
}

#[test]
fn rejects_broken_nres() {
    assert!(matches!(
        LandMapFile::parse(b"NRes"),
        Err(LandMapError::Nres(_))
    ));
}

#[test]
fn rejects_truncated_prefix() {
    let map = squares(2, 1, 1);
    let p = payload(&map);
    // Claim a third areal; its prefix starts at the grid and runs out of bytes.
    let start = grid_off(&map);
    let mut cut = p[..start].to_vec();
    cut.extend_from_slice(&[0; 20]);
    let err = parse_payload(&cut, 3).unwrap_err();
    assert_eq!(
        err,
        LandMapError::Truncated {
            area: Some(2),
            field: "ArealPrefix56",
            offset: start,
            expected: 56,
            found: 20
        }
    );
    // A payload too short for even one prefix is refused by the attr1 count check.
    let bytes = wrap(&p[..30], 12, 1);
    assert!(matches!(
        LandMapFile::parse(&bytes),
        Err(LandMapError::CountTooLarge { area: None, .. })
    ));
}

#[test]
fn rejects_counts_overflowing() {
    let map = squares(1, 1, 1);
    let mut p = payload(&map);
    // attr1 far beyond the payload: refused before allocating.
    assert!(matches!(
        parse_payload(&p, u32::MAX),
        Err(LandMapError::CountTooLarge {
            field: "areal_count (attr1)",
            count: 4_294_967_295,
            ..
        })
    ));
    let mut vc = p.clone();
    vc[0x30..0x34].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(matches!(
        parse_payload(&vc, 1),
        Err(LandMapError::CountTooLarge {
            area: Some(0),
            field: "vertex_count",
            stride: 12,
            ..
        })
    ));
    p[0x34..0x38].copy_from_slice(&u32::MAX.to_le_bytes());
    let err = parse_payload(&p, 1).unwrap_err();
    assert!(
        matches!(
            err,
            LandMapError::CountTooLarge {
                area: Some(0),
                stride: 8,
                ..
            }
        ),
        "{err}"
    );
    let mut g = payload(&map);
    let off = grid_off(&map);
    g[off..off + 8].copy_from_slice(&[0xFF; 8]);
    assert!(matches!(
        parse_payload(&g, 1),
        Err(LandMapError::CountTooLarge {
            field: "cells (cellsX*cellsY)",
            ..
        })
    ));
    let mut h = payload(&map);
    h[off + 8..off + 10].copy_from_slice(&u16::MAX.to_le_bytes());
    assert!(matches!(
        parse_payload(&h, 1),
        Err(LandMapError::CountTooLarge {
            field: "hit_count",
            ..
        })
    ));
}

#[test]
fn rejects_link_to_missing_area() {
    let map = squares(2, 1, 1);
    let mut p = payload(&map);
    let off = links_off(&map);
    p[off..off + 4].copy_from_slice(&2i32.to_le_bytes());
    p[off + 4..off + 8].copy_from_slice(&0i32.to_le_bytes());
    assert_eq!(
        parse_payload(&p, 2).unwrap_err(),
        LandMapError::LinkArea {
            area: 0,
            link: 0,
            offset: off,
            area_ref: 2,
            areal_count: 2
        }
    );
}

#[test]
fn rejects_link_to_missing_edge() {
    let map = squares(2, 1, 1);
    let mut p = payload(&map);
    let off = links_off(&map);
    p[off..off + 4].copy_from_slice(&1i32.to_le_bytes());
    p[off + 4..off + 8].copy_from_slice(&4i32.to_le_bytes());
    assert_eq!(
        parse_payload(&p, 2).unwrap_err(),
        LandMapError::LinkEdge {
            area: 0,
            link: 0,
            offset: off,
            target: 1,
            edge_ref: 4,
            target_links: 4
        }
    );
}

#[test]
fn rejects_mixed_sign_link() {
    let map = squares(2, 1, 1);
    let mut p = payload(&map);
    let off = links_off(&map);
    p[off..off + 4].copy_from_slice(&1i32.to_le_bytes());
    assert!(matches!(
        parse_payload(&p, 2),
        Err(LandMapError::LinkSign {
            area: 0,
            link: 0,
            edge_ref: -1,
            ..
        })
    ));
    p[off..off + 4].copy_from_slice(&(-2i32).to_le_bytes());
    p[off + 4..off + 8].copy_from_slice(&(-2i32).to_le_bytes());
    assert!(matches!(
        parse_payload(&p, 2),
        Err(LandMapError::LinkSign { .. })
    ));
}

#[test]
fn rejects_cell_id_out_of_range() {
    let map = squares(1, 1, 1);
    let mut p = payload(&map);
    let off = grid_off(&map) + 8;
    assert_eq!(&p[off..off + 4], &[1, 0, 0, 0]);
    p[off + 2..off + 4].copy_from_slice(&1u16.to_le_bytes());
    assert_eq!(
        parse_payload(&p, 1).unwrap_err(),
        LandMapError::CellId {
            cell: 0,
            offset: off + 2,
            id: 1,
            areal_count: 1
        }
    );
}

#[test]
fn rejects_empty_grid() {
    let map = squares(1, 1, 1);
    let mut p = payload(&map);
    let off = grid_off(&map);
    p.truncate(off);
    p.extend_from_slice(&[0, 0, 0, 0, 5, 0, 0, 0]);
    assert!(matches!(
        parse_payload(&p, 1),
        Err(LandMapError::GridSize {
            cells_x: 0,
            cells_y: 5,
            ..
        })
    ));
}

#[test]
fn rejects_trailing_bytes() {
    let mut p = payload(&squares(1, 1, 2));
    let len = p.len();
    p.push(0);
    assert_eq!(
        parse_payload(&p, 1).unwrap_err(),
        LandMapError::TrailingBytes {
            offset: len,
            extra: 1
        }
    );
    assert!(matches!(
        LandMapFile::parse(&wrap(&p, 12, 1)),
        Err(LandMapError::TrailingBytes { .. })
    ));
}

#[test]
fn poly_blocks_are_framed_and_kept_raw() {
    let mut map = squares(1, 1, 1);
    let a = &mut map.areas[0];
    a.polys.push(PolyBlock {
        n: 1,
        raw: (0..16).collect(),
    });
    a.links.extend([EdgeLink::NONE; 3]);
    let p = payload(&map);
    // The encoder derives poly_count; the parsed prefix carries it.
    let parsed = parse_payload(&p, 1).unwrap();
    assert_eq!(parsed.areas[0].prefix.poly_count(), 1);
    map.areas[0].prefix.set_u32(0x34, 1);
    assert_eq!(parsed, map);
    // Wrong raw length and wrong link count are refused by the encoder.
    let mut bad = map.clone();
    bad.areas[0].polys[0].raw.pop();
    assert!(matches!(
        bad.encode_payload(),
        Err(LandMapError::PolyBlockSize { .. })
    ));
    let mut bad = map.clone();
    bad.areas[0].links.pop();
    assert!(matches!(
        bad.encode_payload(),
        Err(LandMapError::LinkCount { .. })
    ));
    // Truncated block.
    let off = PREFIX_SIZE + 4 * VERTEX_SIZE + 7 * LINK_SIZE;
    assert!(parse_payload(&p[..off + 10], 1).is_err());
}

#[test]
fn raw_fields_and_float_bits_survive() {
    let map = squares(1, 1, 1);
    let mut p = payload(&map);
    p[0x0C..0x10].copy_from_slice(&0x7FC0_0001u32.to_le_bytes()); // NaN payload in reserved_12
    p[0x24..0x28].copy_from_slice(&0xDEAD_BEEFu32.to_le_bytes());
    p[PREFIX_SIZE..PREFIX_SIZE + 4].copy_from_slice(&0x8000_0000u32.to_le_bytes()); // -0.0
    let bytes = wrap(&p, 12, 1);
    let file = LandMapFile::parse(&bytes).unwrap();
    assert_eq!(file.to_bytes(), bytes);
    assert_eq!(file.map().encode_payload().unwrap(), p);
    let a = &file.map().areas[0];
    assert_eq!(
        (a.prefix.reserved_12(), a.prefix.reserved_36()),
        (0x7FC0_0001, 0xDEAD_BEEF)
    );
    assert_eq!(a.vertices[0].bits[0], 0x8000_0000);
}

#[test]
fn set_map_edits_payload_and_attr1() {
    let bytes = squares(1, 1, 1).to_file_bytes(b"Land").unwrap();
    let mut file = LandMapFile::parse(&bytes).unwrap();
    let bigger = squares(3, 1, 2);
    file.set_map(bigger.clone()).unwrap();
    let again = LandMapFile::parse(&file.to_bytes()).unwrap().into_map();
    assert_eq!(again, bigger);
}

#[test]
fn packing_round_trips_and_overflows() {
    for (h, o) in [
        (0, 0),
        (1, 0),
        (MAX_PACKED_HITS, MAX_PACKED_OFFSET),
        (20, 12345),
    ] {
        let p = pack_cell(h, o).unwrap();
        assert_eq!(unpack_cell(p), (h, o));
    }
    assert_eq!(pack_cell(3, 5).unwrap(), (3 << 22) | 5);
    assert!(matches!(
        pack_cell(1024, 0),
        Err(LandMapError::Overflow {
            field: "packed hit_count",
            max: 1023,
            ..
        })
    ));
    assert!(matches!(
        pack_cell(0, 1 << 22),
        Err(LandMapError::Overflow {
            field: "packed pool_offset",
            ..
        })
    ));
    let map = squares(3, 3, 4);
    let packed = map.grid.packed().unwrap();
    for (i, p) in packed.iter().enumerate() {
        let (h, o) = unpack_cell(*p);
        assert_eq!(
            &map.grid.pool()[o as usize..(o + h) as usize],
            map.grid.cell_at(i).unwrap()
        );
    }
}

proptest! {
    #[test]
    fn encode_decode_encode(
        w in 1usize..5, h in 1usize..5, cells in 1u32..9,
        flags in proptest::collection::vec(any::<u32>(), 25),
        extra_cells in proptest::collection::vec(proptest::collection::vec(any::<u16>(), 0..4), 0..4),
    ) {
        let mut map = squares(w, h, cells);
        let n = map.areas.len() as u16;
        for (a, f) in map.areas.iter_mut().zip(&flags) {
            a.prefix.set_u32(0x2C, *f);
        }
        let mut all: Vec<Vec<u16>> = (0..map.grid.len()).map(|i| map.grid.cell_at(i).unwrap().to_vec()).collect();
        for (c, extra) in all.iter_mut().zip(&extra_cells) {
            c.extend(extra.iter().map(|id| id % n));
        }
        map.grid = CellGrid::from_cells(cells, cells, &all).unwrap();
        let p1 = map.encode_payload().unwrap();
        let decoded = parse_payload(&p1, map.areas.len() as u32).unwrap();
        prop_assert_eq!(&decoded, &map);
        prop_assert_eq!(decoded.encode_payload().unwrap(), p1);
        let file = map.to_file_bytes(b"Land.map").unwrap();
        prop_assert_eq!(LandMapFile::parse(&file).unwrap().to_bytes(), file);
    }
}
