//! Fuzz target: the strict WEAR reader returns `Ok` or a located error for any bytes,
//! never panics; whatever it accepts re-serialises byte for byte, and its rows re-author
//! into a canonical table that parses back to the same rows.
#![no_main]

use iron3d_material::{RowSpec, Wear, WearRow};
use libfuzzer_sys::fuzz_target;

fn pairs(rows: &[WearRow]) -> Vec<(&[u8], &[u8])> {
    rows.iter().map(|r| (r.legacy_id(), r.name())).collect()
}

fuzz_target!(|data: &[u8]| {
    match Wear::parse(data) {
        Ok(w) => {
            assert_eq!(w.to_bytes(), data, "lossless");
            assert!(!w.materials().is_empty());
            let specs: Vec<RowSpec<'_>> = w
                .materials()
                .iter()
                .map(|r| RowSpec::new(r.legacy_id(), r.name()))
                .collect();
            let lms: Vec<RowSpec<'_>> = w
                .lightmaps()
                .iter()
                .map(|r| RowSpec::new(r.legacy_id(), r.name()))
                .collect();
            let authored = Wear::author(&specs, w.has_lightmap_block().then_some(&lms[..]))
                .expect("parsed rows are authorable");
            let back = Wear::parse(&authored.to_bytes()).expect("canonical table parses");
            assert_eq!(pairs(back.materials()), pairs(w.materials()));
            assert_eq!(pairs(back.lightmaps()), pairs(w.lightmaps()));
            assert_eq!(back.has_lightmap_block(), w.has_lightmap_block());
        }
        Err(e) => assert!(e.to_string().starts_with("WEAR "), "{e}"),
    }
});
