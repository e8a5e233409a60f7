//! Property tests: every parser is lossless on whatever it accepts and never panics.

use iron3d_config::{BlockFile, BuildDat, IniDocument};
use proptest::prelude::*;

fn check_all(data: &[u8]) {
    if let Ok(d) = IniDocument::parse(data, "p.ini") {
        assert_eq!(d.to_bytes(), data);
    }
    if let Ok(b) = BlockFile::parse(data, "p.cfg") {
        assert_eq!(b.to_bytes(), data);
    }
    if let Ok(b) = BuildDat::parse(data, "p.lst") {
        assert_eq!(b.to_bytes(), data);
    }
}

fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        "[A-Za-z_]{1,8}".prop_map(|s| format!("[{s}]")),
        ("[A-Za-z_]{1,8}", "[A-Za-z0-9_.]{0,8}", "( ?= ?|=)")
            .prop_map(|(k, v, eq)| format!("{k}{eq}{v}")),
        "// [ -~]{0,20}",
        "object [a-z_]{1,10}",
        Just("end".to_owned()),
        "  [A-Z_]{1,10} [a-z0-9]{1,5}",
        "[ -~]{0,30}",
    ]
}

proptest! {
    #[test]
    fn arbitrary_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..300)) {
        check_all(&data);
    }

    #[test]
    fn line_structured_documents_roundtrip(lines in proptest::collection::vec(line(), 0..30), crlf in any::<bool>(), final_nl in any::<bool>()) {
        let nl = if crlf { "\r\n" } else { "\n" };
        let mut text = lines.join(nl);
        if final_nl { text.push_str(nl); }
        check_all(text.as_bytes());
    }
}
