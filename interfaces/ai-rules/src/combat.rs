//! Combat: weapons, turret aiming, shots and damage.
//!
//! A shot is a segment query of the control service ([`iron3d_abi::Host::control`]'s
//! `ray`) from the muzzle to the target's centre, skipping the shooter: whatever the
//! segment hits first takes the damage — the target, or a unit or building in the way.
//! Damage lowers `raw_value[1]` of the object's first `Life state` property
//! ([`iron3d_gameplay::property::LIFE_STATE`]: the word MisLoad passes to the setter,
//! FORMATS §5); at 0 the object is killed through the queue (`KillGameObject`, deferred
//! deletion of FORMATS §13.4).
//!
//! **PD-AI-WEAPON** (the unit DATs and profiles we read carry no weapon numbers, so
//! these are ours):
//!
//! | role | range | radar | damage | reload (s) | turret (°/s) |
//! |---|---|---|---|---|---|
//! | fighter | 30 | 45 | 8 | 1.0 | 180 |
//! | tower | 40 | 45 | 12 | 1.5 | 120 |
//!
//! * the turret turns towards the target at its rate and fires when within
//!   [`AIM_TOLERANCE`] of it, the target is within range and the weapon is loaded;
//! * the muzzle and the aim point are [`MUZZLE_HEIGHT`] above the objects' origins
//!   (half the height of Control's default proxy, so a shot meets a unit whose model
//!   gives no bounds);
//! * **PD-AI-DAMAGE**: `life' = life − min(life, damage)`; an object without a
//!   `Life state` property cannot be damaged (the shot is spent).
//! * **PD-AI-SOUNDS** (interface 2.6 sound events, fire and forget to the audio slot):
//!   every shot sends a one-shot of [`SHOT_SOUND`] at the muzzle, owned by the shooter;
//!   every kill a one-shot of [`DEATH_SOUND`] at the victim. The samples are those of
//!   the mission's sound library (`sounds.lib` of the demo); distances
//!   [`SOUND_MIN_DISTANCE`]..[`SOUND_MAX_DISTANCE`].
//! * **PD-AI-EFFECTS** (interface 2.11 effect events, fire and forget to the effects
//!   slot, beside the sounds): every shot starts [`SHOT_EFFECT`] at the muzzle towards
//!   where the shot ends (the hit point, else the end of its reach: the tracer's
//!   target), and one that hits something [`HIT_EFFECT`] at the hit point, owned by
//!   the object hit; every kill [`EXPLODE_EFFECT`] and [`WRECK_EFFECT`] (the smoke and
//!   scorch left behind) at the victim. The effects are entries of the effects
//!   plugin's default archive (`effects.rlb` of the demo).

use crate::behavior::Role;
use serde::{Deserialize, Serialize};

/// Radians within which the turret counts as on target.
pub const AIM_TOLERANCE: f32 = 0.087_266_46; // 5°
/// Height of muzzle and aim point above the origin.
pub const MUZZLE_HEIGHT: f32 = 0.5;

/// The shot's sample (PD-AI-SOUNDS).
pub const SHOT_SOUND: &str = "FIRE.WAV";
/// The kill's sample (PD-AI-SOUNDS).
pub const DEATH_SOUND: &str = "EXPLODE.WAV";
/// Full volume up to this distance.
pub const SOUND_MIN_DISTANCE: f32 = 20.0;
/// Silent beyond this distance.
pub const SOUND_MAX_DISTANCE: f32 = 600.0;

/// The sound event of `sample` at `at` owned by `owner` (PD-AI-SOUNDS): a one-shot of
/// the mission's sound library.
pub fn sound(sample: &str, owner: u32, at: glam::Vec3) -> iron3d_abi::SoundEvent {
    iron3d_abi::SoundEvent {
        min_distance: SOUND_MIN_DISTANCE,
        max_distance: SOUND_MAX_DISTANCE,
        ..iron3d_abi::SoundEvent::one_shot("", sample, owner, Some(at.into()))
    }
}

/// The shot's effect: muzzle flash and tracer (PD-AI-EFFECTS).
pub const SHOT_EFFECT: &str = "SHOT";
/// The effect where a shot hits (PD-AI-EFFECTS).
pub const HIT_EFFECT: &str = "HIT";
/// The kill's effect: flash, fireball, debris (PD-AI-EFFECTS).
pub const EXPLODE_EFFECT: &str = "EXPLODE";
/// What a kill leaves behind: smoke and a scorch (PD-AI-EFFECTS).
pub const WRECK_EFFECT: &str = "WRECK";

/// The effect event of `name` at `at` owned by `owner` (PD-AI-EFFECTS): an entry of
/// the effects plugin's default archive.
pub fn effect(name: &str, owner: u32, at: glam::Vec3) -> iron3d_abi::EffectEvent {
    iron3d_abi::EffectEvent::at("", name, owner, at.into())
}

/// A weapon's numbers (PD-AI-WEAPON).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Weapon {
    /// Farthest shot (world units).
    pub range: f32,
    /// Farthest an enemy is noticed.
    pub radar: f32,
    /// Life taken by a hit.
    pub damage: u32,
    /// Seconds between shots.
    pub reload: f32,
    /// Turret turn rate (radians per second).
    pub turret_rate: f32,
}

impl Weapon {
    /// The weapon of a role (`None`: unarmed).
    pub fn of(role: Role) -> Option<Self> {
        match role {
            Role::Fighter => Some(Self {
                range: 30.0,
                radar: 45.0,
                damage: 8,
                reload: 1.0,
                turret_rate: 180f32.to_radians(),
            }),
            Role::Tower => Some(Self {
                range: 40.0,
                radar: 45.0,
                damage: 12,
                reload: 1.5,
                turret_rate: 120f32.to_radians(),
            }),
            _ => None,
        }
    }
}

/// The signed angle from `from` to `to`, in `(-π, π]`.
pub fn angle_to(from: f32, to: f32) -> f32 {
    let d = (to - from).rem_euclid(std::f32::consts::TAU);
    if d > std::f32::consts::PI {
        d - std::f32::consts::TAU
    } else {
        d
    }
}

/// Turns `turret` towards `bearing` by at most `rate × dt`; returns the new yaw (in
/// `[0, 2π)`) and whether it is on target.
pub fn aim(turret: f32, bearing: f32, rate: f32, dt: f32) -> (f32, bool) {
    let d = angle_to(turret, bearing);
    let step = rate * dt;
    let yaw = if d.abs() <= step {
        bearing
    } else {
        turret + step.copysign(d)
    };
    let yaw = yaw.rem_euclid(std::f32::consts::TAU);
    (yaw, angle_to(yaw, bearing).abs() <= AIM_TOLERANCE)
}

/// Life after a hit (PD-AI-DAMAGE).
pub fn damaged(life: u32, damage: u32) -> u32 {
    life - life.min(damage)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::f32::consts::{FRAC_PI_2, PI};

    #[test]
    fn angles_wrap_the_short_way() {
        assert!((angle_to(0.1, 2.0 * PI - 0.1) + 0.2).abs() < 1e-5);
        assert!((angle_to(2.0 * PI - 0.1, 0.1) - 0.2).abs() < 1e-5);
        assert!((angle_to(0.0, PI) - PI).abs() < 1e-6);
    }

    #[test]
    fn the_turret_turns_at_its_rate_then_locks_on() {
        let rate = FRAC_PI_2; // 90°/s
        let (y, on) = aim(0.0, PI, rate, 0.5);
        assert!((y - FRAC_PI_2 * 0.5).abs() < 1e-6 && !on);
        let (y, on) = aim(y, PI, rate, 1.0);
        assert!((y - PI * 0.75).abs() < 1e-5 && !on);
        let (y, on) = aim(y, PI, rate, 1.0);
        assert_eq!(y, PI);
        assert!(on);
        // The short way round, through 0.
        let (y, _) = aim(0.2, 2.0 * PI - 0.2, rate, 0.1);
        assert!((y - (0.2 - FRAC_PI_2 * 0.1)).abs() < 1e-6);
        // Within tolerance counts as on target before it is exact.
        assert!(aim(0.0, AIM_TOLERANCE * 0.5, 0.0, 0.0).1);
    }

    #[test]
    fn damage_saturates_at_zero() {
        assert_eq!(damaged(100, 8), 92);
        assert_eq!(damaged(5, 8), 0);
        assert_eq!(damaged(0, 8), 0);
    }

    #[test]
    fn only_fighters_and_towers_are_armed() {
        assert!(Weapon::of(Role::Fighter).is_some());
        assert!(Weapon::of(Role::Tower).is_some());
        for r in [
            Role::Transport,
            Role::Builder,
            Role::Building,
            Role::Animal,
            Role::Inert,
        ] {
            assert_eq!(Weapon::of(r), None);
        }
        let f = Weapon::of(Role::Fighter).unwrap();
        assert!(f.range < f.radar);
    }

    #[test]
    fn shots_and_kills_are_one_shots_of_the_mission_library() {
        let e = sound(SHOT_SOUND, 7, glam::Vec3::new(1.0, 2.0, 3.5));
        assert_eq!(e.kind, iron3d_abi::SoundKind::ONE_SHOT);
        assert_eq!((e.library.as_str(), e.name.as_str()), ("", "FIRE.WAV"));
        assert_eq!(e.owner, 7);
        assert_eq!(e.position.map(|p| p.z), Some(3.5));
        assert_eq!(
            (e.min_distance, e.max_distance),
            (SOUND_MIN_DISTANCE, SOUND_MAX_DISTANCE)
        );
        let m = e.to_message().unwrap();
        assert_eq!(iron3d_abi::SoundEvent::from_message(&m).unwrap(), e);
    }

    #[test]
    fn shots_and_kills_start_effects_of_the_default_archive() {
        let e = effect(SHOT_EFFECT, 7, glam::Vec3::new(1.0, 2.0, 3.5))
            .towards(glam::Vec3::new(9.0, 2.0, 3.5).into());
        assert_eq!(
            (e.library.as_str(), e.name.as_str(), e.owner),
            ("", "SHOT", 7)
        );
        assert_eq!(e.target.map(|t| t.x), Some(9.0));
        let m = e.to_message().unwrap();
        assert_eq!(m.code, iron3d_abi::MessageCode::EFFECT);
        assert_eq!(iron3d_abi::EffectEvent::from_message(&m).unwrap(), e);
    }
}
