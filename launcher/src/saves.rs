//! Save games on the command line: `run --headless --save FILE`, `--save-at TICK:FILE`,
//! `--load FILE` and `iron3d save inspect FILE` (the format is [`iron3d_save`]'s, the
//! session's part [`iron3d_session::save`]).

use anyhow::Context;
use iron3d_save::{SaveFile, SaveHeader};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The player's save folder: `$XDG_DATA_HOME/iron3d/SAVE`, else
/// `$HOME/.local/share/iron3d/SAVE` (`None` when neither variable is set).
pub fn user_dir() -> Option<PathBuf> {
    let var = |k| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    var("XDG_DATA_HOME")
        .or_else(|| var("HOME").map(|h| h.join(".local/share")))
        .map(|d| d.join("iron3d").join("SAVE"))
}

/// `iron3d save slots [--dir DIR]`: the slot list in order, each slot's metadata and
/// what its file says (ready, missing, damaged with why, stale with what the file holds).
pub fn list_slots(dir: &Path, out: &mut dyn Write) -> anyhow::Result<()> {
    let list = iron3d_save::SlotList::read(dir)?;
    writeln!(out, "save folder {}", dir.display())?;
    for (m, status) in list.check(dir) {
        let detail = match &status {
            iron3d_save::SlotStatus::Ready(_) | iron3d_save::SlotStatus::NoFile => String::new(),
            iron3d_save::SlotStatus::Damaged(why) => format!(" ({why})"),
            iron3d_save::SlotStatus::Stale(h) => {
                format!(" (the file holds {} tick {} instead)", h.mission, h.tick)
            }
        };
        writeln!(
            out,
            "slot {} {} mission={} tick={} time={}s file={}{detail}",
            m.slot,
            status.word(),
            m.mission,
            m.tick,
            m.game_time_ms / 1000,
            m.file
        )?;
    }
    Ok(())
}

/// Parses `--save-at TICK:FILE`.
pub fn parse_save_at(s: &str) -> Result<(u64, PathBuf), String> {
    let Some((tick, file)) = s.split_once(':') else {
        return Err(format!("'{s}' is not TICK:FILE"));
    };
    let tick = tick
        .parse::<u64>()
        .map_err(|e| format!("tick '{tick}': {e}"))?;
    if file.is_empty() {
        return Err("empty file name".into());
    }
    Ok((tick, PathBuf::from(file)))
}

/// `iron3d save inspect FILE`: the checked header as JSON, then one line per section
/// (tag, name, bytes). The whole file is checked first; a damaged one is an error.
pub fn inspect(path: &Path, out: &mut dyn Write) -> anyhow::Result<()> {
    let save = iron3d_save::read(path)?;
    let mut json = serde_json::to_value(&save.header)?;
    if let Some(obj) = json.as_object_mut() {
        obj.insert(
            "sections".into(),
            serde_json::Value::Array(
                save.sections
                    .iter()
                    .map(|s| {
                        serde_json::json!({
                            "tag": String::from_utf8_lossy(&s.tag),
                            "name": s.name,
                            "bytes": s.payload.len(),
                        })
                    })
                    .collect(),
            ),
        );
    }
    writeln!(out, "{}", serde_json::to_string_pretty(&json)?)?;
    Ok(())
}

/// Reads and checks the save to load.
pub fn read_for_load(path: &Path) -> anyhow::Result<SaveFile> {
    use anyhow::Context;
    iron3d_save::read(path).with_context(|| format!("--load {}", path.display()))
}

/// The `extra` key of the built-in scenario's parameters in a save's header (a load
/// rebuilds the same scenario before restoring it).
pub const SCENARIO_KEY: &str = "scenario_params";

/// The line a run writes after saving.
pub fn saved_line(header: &SaveHeader, path: &Path) -> String {
    format!(
        "saved tick={} state_hash={} file={}",
        header.tick,
        header.state_hash,
        path.display()
    )
}

/// Where a recording made from the save at `path` starts (PD-REPLAY-FROM-SAVE): the
/// saved tick, its state hash and the BLAKE3 of the file's bytes.
pub fn replay_start(path: &Path, save: &SaveFile) -> anyhow::Result<iron3d_replay::ReplayStart> {
    let bytes = std::fs::read(path).with_context(|| format!("{}", path.display()))?;
    Ok(iron3d_replay::ReplayStart {
        tick: save.header.tick,
        state_hash: save.header.state_hash.clone(),
        save_blake3: blake3::hash(&bytes).to_hex().to_string(),
    })
}
