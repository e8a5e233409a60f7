//! The keys the engine reads stay honest: the modder's guide's table ("Keys the engine
//! reads" in `mods/README.md`) is the engine's list (`iron3d_config::keys`), the
//! readers read exactly the keys listed for them with the listed defaults, the shipped
//! `Behavior.ini` files hold no key nothing reads, and `iron3d mods check` names a key
//! nothing reads in an enabled mod (file, line, key, the nearest known keys) as a
//! warning that refuses nothing.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use iron3d_config::keys::{OTHER_KEYS, Reader, behavior_keys_read_by, known_keys};
use iron3d_e2e::iron3d;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(workspace().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// One row as the guide writes it: file, key, read by, default, origin.
type Row = (String, String, String, String, String);

/// The rows of the guide's table (the first five cells, backticks removed).
fn guide_rows() -> Vec<Row> {
    let text = read("mods/README.md");
    let start = text
        .find("\n## Keys the engine reads\n")
        .expect("the guide has the section");
    let section = &text[start + 1..];
    let end = section[3..].find("\n## ").map_or(section.len(), |e| e + 3);
    let rows: Vec<Row> = section[..end]
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<String> = l
                .trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().trim_matches('`').to_owned())
                .collect();
            assert!(cells.len() >= 6, "a row of six cells: {l}");
            (
                cells[0].clone(),
                cells[1].clone(),
                cells[2].clone(),
                cells[3].clone(),
                cells[4].clone(),
            )
        })
        .collect();
    assert!(!rows.is_empty(), "the table has rows");
    rows
}

#[test]
fn the_guide_s_table_is_the_engine_s_list_of_keys() {
    let listed: Vec<Row> = known_keys()
        .map(|k| {
            let readers = if k.readers.is_empty() {
                "nothing".to_owned()
            } else {
                k.readers
                    .iter()
                    .map(|r| r.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            (
                k.file.to_owned(),
                k.key.to_owned(),
                readers,
                k.default.to_owned(),
                k.origin.name().to_owned(),
            )
        })
        .collect();
    let rows = guide_rows();
    let (a, b): (BTreeSet<&Row>, BTreeSet<&Row>) = (rows.iter().collect(), listed.iter().collect());
    let only_guide: Vec<&&Row> = a.difference(&b).collect();
    let only_code: Vec<&&Row> = b.difference(&a).collect();
    assert!(
        only_guide.is_empty() && only_code.is_empty(),
        "the guide's table and iron3d_config::keys differ:\n only in the guide: {only_guide:#?}\n only in the code: {only_code:#?}"
    );
    assert_eq!(rows.len(), listed.len(), "no row twice");
    // The guide lists them in the engine's order.
    assert_eq!(rows, listed);
}

#[test]
fn the_readers_read_exactly_the_keys_listed_for_them() {
    // The ai plugin: its key list (its own tests check the defaults).
    assert_eq!(
        behavior_keys_read_by(Reader::Ai).collect::<Vec<_>>(),
        iron3d_ai_rules::config::KEYS
    );
    // The control plugin: its two limits, with the listed defaults.
    use iron3d_control::world::{DEFAULT_MAX_ACCEL, DEFAULT_MAX_ROTATION_DEG};
    let control: Vec<&str> = behavior_keys_read_by(Reader::Control).collect();
    assert_eq!(
        control,
        [
            iron3d_control::KEY_MAX_ACCEL,
            iron3d_control::KEY_MAX_ROTATION
        ]
    );
    let default_of = |key: &str| {
        iron3d_config::keys::behavior_key(key)
            .map(|k| k.default)
            .unwrap()
    };
    assert_eq!(
        default_of(iron3d_control::KEY_MAX_ACCEL),
        DEFAULT_MAX_ACCEL.to_string()
    );
    assert_eq!(
        default_of(iron3d_control::KEY_MAX_ROTATION),
        DEFAULT_MAX_ROTATION_DEG.to_string()
    );
    // The block files' readers name every parameter listed for them (a numbered one by
    // its prefix).
    for k in OTHER_KEYS.iter().filter(|k| k.is_read()) {
        let source = match k.readers {
            [Reader::Audio] => read("plugins/audio/src/plugin.rs"),
            [Reader::Hud] => read("launcher/hud/src/mission.rs"),
            other => panic!("{}: {other:?}", k.key),
        };
        let name = k.key.strip_suffix('n').unwrap_or(k.key);
        assert!(
            source.contains(&format!("\"{name}\"")),
            "{} {}: its reader does not name it",
            k.file,
            k.key
        );
    }
}

#[test]
fn the_shipped_mod_s_behavior_ini_holds_known_keys_only() {
    let m = iron3d_mods::ModDir::open(&workspace().join("mods/quick-tanks")).unwrap();
    assert_eq!(iron3d_mods::config_key_warnings(&m), []);
}

#[test]
fn mods_check_warns_about_a_key_nothing_reads_and_refuses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("mods");
    let m = root.join("tweak");
    std::fs::create_dir_all(m.join("data")).unwrap();
    std::fs::write(
        m.join("mod.toml"),
        "id = \"tweak\"\nversion = \"1.0.0\"\nname = \"Tweak\"\nengine = \">=0.1, <0.2\"\n\
         simulation = true\n[[overlay]]\npath = \"data\"\n",
    )
    .unwrap();
    std::fs::write(
        m.join("data/Behavior.ini"),
        "[Behavior]\r\nAttackRange=30\r\nUseWizard=1\r\nGuardRadius=150\r\nRetreatLif=10\r\n",
    )
    .unwrap();
    let list = dir.path().join("mods.toml");
    std::fs::write(&list, "enabled = [\"tweak\"]\n").unwrap();
    let (code, out) = iron3d(&[
        "mods",
        "--mods-dir",
        root.to_str().unwrap(),
        "--list",
        list.to_str().unwrap(),
        "check",
    ]);
    assert_eq!(code, ExitCode::SUCCESS, "a warning refuses nothing: {out}");
    assert!(out.contains("mod tweak 1.0.0 loaded"), "{out}");
    let warnings: Vec<&str> = out.lines().filter(|l| l.starts_with("warning: ")).collect();
    assert_eq!(warnings.len(), 2, "{out}");
    assert!(
        warnings[0].starts_with(
            "warning: mod \"tweak\": data/Behavior.ini line 4: key \"GuardRadius\" is read by nothing"
        ),
        "{out}"
    );
    assert!(
        warnings[1].contains("line 5: key \"RetreatLif\"")
            && warnings[1].contains("known keys nearest to it: RetreatLife, "),
        "{out}"
    );
    // The original's keys that nothing reads (UseWizard) and the read ones are known.
    assert!(!out.contains("\"UseWizard\"") && !out.contains("\"AttackRange\""));
}
