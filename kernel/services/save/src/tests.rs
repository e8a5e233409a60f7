//! The container's round trip, every refusal of PD-SAVE-STRICT and PD-SAVE-VERSION,
//! the compatibility check and the atomic write.

use crate::*;

fn header() -> SaveHeader {
    SaveHeader {
        engine: "iron3d 0.1.0".into(),
        mission: "BATTLE".into(),
        seed: 7,
        tick_hz: 30,
        data_fingerprint: "aa".repeat(32),
        mods_fingerprint: "bb".repeat(32),
        plugins: vec![
            PluginRecord {
                slot: "ai".into(),
                library: "iron3d_ai".into(),
                factory: "ai".into(),
                version: "0.1.0".into(),
                blob_format: 3,
            },
            PluginRecord {
                slot: "control".into(),
                library: "iron3d_control".into(),
                factory: "control".into(),
                version: "0.1.0".into(),
                blob_format: 2,
            },
        ],
        tick: 300,
        game_time_ms: 10_000,
        paused: true,
        time_scale: 2.0,
        state_hash: "0123456789abcdef".into(),
        outcome: Some(SavedOutcome {
            code: 1,
            slot: "ai".into(),
            tick: 250,
        }),
        extra: Default::default(),
    }
}

fn save() -> SaveFile {
    let mut s = SaveFile::new(header());
    s.sections
        .push(Section::new(TAG_WORLD, "", vec![1, 2, 3, 4]));
    s.sections
        .push(Section::new(TAG_PLUGIN, "ai", b"ai-state".to_vec()));
    s.sections.push(Section::new(TAG_PLUGIN, "control", vec![]));
    s.sections
        .push(Section::new(*b"XTRA", "future", vec![9; 100]));
    s
}

/// The offset of section `index`'s payload in `bytes`.
fn payload_offset(bytes: &[u8], index: usize) -> usize {
    let count = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let mut o = HEADER_LEN + count * TABLE_ENTRY_LEN;
    for k in 0..index {
        let e = HEADER_LEN + k * TABLE_ENTRY_LEN;
        o += u64::from_le_bytes(bytes[e + 24..e + 32].try_into().unwrap()) as usize;
    }
    o
}

/// Recomputes the file checksum after a deliberate edit (so the edit is what the reader
/// sees, not a file checksum failure).
fn reseal(bytes: &mut [u8]) {
    let end = bytes.len() - FILE_CHECKSUM_LEN;
    let sum = blake3::hash(&bytes[..end]);
    bytes[end..].copy_from_slice(sum.as_bytes());
}

#[test]
fn a_save_round_trips_with_unknown_sections_and_header_fields_kept() {
    let mut s = save();
    s.header
        .extra
        .insert("weather".into(), serde_json::json!({"rain": 0.5}));
    s.header_flags = 0;
    let bytes = s.to_bytes().unwrap();
    assert_eq!(&bytes[..8], b"IRON3DSV");
    let back = SaveFile::parse(&bytes).unwrap();
    assert_eq!(back, s);
    assert_eq!(
        back.section(*b"XTRA", "future").unwrap().payload,
        vec![9; 100]
    );
    assert_eq!(
        back.to_bytes().unwrap(),
        bytes,
        "written again byte for byte"
    );
    assert_eq!(peek_header(&bytes).unwrap(), s.header);
    assert!(fuzz_check::save_file(&bytes));
}

#[test]
fn a_flipped_byte_anywhere_is_refused_and_named() {
    let bytes = save().to_bytes().unwrap();
    for i in 0..bytes.len() {
        let mut b = bytes.clone();
        b[i] ^= 0x20;
        let e = SaveFile::parse(&b).expect_err(&format!("byte {i} flipped"));
        assert!(!fuzz_check::save_file(&b));
        // A flip inside a payload names that section.
        let p2 = payload_offset(&bytes, 2);
        if (p2..p2 + 2).contains(&i) {
            assert!(
                matches!(&e, SaveError::SectionChecksum { index: 2, tag, name, .. } if tag == "PLUG" && name == "ai"),
                "{e}"
            );
        }
    }
}

#[test]
fn every_truncation_is_refused() {
    let bytes = save().to_bytes().unwrap();
    for len in 0..bytes.len() {
        let e = SaveFile::parse(&bytes[..len]).expect_err(&format!("cut at {len}"));
        if len < HEADER_LEN {
            assert!(matches!(e, SaveError::Truncated { .. }), "{len}: {e}");
        }
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(SaveFile::parse(&longer).is_err());
}

#[test]
fn versions_too_new_and_too_old_are_refused_and_a_newer_compatible_writer_is_read() {
    let bytes = save().to_bytes().unwrap();
    let mut newer = bytes.clone();
    newer[10..12].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    reseal(&mut newer);
    let e = SaveFile::parse(&newer).unwrap_err();
    assert!(
        matches!(e, SaveError::TooNew { needs, .. } if needs == FORMAT_VERSION + 1),
        "{e}"
    );
    assert!(e.to_string().contains("needs a reader of version 2"), "{e}");

    let mut old = bytes.clone();
    old[8..10].copy_from_slice(&0u16.to_le_bytes());
    reseal(&mut old);
    assert!(matches!(
        SaveFile::parse(&old).unwrap_err(),
        SaveError::TooOld {
            format_version: 0,
            ..
        }
    ));

    // A newer writer that says version-1 readers can read it is read.
    let mut compatible = bytes;
    compatible[8..10].copy_from_slice(&(FORMAT_VERSION + 3).to_le_bytes());
    reseal(&mut compatible);
    assert_eq!(SaveFile::parse(&compatible).unwrap(), save());
}

#[test]
fn structural_refusals_name_what_and_where() {
    let bytes = save().to_bytes().unwrap();
    // Not a save.
    let mut b = bytes.clone();
    b[0] = b'X';
    assert!(matches!(
        SaveFile::parse(&b).unwrap_err(),
        SaveError::BadMagic { .. }
    ));
    // A section count past the limit allocates nothing and is named.
    let mut b = bytes.clone();
    b[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(matches!(
        SaveFile::parse(&b).unwrap_err(),
        SaveError::TooManySections {
            count: u32::MAX,
            ..
        }
    ));
    // A section length past the end.
    let mut b = bytes.clone();
    let e1 = HEADER_LEN + TABLE_ENTRY_LEN;
    b[e1 + 24..e1 + 32].copy_from_slice(&u64::MAX.to_le_bytes());
    reseal(&mut b);
    let e = SaveFile::parse(&b).unwrap_err();
    assert!(
        matches!(&e, SaveError::SectionOutOfBounds { index: 1, tag, .. } if tag == "WRLD"),
        "{e}"
    );
    // A damaged table entry (checksum field) is the section's checksum error.
    let mut b = bytes.clone();
    b[e1 + 40] ^= 1;
    reseal(&mut b);
    assert!(matches!(
        SaveFile::parse(&b).unwrap_err(),
        SaveError::SectionChecksum { index: 1, .. }
    ));
    // Only the file checksum damaged.
    let mut b = bytes.clone();
    let last = b.len() - 1;
    b[last] ^= 1;
    assert!(matches!(
        SaveFile::parse(&b).unwrap_err(),
        SaveError::FileChecksum
    ));
    // A non-ASCII tag.
    let mut b = bytes.clone();
    b[e1] = 0xff;
    reseal(&mut b);
    assert!(matches!(
        SaveFile::parse(&b).unwrap_err(),
        SaveError::BadLabel {
            index: 1,
            field: "tag",
            ..
        }
    ));
}

#[test]
fn a_header_that_is_not_first_twice_or_malformed_is_refused() {
    // Duplicate sections are refused by the writer and by the reader.
    let mut s = save();
    s.sections.push(Section::new(TAG_PLUGIN, "ai", vec![]));
    assert!(matches!(
        s.to_bytes().unwrap_err(),
        SaveError::BadSection { .. }
    ));
    let bytes = save().to_bytes().unwrap();
    // Rename section 3 (PLUG control) to PLUG ai: a duplicate.
    let mut b = bytes.clone();
    let e3 = HEADER_LEN + 3 * TABLE_ENTRY_LEN;
    b[e3 + 4..e3 + 20].copy_from_slice(b"ai\0\0\0\0\0\0\0\0\0\0\0\0\0\0");
    reseal(&mut b);
    let e = SaveFile::parse(&b).unwrap_err();
    assert!(
        matches!(&e, SaveError::DuplicateSection { index: 3, .. }),
        "{e}"
    );
    // The first section not HEAD.
    let mut b = bytes.clone();
    b[HEADER_LEN..HEADER_LEN + 4].copy_from_slice(b"WRLX");
    reseal(&mut b);
    assert!(matches!(
        SaveFile::parse(&b).unwrap_err(),
        SaveError::MissingHeader { .. }
    ));
    // A header that is not JSON of a header: its checksum made right, so the JSON error
    // is what is reported.
    let mut s = save();
    s.header.engine = "x".into();
    let mut b = s.to_bytes().unwrap();
    let p0 = payload_offset(&b, 0);
    let pos = p0 + b[p0..].windows(8).position(|w| w == b"\"engine\"").unwrap();
    b[pos + 1] = b'E';
    let h = blake3::hash(&b[p0..payload_offset(&b, 1)]);
    b[HEADER_LEN + 32..HEADER_LEN + 64].copy_from_slice(h.as_bytes());
    reseal(&mut b);
    let e = SaveFile::parse(&b).unwrap_err();
    assert!(matches!(e, SaveError::BadHeader { .. }), "{e}");
    assert!(e.to_string().contains("missing field `engine`"), "{e}");
}

#[test]
fn the_writer_refuses_what_the_table_cannot_hold() {
    let mut s = save();
    s.sections
        .push(Section::new(*b"PLUG", "a-name-longer-than-16", vec![]));
    assert!(s.to_bytes().is_err());
    let mut s = save();
    s.sections.push(Section::new(*b"HEAD", "", vec![]));
    assert!(s.to_bytes().is_err());
    let mut s = save();
    s.header.time_scale = f64::NAN;
    assert!(s.to_bytes().is_err());
    let mut s = save();
    for k in 0..MAX_SECTIONS {
        s.sections
            .push(Section::new(*b"MANY", format!("{k}"), vec![]));
    }
    assert!(matches!(
        s.to_bytes().unwrap_err(),
        SaveError::TooManySections { .. }
    ));
}

#[test]
fn mismatches_list_every_difference() {
    let saved = header();
    assert!(saved.mismatches(&saved).is_empty());
    let mut running = header();
    running.data_fingerprint = "cc".repeat(32);
    running.mods_fingerprint = "dd".repeat(32);
    running.plugins[1].version = "0.2.0".into();
    running.plugins.remove(0);
    running.plugins.push(PluginRecord {
        slot: "net".into(),
        library: "iron3d_net".into(),
        factory: "net".into(),
        version: "0.1.0".into(),
        blob_format: 1,
    });
    running.tick = 5; // state, not compatibility
    let m = saved.mismatches(&running);
    let text: Vec<String> = m.iter().map(ToString::to_string).collect();
    assert_eq!(m.len(), 5, "{text:#?}");
    assert!(matches!(m[0], Mismatch::GameData { .. }));
    assert!(matches!(m[1], Mismatch::Mods { .. }));
    assert_eq!(
        text[2],
        "slot ai: the save's plugin iron3d_ai/ai 0.1.0 (blob v3) is not loaded"
    );
    assert_eq!(
        text[3],
        "slot control: the save has iron3d_control/control 0.1.0 (blob v2), the engine runs iron3d_control/control 0.2.0 (blob v2)"
    );
    assert!(text[4].starts_with("slot net: the engine runs iron3d_net/net"));
    let e = SaveError::Incompatible(m);
    assert!(e.to_string().contains("game data differ"), "{e}");
}

#[test]
fn an_atomic_write_keeps_the_previous_file_as_its_backup() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("slot1.sav");
    let first = save();
    write_atomic(&path, &first).unwrap();
    assert_eq!(read(&path).unwrap(), first);
    assert!(!backup_path(&path).exists());
    let mut second = save();
    second.header.tick = 600;
    write_atomic(&path, &second).unwrap();
    assert_eq!(read(&path).unwrap(), second);
    assert_eq!(read(&backup_path(&path)).unwrap(), first);
    // Nothing else is left in the folder.
    let mut names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["slot1.sav", "slot1.sav.bak"]);
}

#[test]
fn an_interrupted_save_leaves_the_old_one_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("quick.sav");
    let old = save();
    write_atomic(&path, &old).unwrap();
    let mut new = save();
    new.header.tick = 900;
    let bytes = new.to_bytes().unwrap();
    // Killed after the temporary file was written, before the rename.
    let staged = stage(&path, &bytes).unwrap();
    assert_eq!(
        read(&path).unwrap(),
        old,
        "the target is untouched while staged"
    );
    drop(staged);
    assert_eq!(read(&path).unwrap(), old);
    // Killed half-way through writing: a stray partial temporary file, as a killed
    // process leaves it, is never read and does not stop the next save.
    let stray = dir.path().join(".quick.sav.abc123.tmp");
    std::fs::write(&stray, &bytes[..bytes.len() / 2]).unwrap();
    assert_eq!(read(&path).unwrap(), old);
    write_atomic(&path, &new).unwrap();
    assert_eq!(read(&path).unwrap(), new);
    assert_eq!(read(&backup_path(&path)).unwrap(), old);
}

#[test]
fn reading_a_missing_or_oversized_file_says_which() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("none.sav");
    let e = read(&missing).unwrap_err();
    assert!(e.to_string().contains("none.sav"), "{e}");
    let big = dir.path().join("big.sav");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(MAX_FILE_LEN + 1).unwrap();
    assert!(matches!(
        read(&big).unwrap_err(),
        SaveError::TooLarge { .. }
    ));
}

#[test]
fn the_slot_list_keeps_order_and_unknown_keys_and_checks_each_file_independently() {
    let dir = tempfile::tempdir().unwrap();
    // Two slots written, a third listed (occupied) without a file, as Part 2's slots 1
    // and 7 are; an unknown key kept.
    let mut first = save();
    first.header.tick = 100;
    write_atomic(&dir.path().join("quick.sav"), &first).unwrap();
    let mut second = save();
    second.header.tick = 200;
    write_atomic(&dir.path().join("auto1.sav"), &second).unwrap();
    let mut list = SlotList::new();
    list.record("quick", "quick.sav", &first.header);
    list.record("auto1", "auto1.sav", &second.header);
    list.record("slot7", "slot7.sav", &second.header);
    list.write(dir.path()).unwrap();
    let mut text = std::fs::read_to_string(dir.path().join(SLOTS_FILE)).unwrap();
    text.push_str("[quick]\nnote=kept\n");
    std::fs::write(dir.path().join(SLOTS_FILE), &text).unwrap();
    let mut list = SlotList::read(dir.path()).unwrap();
    let names: Vec<String> = list.slots().into_iter().map(|m| m.slot).collect();
    assert_eq!(names, ["quick", "auto1", "slot7", "quick"]);
    assert_eq!(list.slots()[0].tick, 100);
    // The quick save is overwritten by a newer one, but the list still says tick 100:
    // stale. The auto slot's file is damaged; slot 7 has none.
    let mut newer = save();
    newer.header.tick = 300;
    write_atomic(&dir.path().join("quick.sav"), &newer).unwrap();
    let mut bytes = std::fs::read(dir.path().join("auto1.sav")).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(dir.path().join("auto1.sav"), &bytes).unwrap();
    let words: Vec<&str> = list
        .check(dir.path())
        .iter()
        .map(|(_, s)| s.word())
        .collect();
    assert_eq!(words, ["stale", "damaged", "missing", "stale"]);
    // Recording the quick slot again makes it current; the unknown key stays.
    list.record("quick", "quick.sav", &newer.header);
    list.write(dir.path()).unwrap();
    let list = SlotList::read(dir.path()).unwrap();
    assert_eq!(list.check(dir.path())[0].1.word(), "ready");
    assert!(
        String::from_utf8(list.to_bytes())
            .unwrap()
            .contains("note=kept")
    );
    // A slot naming a file outside the folder is not followed.
    let escape = SlotList::parse(b"[x]\nfile=../etc/passwd\n", "t").unwrap();
    assert_eq!(escape.check(dir.path())[0].1.word(), "damaged");
    // No list yet: an empty one.
    let empty = tempfile::tempdir().unwrap();
    assert!(SlotList::read(empty.path()).unwrap().slots().is_empty());
}
