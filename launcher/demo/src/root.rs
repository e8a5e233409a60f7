//! Root text files: `iron_3d.ini`, `Comp.ini`, `Behavior.ini`, `ArealMap.ini` and
//! `BuildDat.lst` (CP1251 text, CRLF line ends).

use crate::{DemoError, Out};
use iron3d_config::BuildDat;
use iron3d_config::keys::{BEHAVIOR_INI_KEYS, Origin};

/// `BuildDat.lst` categories and their unit DATs. The `Plant` category lists what the
/// plants build (the `ai` plugin's rule PD-ECON-MODEL: a plant works through the DATs
/// of the category whose mask is its class word); the others list the buildings.
pub(crate) const BUILD_CATEGORIES: [(&str, &[&str]); 6] = [
    ("Generator", &["UNITS/Generator.dat"]),
    ("Mine", &["UNITS/Mine.dat"]),
    ("Storage", &["UNITS/Storage.dat"]),
    ("Plant", &["UNITS/Tank.dat", "UNITS/Truck.dat"]),
    ("Hangar", &["UNITS/Hangar.dat"]),
    ("Tower_Medium", &["UNITS/Tower.dat"]),
];

fn crlf(lines: &[&str]) -> Vec<u8> {
    let mut s = String::new();
    for l in lines {
        s.push_str(l);
        s.push_str("\r\n");
    }
    s.into_bytes()
}

/// The `Comp.ini` CID table (registry grammar: `<cid> <library> <factory>`).
const COMP_INI: [&str; 9] = [
    "// Iron3D component table: CID library factory",
    "0 Terrain.dll CreateTerrain // terrain and landscape",
    "1 Effect.dll CreateEffectManager // effects",
    "2 Sound.dll CreateSoundSystem // sounds",
    "3 AniMesh.dll CreateAniMesh // animated meshes",
    "4 Control.dll CreateControl // input",
    "5 AI.dll CreateAI // behaviour",
    "6 ArealMap.dll CreateArealMap // areal map",
    "7 Missions.dll CreateMission // missions",
];

/// `Behavior.ini`: the original demo file's keys with its values (FORMATS §12.3; known,
/// read by nothing), then the project keys the `ai` plugin reads (PD-AI-CONFIG-KEYS) at
/// the values in force without them — the demo plays as it would without them, and a
/// modder finds the knobs. Every key is one of `iron3d_config::keys` (tested).
fn behavior_ini() -> Vec<u8> {
    let mut lines = vec![
        "// Iron3D demo behaviour settings: mods/README.md, \"Keys the engine reads\"".to_owned(),
        "// The original demo's keys (FORMATS 12.3): known, read by nothing".to_owned(),
    ];
    lines.extend(
        BEHAVIOR_INI_KEYS
            .iter()
            .filter_map(|k| k.demo.map(|v| format!("{}={v}", k.key))),
    );
    lines.push("// Project keys of the ai plugin, at the values in force without them".to_owned());
    lines.extend(
        BEHAVIOR_INI_KEYS
            .iter()
            .filter(|k| k.origin == Origin::Project)
            .map(|k| format!("{}={}", k.key, k.default)),
    );
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    crlf(&refs)
}

/// Writes the root configuration files.
pub(crate) fn write(o: &mut Out) -> Result<(), DemoError> {
    o.put(
        "iron_3d.ini",
        &crlf(&[
            "; Iron3D demo configuration",
            "[CS]",
            "DISPLAY_WIDTH=640",
            "DISPLAY_HEIGHT=480",
            "DISPLAY_BPP=16",
            "FULLSCREEN=0",
            "[SOUND]",
            "ENABLED=1",
            "VOLUME=80",
            "[GAME]",
            "LANGUAGE=RUS",
        ]),
    )?;
    o.put("Comp.ini", &crlf(&COMP_INI))?;
    o.put("Behavior.ini", &behavior_ini())?;
    o.put(
        "ArealMap.ini",
        &crlf(&["[ArealMap]", "CellSize=64", "MaxAreas=4096", "Debug=0"]),
    )?;
    let cats: Vec<(String, Vec<String>)> = BUILD_CATEGORIES
        .iter()
        .map(|(c, units)| {
            (
                (*c).to_owned(),
                units.iter().map(|p| p.replace('/', "\\")).collect(),
            )
        })
        .collect();
    o.put("BuildDat.lst", &BuildDat::write(&cats))?;
    Ok(())
}
