//! The Control files of the demo's vehicles, in `models.rlb` beside their models:
//! `tank.ctl` (CTLD pose rows, FORMATS §11.6), `tank.cpt` and `turret.cpt` (CTPT
//! control points, §11.1). The prototypes `tank_proto` and `turret_proto` reference
//! them, so the mission graph finds, checks and keeps them like the original's.
//!
//! What the spec leaves open is authored the plainest way and written down here:
//! * the CTLD has `S = M = 0` (no sections), no typed device records (`C3 = 0`, the
//!   record tag location is undocumented) and no group tables (`C4 = 0`); its tail is
//!   the 21 effect-group references, all `0xFFFFFFFF` ("none");
//! * control point vectors are in the node's local frame, `word_a` is the node
//!   (the consumer-inferred "node selector"), `word_b` and the flags are 0.
//!
//! No NDP is written: the NDPR row layout is not documented, so it cannot be authored.

use crate::models::TANK_TURRET_MOUNT;
use crate::{DemoError, fmt_err};
use iron3d_aux::ctld::{ROW_FLAG_SKIP, ROW_FLAG_WRAP};
use iron3d_aux::{ControlRow, Ctld, Ctpt, CtptPoint};

/// Effect-group references after the typed records (FORMATS §11.6).
const GROUP_REFS: usize = 21;

fn ctld(rows: Vec<ControlRow>) -> Result<Vec<u8>, DemoError> {
    let tail: Vec<u8> = std::iter::repeat_n(u32::MAX.to_le_bytes(), GROUP_REFS)
        .flatten()
        .collect();
    Ok(Ctld::new(rows, 0, 0, tail)
        .map_err(fmt_err("ctl"))?
        .to_bytes())
}

fn ctpt(points: &[(&str, i32, [f32; 3])]) -> Result<Vec<u8>, DemoError> {
    let points = points
        .iter()
        .map(|&(name, node, at)| CtptPoint::new(name.as_bytes(), 0, node, 0, at, [0.0; 3]))
        .collect::<Result<Vec<_>, _>>()
        .map_err(fmt_err("cpt"))?;
    Ok(Ctpt { points }.to_bytes())
}

/// The Control entries of `archive` (`(entry name, payload)`, in writing order).
pub(crate) fn entries(archive: &str) -> Result<Vec<(String, Vec<u8>)>, DemoError> {
    if archive != "models.rlb" {
        return Ok(Vec::new());
    }
    Ok(vec![
        (
            "tank.ctl".into(),
            ctld(vec![
                // The hull at its rest frame, the turret mount wrapping over the spin.
                ControlRow::new(0, 0.0, 0.0, 0.0, 0),
                ControlRow::new(TANK_TURRET_MOUNT, 0.0, 7.0, 0.0, ROW_FLAG_WRAP),
                // A disabled row with the sentinel endpoints.
                ControlRow::new(-1, -1.0, -1.0, 0.0, ROW_FLAG_SKIP),
            ])?,
        ),
        (
            "tank.cpt".into(),
            ctpt(&[
                ("Root", 0, [0.0; 3]),
                ("CameraCenter", 0, [0.0, 0.0, 2.5]),
                ("TurretCenter", TANK_TURRET_MOUNT, [0.0; 3]),
            ])?,
        ),
        (
            "turret.cpt".into(),
            ctpt(&[
                ("TurretDirect", 0, [1.0, 0.0, 0.0]),
                // The barrel's end (node 1 is the barrel, 2 units long from its centre).
                ("Sfx_1", 1, [1.0, 0.0, 0.0]),
            ])?,
        ),
    ])
}
