//! `objects.rlb` prototypes (with inheritance), unit DAT files under `UNITS/` and the
//! non-geometric `system.rlb` (`sun.bas`).

use crate::models::{TANK_TURRET_MOUNT, TOWER_GUN_MOUNT};
use crate::{DemoError, Out, fmt_err};
use iron3d_aux::Base;
use iron3d_nres::{NewEntry, NresWriter, TypeTag};
use iron3d_unitdat::{ObjectRefList, UnitDat, UnitRecord};

/// Building prototype keys placed directly by missions.
pub(crate) const BUILDINGS: [&str; 3] = ["hangar", "tower", "mine"];

/// `(prototype key, [(archive or "parent", reference)])`. A child names its own model
/// before its parent: the resolver takes the first `.msh` of the effective list and a
/// parent's references are inserted at the parent record (FORMATS §4.3), so this order
/// makes each child draw its own model while still inheriting the rest.
const PROTOTYPES: [(&str, &[(&str, &str)]); 10] = [
    ("vehicle_base", &[("models.rlb", "chassis.msh")]),
    (
        "tank_proto",
        &[
            ("models.rlb", "tank.msh"),
            ("models.rlb", "tank.ctl"),
            ("models.rlb", "tank.cpt"),
            ("parent", "vehicle_base"),
        ],
    ),
    (
        "turret_proto",
        &[
            ("models.rlb", "turret.msh"),
            ("models.rlb", "turret.cpt"),
            ("parent", "vehicle_base"),
        ],
    ),
    (
        "truck_proto",
        &[("models.rlb", "truck.msh"), ("parent", "vehicle_base")],
    ),
    ("building_base", &[("buildings.rlb", "hangar.msh")]),
    (
        "hangar",
        &[("buildings.rlb", "hangar.msh"), ("parent", "building_base")],
    ),
    (
        "tower",
        &[("buildings.rlb", "tower.msh"), ("parent", "building_base")],
    ),
    (
        "mine",
        &[("buildings.rlb", "mine.msh"), ("parent", "building_base")],
    ),
    ("sun", &[("system.rlb", "sun.bas")]),
    ("light_base", &[("parent", "sun")]),
];

/// One unit component: `(component key, parent_or_link, description)`. Under
/// PD-UNIT-ROLE a child with a model is EXTO and `parent_or_link` is its mount node in the
/// root's model; a child without one (`light_base`) is INTO and it is a local device
/// index.
type Component = (&'static str, i32, &'static str);

/// `(DAT path, header class word (FORMATS §13.13), components)`.
const UNIT_DATS: [(&str, u32, &[Component]); 8] = [
    (
        "UNITS/Tank.dat",
        0x0100_8000, // prof_war.var
        &[
            ("tank_proto", 0, "Tank chassis"),
            ("turret_proto", TANK_TURRET_MOUNT, "Tank turret"),
            ("light_base", 0, "Head lights"),
        ],
    ),
    (
        "UNITS/Truck.dat",
        0x0100_2000, // prof_trn.var
        &[("truck_proto", 0, "Ore truck"), ("light_base", 0, "Lights")],
    ),
    (
        "UNITS/Hangar.dat",
        0x8000_0040, // prof_angar.var
        &[("hangar", 0, "Hangar"), ("tower", 0, "Guard tower")],
    ),
    (
        "UNITS/Mine.dat",
        0x8000_0004, // prof_mine.var
        &[("mine", 0, "Ore mine"), ("tower", 0, "Mine tower")],
    ),
    (
        "UNITS/Storage.dat",
        0x8000_0008, // prof_storage.var
        &[
            ("hangar", 0, "Ore storage"),
            ("light_base", 0, "Yard lights"),
        ],
    ),
    (
        "UNITS/Generator.dat",
        0x8000_0002, // prof_generator.var
        &[("tower", 0, "Generator"), ("light_base", 0, "Warning lamp")],
    ),
    (
        "UNITS/Plant.dat",
        0x8000_0010, // prof_plant.var
        &[("hangar", 0, "Plant"), ("tower", 0, "Plant chimney")],
    ),
    (
        "UNITS/Tower.dat",
        0x8010_0000, // prof_tower.var
        &[
            ("tower", 0, "Tower"),
            ("turret_proto", TOWER_GUN_MOUNT, "Tower gun"),
        ],
    ),
];

/// An NRes archive of `(name, type_id, data)` entries in order.
pub(crate) fn nres(what: &str, entries: &[(&str, u32, Vec<u8>)]) -> Result<Vec<u8>, DemoError> {
    let mut w = NresWriter::new();
    for (name, type_id, data) in entries {
        w.push(NewEntry::new(name.as_bytes(), *type_id, data.clone()).map_err(fmt_err(what))?);
    }
    w.finish().map_err(fmt_err(what))
}

/// Writes `objects.rlb`, `system.rlb` and the unit DAT files.
pub(crate) fn write(o: &mut Out) -> Result<(), DemoError> {
    let mut entries = Vec::new();
    for (key, refs) in PROTOTYPES {
        let mut l = ObjectRefList::new();
        for &(a, r) in refs {
            if a == "parent" {
                l.push_parent(r.as_bytes()).map_err(fmt_err(key))?;
            } else {
                l.push(a.as_bytes(), r.as_bytes()).map_err(fmt_err(key))?;
            }
        }
        // §1.7 gives prototypes no tag: `type_id` 0 (PD-TAG-UNTYPED).
        entries.push((key, TypeTag::UNTYPED.value(), l.to_bytes()));
    }
    o.put("objects.rlb", &nres("objects.rlb", &entries)?)?;
    let mut base = b"BASE".to_vec();
    base.extend_from_slice(&[0; 28]);
    let base = Base::from_raw(base).map_err(fmt_err("sun.bas"))?;
    o.put(
        "system.rlb",
        // `BASE`: inferred tag of an auxiliary family (PD-TAG-AUX).
        &nres(
            "system.rlb",
            &[("sun.bas", TypeTag::BASE.value(), base.to_bytes())],
        )?,
    )?;
    for (path, class_word, comps) in UNIT_DATS {
        let mut dat = UnitDat::new();
        dat.header.set_class_word(class_word);
        for &(key, link, desc) in comps {
            dat.records.push(
                UnitRecord::new(key.as_bytes(), link, desc.as_bytes()).map_err(fmt_err(path))?,
            );
        }
        o.put(path, &dat.to_bytes())?;
    }
    Ok(())
}
