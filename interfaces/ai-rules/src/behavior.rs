//! Behavior per object (tome VI "AI, Behavior и Wizard"): what a unit is doing, where
//! it is going and at whom it aims — the state machine above the path levels of
//! [`crate::path`] and [`crate::wizard`].
//!
//! The names of the activities are ours (the sources do not name Behavior's states);
//! the number of each is what the plugin writes as the object's behaviour state, so
//! traces and the state hash see it:
//!
//! | # | [`Activity`] | who | what |
//! |---|---|---|---|
//! | 0 | `Idle` | anyone | nothing to do (a building without work, a unit without a goal) |
//! | 1 | `Move` | mobile units | drive to an ordered point ([`Order::Move`]) |
//! | 2 | `Patrol` | fighters, animals | drive round the patrol ring about their home (or the [`Order::Patrol`] point) |
//! | 3 | `Harvest` | transports | drive to a mine (or the [`Order::Harvest`] mine) and load ore |
//! | 4 | `Deliver` | transports, builders | drive to a storage and unload |
//! | 5 | `Build` | plants | turn ore and energy into a new unit |
//! | 6 | `Attack` | fighters, towers | aim at an enemy (or the [`Order::Attack`] target) and fire; fighters close in |
//! | 7 | `Flee` | fighters | badly hurt: back home |
//! | 8 | `Dead` | anyone | life reached 0: killed through the queue, never acts again |
//!
//! [`decide`] is the thinking step: a pure function of the unit and what it perceives,
//! so every rule here is a unit test. The plugin calls it on the unit's think clock
//! ([`crate::schedule`]: the first step at `t + 192 + r` ms, then every
//! [`THINK_PERIOD_MS`]) and moves the unit every tick in between.
//!
//! **PD-AI-ROLES**: the role of a unit comes from its class word's profile
//! ([`crate::profile`]): `prof_war`, `prof_hero` and `prof_hq` fight; `prof_trn`
//! hauls ore; `prof_bld` starts loaded (its class default is 2000 ore) and delivers;
//! towers and bunkers fire from where they stand; `prof_animal` patrols; mines,
//! storages, generators and plants are the economy's ([`crate::economy`]); every other
//! class, and an object without a unit DAT, has no behaviour.
//!
//! **PD-AI-DECIDE** (the sources give no decision rules; these are ours):
//! * a fighter whose life is below [`FLEE_LIFE`] of its start flees home, and returns
//!   to duty when back within [`HOME_RADIUS`];
//! * otherwise the nearest enemy within radar ([`crate::combat::Weapon::radar`]) is the
//!   target (ties: the lower id); a fighter closes in to [`CLOSE_IN`] of its weapon's
//!   range, a tower only aims;
//! * an order ([`Order`], **PD-AI-ORDERS**) outranks the unit's own choices except
//!   fleeing: an attack order chases its target beyond radar until the target is dead
//!   or gone; a move order ([`Activity::Move`]) outranks patrol and harvest but not an
//!   enemy in radar (a fighter answers fire on the way); a patrol order moves the patrol
//!   ring's centre from home to the ordered point; a harvest order makes a transport
//!   load at the ordered mine (it still delivers to the nearest storage). An attack or
//!   harvest order whose object is dead, gone or (a mine) empty is done and dropped;
//! * a transport harvests the nearest mine of its clan holding at least [`MIN_ORE`]
//!   (else the nearest unowned one), delivers to the nearest storage of its clan with
//!   room when full, or when loaded and no mine has ore; with nowhere to go it idles;
//! * "nearest" is by straight distance, ties broken by the lower id.
//!
//! An alternative AI built on this crate may change how far a fighter looks for an
//! enemy and when it flees: [`decide_with`] under a [`crate::doctrine::Doctrine`];
//! [`decide`] is the standard doctrine.

use crate::combat::Weapon;
use crate::doctrine::Doctrine;
use crate::path::{ErrorState, PathState};
use crate::schedule::FirstStep;
use crate::wizard::Wizard;
use glam::Vec2;
use serde::{Deserialize, Serialize};

/// Milliseconds between two thinking steps of a unit.
pub const THINK_PERIOD_MS: u32 = 256;
/// Life fraction below which a fighter flees.
pub const FLEE_LIFE: f32 = 0.25;
/// Distance from home within which a fleeing fighter is safe again.
pub const HOME_RADIUS: f32 = 6.0;
/// A fighter closes in to this fraction of its weapon's range.
pub const CLOSE_IN: f32 = 0.8;
/// A mine with less ore is not worth the trip.
pub const MIN_ORE: f32 = 1.0;
/// PD-AI-STUCK: a unit with a path that moved less than [`STUCK_DISTANCE`] in
/// [`STUCK_MS`] re-plans (a new path revision; Wizard is cleared; the link ahead is
/// avoided, PD-AI-DETOUR in [`crate::path`]); the
/// [`crate::path::MAX_REPLANS`]-th re-plan without reaching the goal is error state 6.
pub const STUCK_MS: u32 = 3_000;
/// See [`STUCK_MS`].
pub const STUCK_DISTANCE: f32 = 1.0;
/// PD-AI-RETRY: a unit in an error state tries its goal again after this long; a
/// diagnostic is written when the state is entered, not again for the same state
/// until the unit has arrived somewhere.
pub const ERROR_RETRY_MS: u32 = 5_000;
/// Radius of the patrol ring about a unit's home.
pub const PATROL_RADIUS: f32 = 12.0;
/// Points on the patrol ring.
pub const PATROL_POINTS: u32 = 4;

/// A standing order given to a unit (the player's seat or a mod, through the plugin's
/// order messages; **PD-AI-ORDERS** in the module docs). Kept until done or replaced.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Order {
    /// Drive to the point; done on arrival.
    Move(Vec2),
    /// Attack the object with this id until it is dead or gone.
    Attack(u32),
    /// Patrol the ring about this point (instead of home); never done by itself.
    Patrol(Vec2),
    /// Load ore at the mine with this id (and deliver as usual) while it has ore.
    Harvest(u32),
}

impl Order {
    /// The object the order is about (attack target or mine), if any.
    pub fn object(&self) -> Option<u32> {
        match *self {
            Order::Attack(id) | Order::Harvest(id) => Some(id),
            Order::Move(_) | Order::Patrol(_) => None,
        }
    }
}

/// What a unit is doing (its number is the object's behaviour state).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub enum Activity {
    /// Nothing to do.
    #[default]
    Idle,
    /// Driving to an ordered point.
    Move,
    /// Driving round the patrol ring.
    Patrol,
    /// Driving to a mine / loading ore.
    Harvest,
    /// Driving to a storage / unloading ore.
    Deliver,
    /// A plant producing a unit.
    Build,
    /// Aiming and firing at an enemy.
    Attack,
    /// Going home, badly hurt.
    Flee,
    /// Killed.
    Dead,
}

impl Activity {
    /// Every activity in number order.
    pub const ALL: [Activity; 9] = [
        Activity::Idle,
        Activity::Move,
        Activity::Patrol,
        Activity::Harvest,
        Activity::Deliver,
        Activity::Build,
        Activity::Attack,
        Activity::Flee,
        Activity::Dead,
    ];

    /// The behaviour state number written to the object.
    pub fn number(self) -> u32 {
        self as u32
    }

    /// The activity of a behaviour state number.
    pub fn from_number(n: u32) -> Option<Self> {
        Self::ALL.get(n as usize).copied()
    }

    /// Lower-case name for logs.
    pub fn name(self) -> &'static str {
        match self {
            Activity::Idle => "idle",
            Activity::Move => "move",
            Activity::Patrol => "patrol",
            Activity::Harvest => "harvest",
            Activity::Deliver => "deliver",
            Activity::Build => "build",
            Activity::Attack => "attack",
            Activity::Flee => "flee",
            Activity::Dead => "dead",
        }
    }
}

/// What a unit is for (PD-AI-ROLES).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Role {
    /// Drives and fights.
    Fighter,
    /// Hauls ore from mines to storages.
    Transport,
    /// Starts loaded and delivers.
    Builder,
    /// Fires from where it stands.
    Tower,
    /// Wanders its patrol ring.
    Animal,
    /// A building of the economy (mine, storage, generator, plant, hangar…).
    Building,
    /// No behaviour.
    Inert,
}

impl Role {
    /// The role of a class word.
    pub fn of(class_word: u32) -> Self {
        use crate::profile::{Profile, profile_for};
        match profile_for(class_word) {
            Some(Profile::Warrior | Profile::Hero | Profile::Headquarters) => Role::Fighter,
            Some(Profile::Transport) => Role::Transport,
            Some(Profile::Builder) => Role::Builder,
            Some(Profile::Tower | Profile::Bunker) => Role::Tower,
            Some(Profile::Animal) => Role::Animal,
            Some(_) => Role::Building,
            None => Role::Inert,
        }
    }

    /// Whether units of this role drive.
    pub fn mobile(self) -> bool {
        matches!(
            self,
            Role::Fighter | Role::Transport | Role::Builder | Role::Animal
        )
    }
}

/// One object's Behavior state (saved with the plugin).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Agent {
    /// Original object id.
    pub id: u32,
    /// SuperAI slot of its clan (`None`: no clan — never a target, never targets).
    pub clan: Option<u32>,
    /// The unit DAT class word (0: none).
    pub class_word: u32,
    /// Its role.
    pub role: Role,
    /// What it is doing.
    pub activity: Activity,
    /// The global and local path.
    pub path: PathState,
    /// The wizard path.
    pub wizard: Wizard,
    /// The object it aims at, harvests or delivers to.
    pub target: Option<u32>,
    /// The standing order, kept until done or replaced.
    pub order: Option<Order>,
    /// Where the player aims the weapon of a possessed unit this tick (a fire request;
    /// consumed by the next combat step).
    pub fire_at: Option<glam::Vec3>,
    /// The explicit error state of tome VI it is in, if any.
    pub error: Option<ErrorState>,
    /// Ore carried (transports) or stored (mines, storages).
    pub ore: f32,
    /// Most ore it holds.
    pub max_ore: f32,
    /// Life at the start (the flee threshold is relative to it).
    pub max_life: u32,
    /// Life as last read or written.
    pub life: u32,
    /// Seconds until the weapon may fire again.
    pub reload: f32,
    /// Turret yaw (radians, world).
    pub turret: f32,
    /// Where it started (patrol centre, flee goal).
    pub home: Vec2,
    /// Next point of the patrol ring.
    pub patrol_leg: u32,
    /// Its first thinking step (on the shared stream).
    pub first: FirstStep,
    /// Queue time (ms) of its next thinking step after the first (0: at once).
    pub next_think: u32,
    /// Where it was when it last made progress, and when (PD-AI-STUCK).
    pub progress: (Vec2, u32),
    /// When it entered its error state (PD-AI-RETRY).
    pub error_since: u32,
    /// The error state reported last (reported again only when it changes or after the
    /// unit arrived somewhere).
    pub reported: Option<ErrorState>,
    /// The player drives it (possession): Behavior neither thinks nor steers for it
    /// until the player leaves it.
    pub manual: bool,
}

impl Agent {
    /// A fresh agent at `home`.
    pub fn new(id: u32, clan: Option<u32>, class_word: u32, home: Vec2) -> Self {
        Self {
            id,
            clan,
            class_word,
            role: Role::of(class_word),
            activity: Activity::Idle,
            path: PathState::default(),
            wizard: Wizard::default(),
            target: None,
            order: None,
            fire_at: None,
            error: None,
            ore: 0.0,
            max_ore: 0.0,
            max_life: 0,
            life: 0,
            reload: 0.0,
            turret: 0.0,
            home,
            patrol_leg: 0,
            first: FirstStep::default(),
            next_think: 0,
            progress: (home, 0),
            error_since: 0,
            reported: None,
            manual: false,
        }
    }
}

impl Agent {
    /// Enters error state `state` at queue time `now` (the path is dropped, the unit
    /// stops); `true` when it is to be reported (not the one reported last).
    pub fn enter_error(&mut self, state: ErrorState, now: u32) -> bool {
        if self.error != Some(state) {
            self.error_since = now;
        }
        self.error = Some(state);
        self.path.points.clear();
        self.path.escape = None;
        self.wizard.clear();
        let report = self.reported != Some(state);
        self.reported = Some(state);
        report
    }

    /// PD-AI-RETRY at a thinking step: an error state older than [`ERROR_RETRY_MS`]
    /// is left and the same goal planned afresh (its re-plan count starts again).
    pub fn retry(&mut self, now: u32) -> bool {
        if self.error.is_none() || now.wrapping_sub(self.error_since) < ERROR_RETRY_MS {
            return false;
        }
        self.error = None;
        let goal = self.path.goal;
        self.path.set_goal(goal);
        true
    }

    /// PD-AI-STUCK at a thinking step: `true` when the unit re-plans now.
    pub fn stuck_check(&mut self, at: Vec2, now: u32) -> bool {
        let moving = self.path.goal.is_some() && !self.path.points.is_empty();
        if !moving || at.distance(self.progress.0) > STUCK_DISTANCE {
            self.progress = (at, now);
            return false;
        }
        if now.wrapping_sub(self.progress.1) < STUCK_MS {
            return false;
        }
        self.progress = (at, now);
        self.path.stuck();
        self.wizard.clear();
        true
    }
}

/// Another object as a thinking unit sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Seen {
    /// Its id.
    pub id: u32,
    /// Ground position.
    pub at: Vec2,
    /// Its ore (mines, storages).
    pub ore: f32,
    /// Room left for ore (storages).
    pub room: f32,
}

/// What a unit perceives when it thinks.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Perception {
    /// Its ground position.
    pub at: Vec2,
    /// Enemies within its radar, any order.
    pub enemies: Vec<Seen>,
    /// Mines of its clan.
    pub own_mines: Vec<Seen>,
    /// Mines of no clan.
    pub free_mines: Vec<Seen>,
    /// Storages of its clan.
    pub storages: Vec<Seen>,
    /// Its plant has an order in work (plants only).
    pub producing: bool,
    /// The object its order is about (attack target, mine) while it is alive.
    pub ordered: Option<Seen>,
}

/// What thinking decided.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decision {
    /// The activity.
    pub activity: Activity,
    /// The goal to drive to (`None`: stand).
    pub goal: Option<Vec2>,
    /// The object aimed at, harvested or delivered to.
    pub target: Option<u32>,
}

impl Decision {
    fn stand(activity: Activity) -> Self {
        Self {
            activity,
            goal: None,
            target: None,
        }
    }
}

/// The nearest of `seen` to `at` that passes `keep` (ties: the lower id).
pub fn nearest(at: Vec2, seen: &[Seen], keep: impl Fn(&Seen) -> bool) -> Option<Seen> {
    seen.iter()
        .filter(|s| keep(s))
        .min_by(|a, b| {
            a.at.distance_squared(at)
                .total_cmp(&b.at.distance_squared(at))
                .then(a.id.cmp(&b.id))
        })
        .copied()
}

/// The `leg`-th point of the patrol ring about `home`.
pub fn patrol_point(home: Vec2, leg: u32) -> Vec2 {
    let a = (leg % PATROL_POINTS) as f32 * std::f32::consts::TAU / PATROL_POINTS as f32;
    home + Vec2::new(a.cos(), a.sin()) * PATROL_RADIUS
}

/// The thinking step (PD-AI-DECIDE): what `agent` does next, given what it perceives
/// and its weapon (`None`: unarmed) — [`decide_with`] under [`Doctrine::STANDARD`].
pub fn decide(agent: &Agent, p: &Perception, weapon: Option<&Weapon>) -> Decision {
    decide_with(agent, p, weapon, &Doctrine::STANDARD)
}

/// The thinking step under `doctrine` (PD-AI-DOCTRINE in [`crate::doctrine`]): the
/// rules of [`decide`] with a fighter's sight (instead of its radar) and flee threshold
/// (instead of [`FLEE_LIFE`]) taken from the doctrine.
pub fn decide_with(
    agent: &Agent,
    p: &Perception,
    weapon: Option<&Weapon>,
    doctrine: &Doctrine,
) -> Decision {
    if agent.activity == Activity::Dead {
        return Decision::stand(Activity::Dead);
    }
    let enemy = || {
        let sight = doctrine.sight(agent.role, weapon?);
        nearest(p.at, &p.enemies, |s| s.at.distance(p.at) <= sight)
    };
    match agent.role {
        Role::Inert => Decision::stand(Activity::Idle),
        Role::Building => Decision::stand(if p.producing {
            Activity::Build
        } else {
            Activity::Idle
        }),
        Role::Tower => match enemy() {
            Some(e) => Decision {
                activity: Activity::Attack,
                goal: None,
                target: Some(e.id),
            },
            None => Decision::stand(Activity::Idle),
        },
        Role::Fighter | Role::Animal => {
            let hurt = doctrine.hurt(agent.life, agent.max_life);
            let home_far = p.at.distance(agent.home) > HOME_RADIUS;
            if hurt && home_far {
                return Decision {
                    activity: Activity::Flee,
                    goal: Some(agent.home),
                    target: None,
                };
            }
            if let (Some(Order::Attack(_)), Some(t), Some(w)) = (agent.order, p.ordered, weapon) {
                let close = t.at.distance(p.at) <= w.range * CLOSE_IN;
                return Decision {
                    activity: Activity::Attack,
                    goal: (!close).then_some(t.at),
                    target: Some(t.id),
                };
            }
            if let (Some(e), Some(w)) = (enemy(), weapon) {
                let close = e.at.distance(p.at) <= w.range * CLOSE_IN;
                return Decision {
                    activity: Activity::Attack,
                    goal: (!close).then_some(e.at),
                    target: Some(e.id),
                };
            }
            let centre = match agent.order {
                Some(Order::Move(o)) => {
                    return Decision {
                        activity: Activity::Move,
                        goal: Some(o),
                        target: None,
                    };
                }
                Some(Order::Patrol(c)) => c,
                _ => agent.home,
            };
            Decision {
                activity: Activity::Patrol,
                goal: Some(patrol_point(centre, agent.patrol_leg)),
                target: None,
            }
        }
        Role::Transport | Role::Builder => {
            if let Some(Order::Move(o)) = agent.order {
                return Decision {
                    activity: Activity::Move,
                    goal: Some(o),
                    target: None,
                };
            }
            let ordered = match agent.order {
                Some(Order::Harvest(_)) => p.ordered.filter(|m| m.ore >= MIN_ORE),
                _ => None,
            };
            let mine = ordered
                .or_else(|| nearest(p.at, &p.own_mines, |s| s.ore >= MIN_ORE))
                .or_else(|| nearest(p.at, &p.free_mines, |s| s.ore >= MIN_ORE));
            let full = agent.max_ore > 0.0 && agent.ore >= agent.max_ore;
            let deliver =
                agent.ore > 0.0 && (full || mine.is_none() || agent.activity == Activity::Deliver);
            if deliver {
                if let Some(s) = nearest(p.at, &p.storages, |s| s.room > 0.0) {
                    return Decision {
                        activity: Activity::Deliver,
                        goal: Some(s.at),
                        target: Some(s.id),
                    };
                }
            }
            match mine {
                Some(m) if !full && agent.max_ore > 0.0 => Decision {
                    activity: Activity::Harvest,
                    goal: Some(m.at),
                    target: Some(m.id),
                },
                _ => Decision::stand(Activity::Idle),
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::combat::Weapon;

    fn seen(id: u32, x: f32, y: f32, ore: f32) -> Seen {
        Seen {
            id,
            at: Vec2::new(x, y),
            ore,
            room: 100.0,
        }
    }

    #[test]
    fn activity_numbers_are_stable() {
        for (n, a) in Activity::ALL.iter().enumerate() {
            assert_eq!(a.number(), n as u32);
            assert_eq!(Activity::from_number(n as u32), Some(*a));
        }
        assert_eq!(Activity::Dead.number(), 8);
        assert_eq!(Activity::from_number(9), None);
    }

    #[test]
    fn roles_follow_the_profile_map() {
        assert_eq!(Role::of(0x0100_8000), Role::Fighter);
        assert_eq!(Role::of(0x0100_2000), Role::Transport);
        assert_eq!(Role::of(0x0100_4000), Role::Builder);
        assert_eq!(Role::of(0x8010_0000), Role::Tower);
        assert_eq!(Role::of(0x8000_0004), Role::Building);
        assert_eq!(Role::of(0x2000_0000), Role::Animal);
        assert_eq!(Role::of(0x1234), Role::Inert);
        assert!(Role::Fighter.mobile() && !Role::Tower.mobile());
    }

    #[test]
    fn a_fighter_attacks_the_nearest_enemy_in_radar_else_patrols() {
        let w = Weapon::of(Role::Fighter).unwrap();
        let mut a = Agent::new(1, Some(0), 0x0100_8000, Vec2::ZERO);
        a.max_life = 100;
        a.life = 100;
        let mut p = Perception::default();
        let d = decide(&a, &p, Some(&w));
        assert_eq!(d.activity, Activity::Patrol);
        assert_eq!(d.goal, Some(patrol_point(Vec2::ZERO, 0)));
        // Two at the same distance: the lower id; one beyond radar is ignored.
        p.enemies = vec![
            seen(9, 20.0, 0.0, 0.0),
            seen(7, 0.0, 20.0, 0.0),
            seen(3, w.radar + 1.0, 0.0, 0.0),
        ];
        let d = decide(&a, &p, Some(&w));
        assert_eq!((d.activity, d.target), (Activity::Attack, Some(7)));
        // Within the close-in distance it stands and fires.
        p.enemies = vec![seen(4, w.range * CLOSE_IN - 0.1, 0.0, 0.0)];
        assert_eq!(decide(&a, &p, Some(&w)).goal, None);
        // Unarmed: no attack.
        assert_eq!(decide(&a, &p, None).activity, Activity::Patrol);
    }

    #[test]
    fn a_doctrine_changes_a_fighters_sight_and_flight_only() {
        let w = Weapon::of(Role::Fighter).unwrap();
        let mut a = Agent::new(1, Some(0), 0x0100_8000, Vec2::new(0.0, -50.0));
        a.max_life = 100;
        a.life = 10;
        a.order = Some(Order::Move(Vec2::new(3.0, 4.0)));
        let far = seen(9, w.radar * 10.0, 0.0, 0.0);
        let p = Perception {
            enemies: vec![far],
            ..Perception::default()
        };
        // The standard doctrine is `decide`: hurt, it flees; healthy, it ignores an
        // enemy beyond radar and obeys its order.
        let standard = Doctrine::default();
        assert_eq!(
            decide_with(&a, &p, Some(&w), &standard),
            decide(&a, &p, Some(&w))
        );
        assert_eq!(decide(&a, &p, Some(&w)).activity, Activity::Flee);
        a.life = 100;
        assert_eq!(decide(&a, &p, Some(&w)).activity, Activity::Move);
        // A long sight and no flight: it closes in on the far enemy, hurt or not.
        let hunt = Doctrine {
            fighter_sight: Some(1.0e6),
            flee_life: 0.0,
            fighter_speed: None,
        };
        for life in [100, 10, 1] {
            a.life = life;
            let d = decide_with(&a, &p, Some(&w), &hunt);
            assert_eq!(
                (d.activity, d.goal, d.target),
                (Activity::Attack, Some(far.at), Some(9))
            );
        }
        // Towers keep their radar; transports never attack.
        let t = Agent::new(2, Some(0), 0x8010_0000, Vec2::ZERO);
        let tw = Weapon::of(Role::Tower).unwrap();
        assert_eq!(
            decide_with(&t, &p, Some(&tw), &hunt).activity,
            Activity::Idle
        );
        let truck = Agent::new(3, Some(0), 0x0100_2000, Vec2::ZERO);
        assert_eq!(
            decide_with(&truck, &p, None, &hunt).activity,
            Activity::Idle
        );
    }

    #[test]
    fn a_hurt_fighter_flees_home_until_it_is_there() {
        let w = Weapon::of(Role::Fighter).unwrap();
        let mut a = Agent::new(1, Some(0), 0x0100_8000, Vec2::new(50.0, 50.0));
        a.max_life = 100;
        a.life = 24;
        let p = Perception {
            at: Vec2::ZERO,
            enemies: vec![seen(2, 5.0, 0.0, 0.0)],
            ..Perception::default()
        };
        let d = decide(&a, &p, Some(&w));
        assert_eq!(
            (d.activity, d.goal),
            (Activity::Flee, Some(Vec2::new(50.0, 50.0)))
        );
        // At home it fights again.
        let home = Perception {
            at: Vec2::new(49.0, 50.0),
            ..p.clone()
        };
        a.activity = Activity::Flee;
        assert_eq!(decide(&a, &home, Some(&w)).activity, Activity::Patrol);
        // At 25 % it does not flee.
        a.life = 25;
        assert_eq!(decide(&a, &p, Some(&w)).activity, Activity::Attack);
    }

    #[test]
    fn a_transport_harvests_then_delivers() {
        let mut a = Agent::new(1, Some(0), 0x0100_2000, Vec2::ZERO);
        a.max_ore = 100.0;
        let mut p = Perception {
            own_mines: vec![seen(5, 30.0, 0.0, 0.5), seen(6, 40.0, 0.0, 50.0)],
            free_mines: vec![seen(7, 10.0, 0.0, 50.0)],
            storages: vec![seen(8, -20.0, 0.0, 0.0)],
            ..Perception::default()
        };
        // Mine 5 holds too little; the clan's mine 6 before the nearer free mine 7.
        let d = decide(&a, &p, None);
        assert_eq!((d.activity, d.target), (Activity::Harvest, Some(6)));
        // Partly loaded: keeps harvesting.
        a.ore = 50.0;
        a.activity = Activity::Harvest;
        assert_eq!(decide(&a, &p, None).activity, Activity::Harvest);
        // Full: delivers to the storage.
        a.ore = 100.0;
        let d = decide(&a, &p, None);
        assert_eq!((d.activity, d.target), (Activity::Deliver, Some(8)));
        // Delivering continues until empty.
        a.ore = 10.0;
        a.activity = Activity::Deliver;
        assert_eq!(decide(&a, &p, None).activity, Activity::Deliver);
        // A full storage is no destination; loaded with no mine and no storage: idle.
        p.storages[0].room = 0.0;
        p.own_mines.clear();
        p.free_mines.clear();
        assert_eq!(decide(&a, &p, None).activity, Activity::Idle);
    }

    #[test]
    fn an_order_outranks_patrol_and_harvest_but_not_attack() {
        let w = Weapon::of(Role::Fighter).unwrap();
        let mut a = Agent::new(1, Some(0), 0x0100_8000, Vec2::ZERO);
        a.order = Some(Order::Move(Vec2::new(3.0, 4.0)));
        let mut p = Perception::default();
        let d = decide(&a, &p, Some(&w));
        assert_eq!(
            (d.activity, d.goal),
            (Activity::Move, Some(Vec2::new(3.0, 4.0)))
        );
        p.enemies = vec![seen(2, 5.0, 0.0, 0.0)];
        assert_eq!(decide(&a, &p, Some(&w)).activity, Activity::Attack);
        let mut t = Agent::new(2, Some(0), 0x0100_2000, Vec2::ZERO);
        t.order = Some(Order::Move(Vec2::ONE));
        t.max_ore = 10.0;
        p.own_mines = vec![seen(5, 1.0, 1.0, 9.0)];
        assert_eq!(decide(&t, &p, None).activity, Activity::Move);
    }

    #[test]
    fn an_attack_order_chases_its_target_beyond_radar_before_nearer_enemies() {
        let w = Weapon::of(Role::Fighter).unwrap();
        let mut a = Agent::new(1, Some(0), 0x0100_8000, Vec2::ZERO);
        a.order = Some(Order::Attack(9));
        let far = seen(9, w.radar * 3.0, 0.0, 0.0);
        let p = Perception {
            enemies: vec![seen(2, 5.0, 0.0, 0.0)],
            ordered: Some(far),
            ..Perception::default()
        };
        let d = decide(&a, &p, Some(&w));
        assert_eq!(
            (d.activity, d.goal, d.target),
            (Activity::Attack, Some(far.at), Some(9))
        );
        // Within CLOSE_IN of the range it stands and fires.
        let near = seen(9, w.range * CLOSE_IN * 0.5, 0.0, 0.0);
        let p = Perception {
            ordered: Some(near),
            ..Perception::default()
        };
        assert_eq!(decide(&a, &p, Some(&w)).goal, None);
        // Fleeing still comes first.
        a.max_life = 100;
        a.life = 10;
        a.home = Vec2::new(100.0, 0.0);
        assert_eq!(decide(&a, &p, Some(&w)).activity, Activity::Flee);
        // Without its target (dead, gone) the order gives nothing: own choices apply.
        let mut b = Agent::new(3, Some(0), 0x0100_8000, Vec2::ZERO);
        b.order = Some(Order::Attack(9));
        let d = decide(&b, &Perception::default(), Some(&w));
        assert_eq!(d.activity, Activity::Patrol);
    }

    #[test]
    fn a_patrol_order_moves_the_ring_centre_and_a_harvest_order_picks_the_mine() {
        let w = Weapon::of(Role::Fighter).unwrap();
        let mut a = Agent::new(1, Some(0), 0x0100_8000, Vec2::ZERO);
        let centre = Vec2::new(50.0, -20.0);
        a.order = Some(Order::Patrol(centre));
        a.patrol_leg = 1;
        let d = decide(&a, &Perception::default(), Some(&w));
        assert_eq!(
            (d.activity, d.goal),
            (Activity::Patrol, Some(patrol_point(centre, 1)))
        );
        // An enemy in radar still comes first.
        let p = Perception {
            enemies: vec![seen(2, 5.0, 0.0, 0.0)],
            ..Perception::default()
        };
        assert_eq!(decide(&a, &p, Some(&w)).activity, Activity::Attack);

        let mut t = Agent::new(2, Some(0), 0x0100_2000, Vec2::ZERO);
        t.max_ore = 10.0;
        t.order = Some(Order::Harvest(7));
        let far_mine = seen(7, 90.0, 0.0, 50.0);
        let mut p = Perception {
            own_mines: vec![seen(5, 1.0, 1.0, 50.0)],
            ordered: Some(far_mine),
            ..Perception::default()
        };
        let d = decide(&t, &p, None);
        assert_eq!(
            (d.activity, d.target, d.goal),
            (Activity::Harvest, Some(7), Some(far_mine.at))
        );
        // An empty ordered mine is no destination: the nearest one with ore is.
        p.ordered = Some(seen(7, 90.0, 0.0, 0.0));
        assert_eq!(decide(&t, &p, None).target, Some(5));
        // Full: it delivers, whatever the order.
        t.ore = 10.0;
        p.storages = vec![seen(8, -5.0, 0.0, 0.0)];
        assert_eq!(decide(&t, &p, None).activity, Activity::Deliver);
    }

    #[test]
    fn a_stuck_unit_replans_after_three_seconds() {
        let mut a = Agent::new(1, Some(0), 0x0100_8000, Vec2::ZERO);
        a.path.set_goal(Some(Vec2::new(50.0, 0.0)));
        a.path.points = vec![Vec2::new(4.0, 0.0)];
        assert!(!a.stuck_check(Vec2::ZERO, 1_000));
        // Moving on: progress is renewed.
        assert!(!a.stuck_check(Vec2::new(2.0, 0.0), 2_000));
        assert!(!a.stuck_check(Vec2::new(2.5, 0.0), 4_999));
        assert!(a.stuck_check(Vec2::new(2.5, 0.0), 5_000));
        assert!(
            a.path.points.is_empty(),
            "the path is dropped: the next steer plans again"
        );
        // Without a path there is nothing to be stuck on.
        assert!(!a.stuck_check(Vec2::new(2.5, 0.0), 9_000));
    }

    #[test]
    fn an_error_state_is_reported_once_and_retried_after_five_seconds() {
        let mut a = Agent::new(1, Some(0), 0x0100_8000, Vec2::ZERO);
        a.path.set_goal(Some(Vec2::new(50.0, 0.0)));
        let rev = a.path.revision;
        assert!(a.enter_error(ErrorState::NonReachable, 1_000));
        assert!(
            !a.enter_error(ErrorState::NonReachable, 2_000),
            "reported once"
        );
        assert_eq!(a.error_since, 1_000);
        assert!(!a.retry(5_999));
        assert!(a.retry(6_000));
        assert_eq!(a.error, None);
        assert_eq!(a.path.goal, Some(Vec2::new(50.0, 0.0)), "the same goal");
        assert_eq!((a.path.replans, a.path.revision), (0, rev));
        // Failing again the same way: not reported again.
        assert!(!a.enter_error(ErrorState::NonReachable, 6_100));
        assert!(
            a.enter_error(ErrorState::PathCycle, 6_200),
            "a new state is"
        );
    }

    #[test]
    fn towers_aim_and_buildings_build_only_with_work() {
        let w = Weapon::of(Role::Tower).unwrap();
        let a = Agent::new(1, Some(0), 0x8010_0000, Vec2::ZERO);
        let p = Perception {
            enemies: vec![seen(2, 5.0, 0.0, 0.0)],
            ..Perception::default()
        };
        let d = decide(&a, &p, Some(&w));
        assert_eq!(
            (d.activity, d.goal, d.target),
            (Activity::Attack, None, Some(2))
        );
        let plant = Agent::new(3, Some(0), 0x8000_0010, Vec2::ZERO);
        assert_eq!(decide(&plant, &p, None).activity, Activity::Idle);
        let busy = Perception {
            producing: true,
            ..Perception::default()
        };
        assert_eq!(decide(&plant, &busy, None).activity, Activity::Build);
        let mut dead = plant.clone();
        dead.activity = Activity::Dead;
        assert_eq!(decide(&dead, &busy, None).activity, Activity::Dead);
    }
}
