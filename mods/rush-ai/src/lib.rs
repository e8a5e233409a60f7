//! **Rush AI** — an example plugin mod: the first-party AI (`iron3d-ai-rules`) under the
//! *rush* doctrine, exported as a plugin of its own (`rush-ai`, factory `ai`, AI slot).
//!
//! The rush doctrine ([`RUSH`], PD-AI-DOCTRINE in [`iron3d_ai_rules::doctrine`]):
//!
//! * **hunt**: every fighter of every clan looks for an enemy over the whole map
//!   ([`RUSH_SIGHT`] instead of its weapon's radar of 45) — from its first thinking step
//!   it drives at the nearest enemy unit or building (ties: the lower id) and attacks it,
//!   before any standing move or patrol order (an explicit attack order still comes
//!   first);
//! * **no retreat**: a fighter never flees home, however hurt (`flee_life` 0 instead of
//!   25 % of its start life);
//! * everything else is the standard AI's: weapons and ranges, cruise speed, towers,
//!   transports and the economy, objectives, orders, the state blob (so `ai` and
//!   `rush-ai` hot-swap into each other, keeping every unit's state).
//!
//! The doctrine is the same for every clan, so on the demo's battle both sides rush.
//!
//! The crate links the first-party AI's rules library (`iron3d-ai-rules`, which has no
//! root module; `iron3d-ai` is only its plugin shell): the built
//! `libiron3d_mod_rush_ai.so` exports one root module, this crate's, whose description
//! names the plugin `rush-ai`.

use iron3d_abi::{FactoryDescription, Plugin, PluginDescription, PluginError, SlotKind};
use iron3d_ai_rules::doctrine::Doctrine;
use iron3d_ai_rules::plugin::AiPlugin;

/// The plugin's name in listings (`plugin slot=ai rush-ai …`).
pub const PLUGIN_NAME: &str = "rush-ai";

/// The one factory: the AI slot's (`ai`, as the first-party AI's, so the registry line
/// `ai iron3d_mod_rush_ai ai` or the mod's `[[plugin]]` entry picks it).
pub const FACTORY: &str = "ai";

/// How far a rushing fighter looks for an enemy: farther than any map is wide, so the
/// nearest enemy anywhere is its target (finite, as the neighbour grid wants).
pub const RUSH_SIGHT: f32 = 1.0e6;

/// The rush doctrine: hunt the nearest enemy on the whole map, never flee; the standard
/// cruise speed.
pub const RUSH: Doctrine = Doctrine {
    fighter_sight: Some(RUSH_SIGHT),
    flee_life: 0.0,
    fighter_speed: None,
};

/// The library's description: plugin `rush-ai`, factory `ai` in the AI slot with the
/// first-party AI's callbacks.
pub fn describe() -> PluginDescription {
    PluginDescription::current(
        PLUGIN_NAME,
        env!("CARGO_PKG_VERSION"),
        vec![FactoryDescription::of(FACTORY, SlotKind::Ai)],
    )
}

/// Creates the instance of `factory`: the first-party AI under [`RUSH`]; any other
/// factory name is an error naming it.
///
/// # Errors
/// [`PluginError::no_factory`] for a factory other than [`FACTORY`].
pub fn create(factory: &str) -> Result<Box<dyn Plugin>, PluginError> {
    if factory != FACTORY {
        return Err(PluginError::no_factory(PLUGIN_NAME, factory));
    }
    Ok(Box::new(AiPlugin::with_doctrine(RUSH)))
}

iron3d_abi::export_plugin!(describe = super::describe, create = super::create);

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use glam::Vec2;
    use iron3d_ai_rules::behavior::{
        Activity, Agent, Order, Perception, Role, Seen, decide, decide_with, patrol_point,
    };
    use iron3d_ai_rules::combat::Weapon;

    fn seen(id: u32, x: f32, y: f32) -> Seen {
        Seen {
            id,
            at: Vec2::new(x, y),
            ore: 0.0,
            room: 0.0,
        }
    }

    fn tank(life: u32) -> Agent {
        let mut a = Agent::new(1, Some(0), 0x0100_8000, Vec2::ZERO);
        a.max_life = 100;
        a.life = life;
        a
    }

    #[test]
    fn the_description_names_the_mod_and_the_ai_slot() {
        let d = describe();
        assert_eq!(d.name.as_str(), "rush-ai");
        assert_ne!(d.name.as_str(), "iron3d-ai", "listings tell it apart");
        assert_eq!(d.factories.len(), 1);
        let f = &d.factories[0];
        assert_eq!(f.name.as_str(), "ai");
        assert_eq!(f.slot, SlotKind::Ai);
    }

    #[test]
    fn the_factory_creates_the_ai_and_refuses_other_names() {
        assert!(create("ai").is_ok());
        for bad in ["", "AI", "rush-ai", "null-ai", "ai\0"] {
            let e = create(bad).err().unwrap();
            assert!(e.message.as_str().contains("rush-ai"), "{}", e.message);
        }
    }

    #[test]
    fn rush_changes_sight_and_flight_only() {
        let standard = Doctrine::default();
        assert_ne!(RUSH, standard);
        assert_eq!(RUSH.fighter_speed, standard.fighter_speed);
        let w = Weapon::of(Role::Fighter).unwrap();
        assert_eq!(RUSH.sight(Role::Fighter, &w), RUSH_SIGHT);
        assert!(RUSH_SIGHT > w.radar && RUSH_SIGHT.is_finite());
        // Towers keep their radar; every role keeps its speed.
        let tw = Weapon::of(Role::Tower).unwrap();
        assert_eq!(RUSH.sight(Role::Tower, &tw), tw.radar);
        for role in [Role::Fighter, Role::Transport, Role::Builder, Role::Animal] {
            assert_eq!(RUSH.cruise_speed(role), standard.cruise_speed(role));
        }
        // No retreat at any life; the standard flees below a quarter.
        for life in [1, 10, 24] {
            assert!(!RUSH.hurt(life, 100));
            assert!(standard.hurt(life, 100));
        }
    }

    #[test]
    fn a_rushing_fighter_hunts_the_nearest_enemy_anywhere() {
        let w = Weapon::of(Role::Fighter).unwrap();
        let a = tank(100);
        // Two enemies far beyond radar (the map's far corner): the nearer one, ties to
        // the lower id.
        let p = Perception {
            enemies: vec![seen(12, 300.0, 300.0), seen(11, 0.0, 400.0)],
            ..Perception::default()
        };
        let d = decide_with(&a, &p, Some(&w), &RUSH);
        assert_eq!(
            (d.activity, d.goal, d.target),
            (Activity::Attack, Some(Vec2::new(0.0, 400.0)), Some(11))
        );
        let tie = Perception {
            enemies: vec![seen(12, 400.0, 0.0), seen(11, 0.0, 400.0)],
            ..Perception::default()
        };
        assert_eq!(decide_with(&a, &tie, Some(&w), &RUSH).target, Some(11));
        // The standard AI does not see them: it patrols about its home.
        let d = decide(&a, &p, Some(&w));
        assert_eq!(
            (d.activity, d.goal),
            (Activity::Patrol, Some(patrol_point(Vec2::ZERO, 0)))
        );
    }

    #[test]
    fn a_rushing_fighter_leaves_its_move_order_but_not_an_attack_order() {
        let w = Weapon::of(Role::Fighter).unwrap();
        let mut a = tank(100);
        a.order = Some(Order::Move(Vec2::new(200.0, 200.0)));
        let p = Perception {
            enemies: vec![seen(7, -300.0, 0.0)],
            ..Perception::default()
        };
        assert_eq!(decide(&a, &p, Some(&w)).activity, Activity::Move);
        let d = decide_with(&a, &p, Some(&w), &RUSH);
        assert_eq!((d.activity, d.target), (Activity::Attack, Some(7)));
        // An explicit attack order outranks the hunt.
        a.order = Some(Order::Attack(9));
        let ordered = Perception {
            ordered: Some(seen(9, 500.0, 0.0)),
            ..p.clone()
        };
        assert_eq!(decide_with(&a, &ordered, Some(&w), &RUSH).target, Some(9));
    }

    #[test]
    fn a_rushing_fighter_never_flees() {
        let w = Weapon::of(Role::Fighter).unwrap();
        let mut a = tank(5);
        a.home = Vec2::new(100.0, 100.0);
        let p = Perception {
            enemies: vec![seen(2, 10.0, 0.0)],
            ..Perception::default()
        };
        assert_eq!(decide(&a, &p, Some(&w)).activity, Activity::Flee);
        let d = decide_with(&a, &p, Some(&w), &RUSH);
        assert_eq!((d.activity, d.target), (Activity::Attack, Some(2)));
        // Within the close-in distance it stands and fires.
        assert_eq!(d.goal, None);
    }

    #[test]
    fn the_rush_is_deterministic_and_leaves_other_roles_alone() {
        let w = Weapon::of(Role::Fighter).unwrap();
        let p = Perception {
            enemies: vec![seen(3, 250.0, 10.0), seen(4, 250.0, -10.0)],
            own_mines: vec![Seen {
                ore: 50.0,
                ..seen(5, 20.0, 0.0)
            }],
            storages: vec![Seen {
                room: 100.0,
                ..seen(6, -20.0, 0.0)
            }],
            ..Perception::default()
        };
        let a = tank(100);
        let first = decide_with(&a, &p, Some(&w), &RUSH);
        for _ in 0..100 {
            assert_eq!(decide_with(&a, &p, Some(&w), &RUSH), first);
        }
        assert_eq!(first.target, Some(3), "equal distance: the lower id");
        // A transport, a tower and a plant decide as under the standard AI.
        let mut truck = Agent::new(2, Some(0), 0x0100_2000, Vec2::ZERO);
        truck.max_ore = 100.0;
        let tower = Agent::new(3, Some(0), 0x8010_0000, Vec2::ZERO);
        let plant = Agent::new(4, Some(0), 0x8000_0010, Vec2::ZERO);
        let tw = Weapon::of(Role::Tower).unwrap();
        assert_eq!(
            decide_with(&truck, &p, None, &RUSH),
            decide(&truck, &p, None)
        );
        assert_eq!(
            decide_with(&tower, &p, Some(&tw), &RUSH),
            decide(&tower, &p, Some(&tw))
        );
        assert_eq!(
            decide_with(&plant, &p, None, &RUSH),
            decide(&plant, &p, None)
        );
    }
}
