//! `Behavior.ini` as runtime configuration (FORMATS §12.3, tome VI "Параметры
//! Behavior.ini"): the `PathFind_*` keys, `Network_ResourceTransferMaxDelay` and the
//! project's keys `AttackRange`, `RetreatLife`, `OreCapacity`, each with its provenance.
//! The file's grammar (`key=value`, spaces around `=`, `//` comments, CRLF, any
//! section; case-sensitive keys, the first one written wins) is `iron3d-config`'s, and
//! [`KEYS`] is exactly the `ai` entries of its key list
//! ([`iron3d_config::keys::BEHAVIOR_INI_KEYS`], the modder's guide's table).
//!
//! The compiled defaults of the original's keys are **not known** (the demo file has
//! none of them), so an absent key keeps [`Setting::value`] = the project default below
//! and [`Setting::line`] = `None` (absent stays visible).
//!
//! **PD-AI-DEFAULTS** — our defaults for absent keys (world units, seconds, degrees):
//!
//! | key | default | what it steers here |
//! |---|---|---|
//! | `PathFind_BuildingHitDist` | 2.0 | nothing yet (the value is checked) |
//! | `PathFind_BuildingNearestDist` | 6.0 | Wizard slows down within this of a building |
//! | `PathFind_NearBuildSpeedPercent` | 50 | speed (percent) near buildings |
//! | `PathFind_CorridorRadius` | 3.0 | with `NearDoorCoeff`, the margin kept from a portal's ends |
//! | `PathFind_NearDoorCoeff` | 0.5 | portal margin as a fraction of the corridor radius |
//! | `PathFind_fStepOffBuilding` | 1.5 | nothing yet (the value is checked) |
//! | `PathFind_MaxAccel` | 10.0 | (read by Control) |
//! | `PathFind_MaxRotation` | 180.0 | (read by Control) |
//! | `PathFind_fStepDist` | 4.0 | spacing of local-path points |
//! | `PathFind_MinPointInTrajectory` | 2 | nothing yet (the value is checked) |
//! | `Network_ResourceTransferMaxDelay` | 5.0 | nothing yet: no network (the value is checked) |
//!
//! **PD-AI-CONFIG-KEYS** — three keys of our own. The spec gives no attack range and no
//! retreat threshold (tome VI only says Behavior "ведёт radar/target state"; the unit
//! DATs and profiles carry no weapon numbers, hence PD-AI-WEAPON and PD-AI-DECIDE), and
//! the ore a unit holds is its class default `MaximumOre` (FORMATS §13.12: the TMA
//! property's setter changes nothing, and tome VI leaves open whether configuration
//! replaces class defaults). So these keys tune the standard rules, and without them
//! every rule is today's:
//!
//! | key | value | without it | what it changes |
//! |---|---|---|---|
//! | `AttackRange` | world units, finite, ≥ 0 | 45 (the fighter weapon's radar) | how far a fighter looks for an enemy to attack (it then closes in to its weapon's range of 30) |
//! | `RetreatLife` | percent of start life, 0..=100 | 25 ([`crate::behavior::FLEE_LIFE`]) | a fighter (or animal) below it flees home; 0: never |
//! | `OreCapacity` | ore, finite, ≥ 0 | 2000 (the transport class default) | the most ore a transport (`prof_trn`) carries; a start load above it is cut to it; 0: it never harvests |
//!
//! The keys set the *standard* values: a doctrine that changes a knob itself (an
//! alternative AI, PD-AI-DOCTRINE) keeps its own value for that knob
//! ([`crate::doctrine::Doctrine::tuned`]). Towers keep their radar; only transports take
//! `OreCapacity` (mines, storages and builders keep their class defaults).

use crate::behavior::Role;
use crate::doctrine::Doctrine;
use crate::error::AiError;
use iron3d_config::IniDocument;

/// The file name.
pub const BEHAVIOR_INI: &str = "Behavior.ini";

/// Every key this crate reads, in the order of the key list.
pub const KEYS: [&str; 14] = [
    "PathFind_BuildingHitDist",
    "PathFind_BuildingNearestDist",
    "PathFind_NearBuildSpeedPercent",
    "PathFind_CorridorRadius",
    "PathFind_NearDoorCoeff",
    "PathFind_fStepOffBuilding",
    "PathFind_MaxAccel",
    "PathFind_MaxRotation",
    "PathFind_fStepDist",
    "PathFind_MinPointInTrajectory",
    "Network_ResourceTransferMaxDelay",
    "AttackRange",
    "RetreatLife",
    "OreCapacity",
];

/// One setting: its effective value and the 1-based line it came from (`None`: absent,
/// the project default is in force).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Setting {
    /// The value in force.
    pub value: f32,
    /// Where it was written.
    pub line: Option<usize>,
}

impl Setting {
    const fn default(value: f32) -> Self {
        Self { value, line: None }
    }

    /// The value when the file writes the key (`None`: absent).
    pub fn written(&self) -> Option<f32> {
        self.line.map(|_| self.value)
    }
}

/// What a key's value must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A finite number ≥ 0.
    Number,
    /// An integer ≥ 0.
    Integer,
    /// A finite number from 0 to 100.
    Percent,
}

impl Kind {
    fn parse(self, raw: &str) -> Option<f32> {
        match self {
            Kind::Integer => raw.parse::<u32>().ok().map(|v| v as f32),
            Kind::Number => raw
                .parse::<f32>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 0.0),
            Kind::Percent => raw
                .parse::<f32>()
                .ok()
                .filter(|v| (0.0..=100.0).contains(v)),
        }
    }

    fn expected(self) -> &'static str {
        match self {
            Kind::Integer => "a non-negative integer",
            Kind::Number => "a finite non-negative number",
            Kind::Percent => "a number from 0 to 100",
        }
    }
}

/// The keys of [`KEYS`], read with provenance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BehaviorConfig {
    /// `PathFind_BuildingHitDist`.
    pub building_hit_dist: Setting,
    /// `PathFind_BuildingNearestDist`.
    pub building_nearest_dist: Setting,
    /// `PathFind_NearBuildSpeedPercent`.
    pub near_build_speed_percent: Setting,
    /// `PathFind_CorridorRadius`.
    pub corridor_radius: Setting,
    /// `PathFind_NearDoorCoeff`.
    pub near_door_coeff: Setting,
    /// `PathFind_fStepOffBuilding`.
    pub step_off_building: Setting,
    /// `PathFind_MaxAccel`.
    pub max_accel: Setting,
    /// `PathFind_MaxRotation`.
    pub max_rotation: Setting,
    /// `PathFind_fStepDist`.
    pub step_dist: Setting,
    /// `PathFind_MinPointInTrajectory`.
    pub min_point_in_trajectory: Setting,
    /// `Network_ResourceTransferMaxDelay`.
    pub resource_transfer_max_delay: Setting,
    /// `AttackRange` (PD-AI-CONFIG-KEYS).
    pub attack_range: Setting,
    /// `RetreatLife` (PD-AI-CONFIG-KEYS), percent.
    pub retreat_life: Setting,
    /// `OreCapacity` (PD-AI-CONFIG-KEYS).
    pub ore_capacity: Setting,
}

impl Default for BehaviorConfig {
    fn default() -> Self {
        Self {
            building_hit_dist: Setting::default(2.0),
            building_nearest_dist: Setting::default(6.0),
            near_build_speed_percent: Setting::default(50.0),
            corridor_radius: Setting::default(3.0),
            near_door_coeff: Setting::default(0.5),
            step_off_building: Setting::default(1.5),
            max_accel: Setting::default(10.0),
            max_rotation: Setting::default(180.0),
            step_dist: Setting::default(4.0),
            min_point_in_trajectory: Setting::default(2.0),
            resource_transfer_max_delay: Setting::default(5.0),
            attack_range: Setting::default(45.0),
            retreat_life: Setting::default(25.0),
            ore_capacity: Setting::default(2000.0),
        }
    }
}

impl BehaviorConfig {
    /// The keys with their fields and kinds, in the order of [`KEYS`].
    fn fields(&mut self) -> [(&'static str, &mut Setting, Kind); 14] {
        let [a, b, c, d, e, f, g, h, i, j, k, l, m, n] = KEYS;
        [
            (a, &mut self.building_hit_dist, Kind::Number),
            (b, &mut self.building_nearest_dist, Kind::Number),
            (c, &mut self.near_build_speed_percent, Kind::Number),
            (d, &mut self.corridor_radius, Kind::Number),
            (e, &mut self.near_door_coeff, Kind::Number),
            (f, &mut self.step_off_building, Kind::Number),
            (g, &mut self.max_accel, Kind::Number),
            (h, &mut self.max_rotation, Kind::Number),
            (i, &mut self.step_dist, Kind::Number),
            (j, &mut self.min_point_in_trajectory, Kind::Integer),
            (k, &mut self.resource_transfer_max_delay, Kind::Number),
            (l, &mut self.attack_range, Kind::Number),
            (m, &mut self.retreat_life, Kind::Percent),
            (n, &mut self.ore_capacity, Kind::Number),
        ]
    }

    /// Reads `Behavior.ini` bytes (`None`: no file, every default in force). A present
    /// key whose value is not of its kind (a finite non-negative number; a non-negative
    /// integer for `PathFind_MinPointInTrajectory`; 0 to 100 for `RetreatLife`) is an
    /// error naming the file, line and key. Other keys are not this crate's business
    /// (`iron3d mods check` reports the ones nothing reads).
    pub fn read(bytes: Option<&[u8]>) -> Result<Self, AiError> {
        let mut c = Self::default();
        let Some(bytes) = bytes else {
            return Ok(c);
        };
        let doc = IniDocument::parse(bytes, BEHAVIOR_INI).map_err(|source| AiError::Config {
            file: BEHAVIOR_INI.into(),
            source,
        })?;
        for (key, field, kind) in c.fields() {
            let Some((line, pair)) = doc.get_any(key) else {
                continue;
            };
            let raw = String::from_utf8_lossy(pair.unquoted()).trim().to_owned();
            let Some(value) = kind.parse(&raw) else {
                return Err(AiError::BadValue {
                    file: BEHAVIOR_INI.into(),
                    line,
                    key,
                    raw,
                    expected: kind.expected(),
                });
            };
            *field = Setting {
                value,
                line: Some(line),
            };
        }
        Ok(c)
    }

    /// PD-AI-CONFIG-KEYS: `doctrine` with this file's `AttackRange` and `RetreatLife`
    /// in place of the standard sight and flee threshold (a knob the doctrine changed
    /// itself keeps the doctrine's value; without the keys, `doctrine` unchanged).
    pub fn tune(&self, doctrine: Doctrine) -> Doctrine {
        doctrine.tuned(
            self.attack_range.written(),
            self.retreat_life.written().map(|p| p / 100.0),
        )
    }

    /// PD-AI-CONFIG-KEYS: the most ore a unit of `role` holds when the file says so —
    /// `OreCapacity` for a transport when written; `None` (the class default of FORMATS
    /// §13.12 stays) otherwise.
    pub fn ore_capacity_for(&self, role: Role) -> Option<f32> {
        (role == Role::Transport)
            .then(|| self.ore_capacity.written())
            .flatten()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn absent_keys_keep_the_named_defaults() {
        let demo = b"LogFile=Behavior.log\r\nSaveLog=0\r\nUseWizard=1\r\n";
        let c = BehaviorConfig::read(Some(demo)).unwrap();
        assert_eq!(c, BehaviorConfig::default());
        assert_eq!(c.corridor_radius.line, None);
        assert_eq!(
            BehaviorConfig::read(None).unwrap(),
            BehaviorConfig::default()
        );
    }

    #[test]
    fn keys_are_read_with_their_lines() {
        let text = b"// tuning\r\n[Behavior]\r\nPathFind_CorridorRadius = 4.5 // wide\r\n\
PathFind_MinPointInTrajectory=3\r\nNetwork_ResourceTransferMaxDelay=12\r\n";
        let c = BehaviorConfig::read(Some(text)).unwrap();
        assert_eq!(
            c.corridor_radius,
            Setting {
                value: 4.5,
                line: Some(3)
            }
        );
        assert_eq!(c.min_point_in_trajectory.value, 3.0);
        assert_eq!(c.resource_transfer_max_delay.line, Some(5));
        assert_eq!(c.step_dist, BehaviorConfig::default().step_dist);
    }

    #[test]
    fn bad_values_name_file_line_and_key() {
        let e = BehaviorConfig::read(Some(b"a=1\nPathFind_fStepDist=far\n")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Behavior.ini line 2: PathFind_fStepDist = \"far\" is not a finite non-negative number"
        );
        let e = BehaviorConfig::read(Some(b"PathFind_MinPointInTrajectory=2.5\n")).unwrap_err();
        assert!(e.to_string().contains("non-negative integer"), "{e}");
        assert!(BehaviorConfig::read(Some(b"PathFind_CorridorRadius=-1\n")).is_err());
        let e = BehaviorConfig::read(Some(b"\r\nRetreatLife=101\r\n")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Behavior.ini line 2: RetreatLife = \"101\" is not a number from 0 to 100"
        );
        for bad in [
            &b"RetreatLife=NaN"[..],
            b"AttackRange=-5",
            b"AttackRange=inf",
            b"OreCapacity=lots",
        ] {
            assert!(BehaviorConfig::read(Some(bad)).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn the_keys_are_the_ai_entries_of_the_shared_list_with_their_defaults() {
        use iron3d_config::keys::{BEHAVIOR_INI_KEYS, Reader, behavior_keys_read_by};
        let listed: Vec<&str> = behavior_keys_read_by(Reader::Ai).collect();
        assert_eq!(listed, KEYS);
        let mut c = BehaviorConfig::default();
        for (key, field, _) in c.fields() {
            let k = BEHAVIOR_INI_KEYS.iter().find(|k| k.key == key).unwrap();
            assert_eq!(k.default, field.value.to_string(), "{key}");
            assert_eq!(field.line, None);
        }
    }

    #[test]
    fn without_the_project_keys_every_rule_is_today_s() {
        use crate::behavior::FLEE_LIFE;
        use crate::combat::Weapon;
        use crate::profile::ore_defaults;
        let c = BehaviorConfig::default();
        // The defaults the guide shows are the standard rules' numbers.
        let fighter = Weapon::of(Role::Fighter).unwrap();
        assert_eq!(c.attack_range.value, fighter.radar);
        assert_eq!(c.retreat_life.value / 100.0, FLEE_LIFE);
        assert_eq!(c.ore_capacity.value, ore_defaults(0x0100_2000).1 as f32);
        // Absent keys change no doctrine and no capacity.
        for d in [
            Doctrine::STANDARD,
            Doctrine {
                fighter_sight: Some(1.0e6),
                flee_life: 0.0,
                fighter_speed: Some(9.0),
            },
        ] {
            assert_eq!(c.tune(d), d);
        }
        assert_eq!(c.ore_capacity_for(Role::Transport), None);
        // Written with today's values, the standard rules are bit for bit the same.
        let same = BehaviorConfig::read(Some(
            b"AttackRange=45\r\nRetreatLife=25\r\nOreCapacity=2000\r\n",
        ))
        .unwrap();
        let t = same.tune(Doctrine::STANDARD);
        assert_eq!(t.sight(Role::Fighter, &fighter), fighter.radar);
        assert_eq!(t.flee_life.to_bits(), FLEE_LIFE.to_bits());
        assert_eq!(same.ore_capacity_for(Role::Transport), Some(2000.0));
    }

    #[test]
    fn the_project_keys_tune_the_standard_rules_only() {
        let c = BehaviorConfig::read(Some(
            b"[Behavior]\r\nAttackRange=20\r\nRetreatLife=50 // half\r\n[Transport]\r\nOreCapacity=40\r\n",
        ))
        .unwrap();
        assert_eq!(
            c.attack_range,
            Setting {
                value: 20.0,
                line: Some(2)
            }
        );
        assert_eq!(c.ore_capacity.line, Some(5));
        let t = c.tune(Doctrine::STANDARD);
        assert_eq!((t.fighter_sight, t.flee_life), (Some(20.0), 0.5));
        assert_eq!(t.fighter_speed, None);
        // A doctrine's own knobs stay its own (the rush AI keeps hunting, never flees).
        let rush = Doctrine {
            fighter_sight: Some(1.0e6),
            flee_life: 0.0,
            fighter_speed: None,
        };
        assert_eq!(c.tune(rush), rush);
        // Only transports take OreCapacity.
        assert_eq!(c.ore_capacity_for(Role::Transport), Some(40.0));
        for r in [Role::Builder, Role::Building, Role::Fighter, Role::Inert] {
            assert_eq!(c.ore_capacity_for(r), None, "{r:?}");
        }
    }

    #[test]
    fn a_shorter_attack_range_engages_later_and_a_higher_retreat_life_flees_sooner() {
        use crate::behavior::{Activity, Agent, Perception, Seen, decide_with};
        use crate::combat::Weapon;
        use glam::Vec2;
        let w = Weapon::of(Role::Fighter).unwrap();
        let mut a = Agent::new(1, Some(0), 0x0100_8000, Vec2::ZERO);
        (a.max_life, a.life) = (100, 100);
        // The unit is 20 from home; the enemy `d` further along X.
        let at = Vec2::new(0.0, 20.0);
        let enemy_at = |d: f32| Perception {
            at,
            enemies: vec![Seen {
                id: 2,
                at: at + Vec2::new(d, 0.0),
                ore: 0.0,
                room: 0.0,
            }],
            ..Perception::default()
        };
        let rules = |text: &[u8]| {
            BehaviorConfig::read(Some(text))
                .unwrap()
                .tune(Doctrine::STANDARD)
        };
        let (standard, short) = (rules(b""), rules(b"AttackRange=30\r\n"));
        let act = |a: &Agent, p: &Perception, d: &Doctrine| decide_with(a, p, Some(&w), d).activity;
        // At 40 the standard radar (45) engages; a range of 30 does not yet.
        assert_eq!(act(&a, &enemy_at(40.0), &standard), Activity::Attack);
        assert_eq!(act(&a, &enemy_at(40.0), &short), Activity::Patrol);
        assert_eq!(act(&a, &enemy_at(29.0), &short), Activity::Attack);
        // A long range engages beyond the radar.
        assert_eq!(act(&a, &enemy_at(90.0), &standard), Activity::Patrol);
        assert_eq!(
            act(&a, &enemy_at(90.0), &rules(b"AttackRange=100")),
            Activity::Attack
        );
        // At 40 % of its life a unit fights on by the standard rule (25 %) and flees
        // home when RetreatLife is 50; RetreatLife 0 never flees.
        a.life = 40;
        assert_eq!(act(&a, &enemy_at(10.0), &standard), Activity::Attack);
        assert_eq!(
            act(&a, &enemy_at(10.0), &rules(b"RetreatLife=50")),
            Activity::Flee
        );
        a.life = 1;
        assert_eq!(act(&a, &enemy_at(10.0), &standard), Activity::Flee);
        assert_eq!(
            act(&a, &enemy_at(10.0), &rules(b"RetreatLife=0")),
            Activity::Attack
        );
    }
}
