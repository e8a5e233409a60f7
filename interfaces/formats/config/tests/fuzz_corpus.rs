//! Replays `fuzz/corpus/config/` (when present) and built-in seeds through the same checks
//! as the `config` fuzz target.

use iron3d_config::settings::Settings;
use iron3d_config::{Bindings, BlockFile, BuildDat, IniDocument};

fn check(data: &[u8]) {
    if let Ok(d) = IniDocument::parse(data, "c.ini") {
        assert_eq!(d.to_bytes(), data);
    }
    if let Ok(b) = BlockFile::parse(data, "c.cfg") {
        assert_eq!(b.to_bytes(), data);
    }
    if let Ok(b) = BuildDat::parse(data, "c.lst") {
        assert_eq!(b.to_bytes(), data);
    }
    if let Ok(b) = Bindings::parse(data, "c.ini") {
        let mut again = b.clone();
        again.overlay(b.clone()).expect("a set laid over itself");
        assert_eq!(again.iter().count(), b.iter().count());
    }
    if let Ok(s) = Settings::parse(data, "c.toml") {
        let again =
            Settings::parse(s.to_toml().as_bytes(), "again").expect("written settings parse");
        assert_eq!(again, s);
    }
}

#[test]
fn seeds_and_saved_inputs_stay_lossless() {
    let seeds: [&[u8]; 7] = [
        b"[video]\nwidth = 800\n[input]\ninvert_y = true\n",
        b"camera.left = Key:Left, Pad:DPadLeft\r\ncamera.pan_x = PadAxis:LeftStickX ; c\r\n",
        b"unit.forward = Key:W\ncamera.pan_forward = Key:W\norder.stop =\n",
        b"[CS]\r\nDISPLAY_WIDTH=640\r\nWINDOW_MODE = 0 // windowed\r\n",
        b"LogFile=Behavior.log SaveLog=0\r\nMaxErrorLevel=1 DefErrorLevel=2\r\n",
        b"object ambient_music_loop\r\n  THEME theme1\r\nend\r\n",
        b"Mine 1\r\n\"UNITS\\BUILDS\\mine.dat\"\r\n",
    ];
    for s in seeds {
        check(s);
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../fuzz/corpus/config");
    if let Ok(rd) = std::fs::read_dir(&dir) {
        for e in rd.flatten() {
            check(&std::fs::read(e.path()).expect("corpus file"));
        }
    }
}
