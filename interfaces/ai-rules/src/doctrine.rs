//! The doctrine: how Behavior's fighters pick their fights (**PD-AI-DOCTRINE**, ours) —
//! the knobs an alternative AI built on this crate turns, with
//! [`Doctrine::STANDARD`] (the [`Default`]) being exactly the rules of
//! [`crate::behavior`] (PD-AI-DECIDE) and [`crate::plugin::cruise_speed`]
//! (PD-AI-SPEED).
//!
//! | knob | standard | what it changes |
//! |---|---|---|
//! | [`Doctrine::fighter_sight`] | `None`: the weapon's radar (45) | how far a fighter looks for an enemy to attack, both when it perceives and when it decides |
//! | [`Doctrine::flee_life`] | [`FLEE_LIFE`] (0.25) | the life fraction below which a fighter flees home (0: never) |
//! | [`Doctrine::fighter_speed`] | `None`: [`crate::plugin::cruise_speed`] (6) | a fighter's cruise speed |
//!
//! A mission's `Behavior.ini` may set the standard sight and flee threshold
//! (`AttackRange`, `RetreatLife`: PD-AI-CONFIG-KEYS, [`Doctrine::tuned`]); a knob the
//! doctrine changes itself stays the doctrine's.
//!
//! Towers, transports, builders, animals and buildings follow the standard rules
//! whatever the doctrine. The doctrine is part of the plugin, not of its state: it is
//! not saved, so a hot swap between two AIs of different doctrines keeps every unit's
//! state and changes how the units decide from then on.
//!
//! Bad values never panic: a sight or a speed that is not finite, or is negative,
//! counts as the standard value; a `flee_life` that is not a number never flees.

use crate::behavior::{FLEE_LIFE, Role};
use crate::combat::Weapon;

/// How fighters pick their fights (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Doctrine {
    /// How far a fighter notices an enemy (world units); `None`: its weapon's radar.
    pub fighter_sight: Option<f32>,
    /// The life fraction (of the unit's start life) below which a fighter flees home.
    pub flee_life: f32,
    /// A fighter's cruise speed (units per second); `None`: the standard one.
    pub fighter_speed: Option<f32>,
}

impl Doctrine {
    /// The standard doctrine: the rules of PD-AI-DECIDE and PD-AI-SPEED unchanged.
    pub const STANDARD: Doctrine = Doctrine {
        fighter_sight: None,
        flee_life: FLEE_LIFE,
        fighter_speed: None,
    };

    /// How far a unit of `role` armed with `weapon` looks for an enemy: the doctrine's
    /// sight for a fighter when it is finite and not negative, else the weapon's radar.
    pub fn sight(&self, role: Role, weapon: &Weapon) -> f32 {
        match (role, self.fighter_sight) {
            (Role::Fighter, Some(s)) if s.is_finite() && s >= 0.0 => s,
            _ => weapon.radar,
        }
    }

    /// The cruise speed of a unit of `role`: the doctrine's fighter speed for a fighter
    /// when it is finite and not negative, else [`crate::plugin::cruise_speed`].
    pub fn cruise_speed(&self, role: Role) -> f32 {
        match (role, self.fighter_speed) {
            (Role::Fighter, Some(s)) if s.is_finite() && s >= 0.0 => s,
            _ => crate::plugin::cruise_speed(role),
        }
    }

    /// Whether a fighter with `life` left of `max_life` is hurt enough to flee (never
    /// when `max_life` is 0).
    pub fn hurt(&self, life: u32, max_life: u32) -> bool {
        max_life > 0 && (life as f32) < self.flee_life * max_life as f32
    }

    /// **PD-AI-CONFIG-KEYS** ([`crate::config`]): this doctrine with the mission's
    /// values for the standard knobs — `sight` (`Behavior.ini` `AttackRange`) becomes the
    /// fighter sight unless this doctrine sets its own, `flee_life` (`RetreatLife` as a
    /// fraction) the flee threshold unless this doctrine's differs from [`FLEE_LIFE`].
    /// `None` leaves a knob as it is.
    pub fn tuned(self, sight: Option<f32>, flee_life: Option<f32>) -> Self {
        Self {
            fighter_sight: self.fighter_sight.or(sight),
            flee_life: match flee_life {
                Some(f) if self.flee_life.to_bits() == FLEE_LIFE.to_bits() => f,
                _ => self.flee_life,
            },
            fighter_speed: self.fighter_speed,
        }
    }
}

impl Default for Doctrine {
    /// [`Doctrine::STANDARD`].
    fn default() -> Self {
        Self::STANDARD
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::plugin::cruise_speed;

    const ROLES: [Role; 7] = [
        Role::Fighter,
        Role::Transport,
        Role::Builder,
        Role::Tower,
        Role::Animal,
        Role::Building,
        Role::Inert,
    ];

    #[test]
    fn the_default_is_the_standard_rules() {
        let d = Doctrine::default();
        assert_eq!(d, Doctrine::STANDARD);
        assert_eq!(d.flee_life.to_bits(), FLEE_LIFE.to_bits());
        for role in ROLES {
            assert_eq!(d.cruise_speed(role).to_bits(), cruise_speed(role).to_bits());
            if let Some(w) = Weapon::of(role) {
                assert_eq!(d.sight(role, &w).to_bits(), w.radar.to_bits());
            }
        }
        // The flee rule of PD-AI-DECIDE: below 25 %, not at it; no life, no fleeing.
        assert!(d.hurt(24, 100) && !d.hurt(25, 100) && !d.hurt(0, 0));
    }

    #[test]
    fn the_plugin_follows_the_standard_doctrine_unless_told_and_never_saves_it() {
        use crate::plugin::AiPlugin;
        use iron3d_abi::Plugin;
        let standard = AiPlugin::default();
        assert_eq!(standard.doctrine(), &Doctrine::STANDARD);
        assert_eq!(
            AiPlugin::with_doctrine(Doctrine::default()).doctrine(),
            standard.doctrine()
        );
        let other = AiPlugin::with_doctrine(Doctrine {
            fighter_sight: Some(100.0),
            flee_life: 0.0,
            fighter_speed: Some(8.0),
        });
        assert_eq!(other.doctrine().fighter_sight, Some(100.0));
        // Not in the state blob: AIs of different doctrines swap into each other.
        assert_eq!(standard.save_state().unwrap(), other.save_state().unwrap());
    }

    #[test]
    fn only_fighters_follow_the_doctrine() {
        let d = Doctrine {
            fighter_sight: Some(1000.0),
            flee_life: 0.0,
            fighter_speed: Some(9.0),
        };
        let fighter = Weapon::of(Role::Fighter).unwrap();
        let tower = Weapon::of(Role::Tower).unwrap();
        assert_eq!(d.sight(Role::Fighter, &fighter), 1000.0);
        assert_eq!(d.sight(Role::Tower, &tower), tower.radar);
        assert_eq!(d.cruise_speed(Role::Fighter), 9.0);
        for role in ROLES.into_iter().filter(|r| *r != Role::Fighter) {
            assert_eq!(d.cruise_speed(role), cruise_speed(role));
        }
        assert!(!d.hurt(1, 100), "flee_life 0: never flees");
    }

    #[test]
    fn bad_values_fall_back_to_the_standard() {
        let w = Weapon::of(Role::Fighter).unwrap();
        for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -1.0] {
            let d = Doctrine {
                fighter_sight: Some(bad),
                flee_life: f32::NAN,
                fighter_speed: Some(bad),
            };
            assert_eq!(d.sight(Role::Fighter, &w), w.radar);
            assert_eq!(d.cruise_speed(Role::Fighter), cruise_speed(Role::Fighter));
            assert!(!d.hurt(0, 100));
        }
    }
}
