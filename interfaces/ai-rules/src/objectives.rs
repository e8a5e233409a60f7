//! Mission objectives (`Objectives.txt`, parsed by [`iron3d_config::objectives`]) checked
//! against the world and reported through the outcome callback of §13.11
//! ([`crate::superai::OutcomeLatch`]).
//!
//! **PD-AI-OUTCOME**: objectives are checked on every economy step (500 ms of game
//! time); when a `lose` and a `win` are met in the same check, the mission is lost. The
//! first outcome sticks (a repeated state is a no-op, §13.11).
//!
//! **PD-AI-OBJECTIVE-MESSAGES**: the first time goal `N` (1-based, in file order) is met,
//! the plugin broadcasts `GMSG_TEXT_FOR_PLAYER` with the objectives' clan as `player`
//! and `Objective<N>` as text — the name of the `messages.cfg` block the HUD shows
//! (PD-HUD-TRIGGERED), the way the original's scripts trigger their messages.

pub use iron3d_config::objectives::{Goal, MAX_OBJECTIVES, OBJECTIVES_FILE, Objectives, Side};
use serde::{Deserialize, Serialize};

/// What the checker needs to know of the world.
pub trait Scoreboard {
    /// Objects of clan `clan` with life left.
    fn alive(&self, clan: u32) -> usize;
    /// Ore clan `clan` unloaded into storages so far.
    fn gathered(&self, clan: u32) -> f32;
    /// Whether clan `clan` holds the circle now: one of its units inside, no enemy unit.
    fn holds(&self, clan: u32, x: f32, y: f32, r: f32) -> bool;
    /// Game seconds since the mission started.
    fn seconds(&self) -> f32;
}

/// Progress of the objectives (the `hold` timers), saved with the plugin.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    /// Seconds each goal has been held without a break (by goal index).
    pub held: Vec<f32>,
    /// Whether each goal was met at the last check (by goal index).
    pub met: Vec<bool>,
    /// Whether each goal's message was sent (PD-AI-OBJECTIVE-MESSAGES).
    pub announced: Vec<bool>,
}

/// The `messages.cfg` block announcing goal `index` (0-based): `Objective<index + 1>`.
pub fn objective_message(index: usize) -> String {
    format!("Objective{}", index + 1)
}

impl Progress {
    /// One check `dt` seconds after the last (PD-AI-OUTCOME): `Some(Side)` when the
    /// mission is decided.
    pub fn check(&mut self, o: &Objectives, board: &dyn Scoreboard, dt: f32) -> Option<Side> {
        self.held.resize(o.goals.len(), 0.0);
        self.met.resize(o.goals.len(), false);
        let (mut win, mut lose) = (false, false);
        for (i, (side, goal)) in o.goals.iter().enumerate() {
            let met = match *goal {
                Goal::Destroy(c) => board.alive(c) == 0,
                Goal::Gather(n) => board.gathered(o.clan) >= n,
                Goal::Hold { x, y, r, seconds } => {
                    if board.holds(o.clan, x, y, r) {
                        self.held[i] += dt;
                    } else {
                        self.held[i] = 0.0;
                    }
                    self.held[i] >= seconds
                }
                Goal::Survive(s) | Goal::Time(s) => board.seconds() >= s,
                Goal::Destroyed => board.alive(o.clan) == 0,
                Goal::Gathered { clan, amount } => board.gathered(clan) >= amount,
            };
            self.met[i] = met;
            match side {
                Side::Win => win |= met,
                Side::Lose => lose |= met,
            }
        }
        if lose {
            Some(Side::Lose)
        } else if win {
            Some(Side::Win)
        } else {
            None
        }
    }

    /// The goals met at the last check and not announced before, in goal order; they
    /// count as announced from now on (PD-AI-OBJECTIVE-MESSAGES).
    pub fn newly_met(&mut self) -> Vec<usize> {
        self.announced.resize(self.met.len(), false);
        let mut out = Vec::new();
        for (i, (&met, announced)) in self.met.iter().zip(&mut self.announced).enumerate() {
            if met && !*announced {
                *announced = true;
                out.push(i);
            }
        }
        out
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const TEXT: &[u8] = iron3d_config::objectives::EXAMPLE;

    struct Board {
        alive: [usize; 2],
        gathered: f32,
        rival: f32,
        holds: bool,
        seconds: f32,
    }

    impl Scoreboard for Board {
        fn alive(&self, clan: u32) -> usize {
            self.alive[clan as usize]
        }
        fn gathered(&self, clan: u32) -> f32 {
            if clan == 0 { self.gathered } else { self.rival }
        }
        fn holds(&self, _clan: u32, _x: f32, _y: f32, _r: f32) -> bool {
            self.holds
        }
        fn seconds(&self) -> f32 {
            self.seconds
        }
    }

    #[test]
    fn lose_outranks_win_and_hold_needs_an_unbroken_stretch() {
        let o = Objectives::parse(TEXT, "o").unwrap();
        let mut p = Progress::default();
        let mut b = Board {
            alive: [5, 3],
            gathered: 0.0,
            rival: 0.0,
            holds: true,
            seconds: 10.0,
        };
        assert_eq!(p.check(&o, &b, 0.5), None);
        b.alive = [0, 0];
        assert_eq!(p.check(&o, &b, 0.5), Some(Side::Lose), "both met: lost");
        b.alive = [1, 0];
        assert_eq!(p.check(&o, &b, 0.5), Some(Side::Win));
        // The rival's race: clan 1 gathered first.
        b.alive = [1, 1];
        b.rival = 800.0;
        assert_eq!(p.check(&o, &b, 0.5), Some(Side::Lose));
        b.rival = 0.0;
        b.gathered = 500.0;
        assert_eq!(p.check(&o, &b, 0.5), Some(Side::Win));
        // Hold: 30 s unbroken.
        let hold = Objectives::parse(b"clan 0\nwin hold 0 0 5 2\n", "o").unwrap();
        let mut p = Progress::default();
        b.alive = [1, 1];
        for _ in 0..3 {
            assert_eq!(p.check(&hold, &b, 0.5), None);
        }
        b.holds = false;
        assert_eq!(p.check(&hold, &b, 0.5), None);
        b.holds = true;
        for _ in 0..3 {
            assert_eq!(p.check(&hold, &b, 0.5), None);
        }
        assert_eq!(p.check(&hold, &b, 0.5), Some(Side::Win));
    }

    #[test]
    fn each_goal_is_announced_once_the_first_time_it_is_met() {
        let o = Objectives::parse(
            b"clan 0\nwin hold 0 0 5 1\nlose time 60\nwin gather 100\n",
            "o",
        )
        .unwrap();
        let mut p = Progress::default();
        let mut b = Board {
            alive: [1, 1],
            gathered: 0.0,
            rival: 0.0,
            holds: true,
            seconds: 0.0,
        };
        p.check(&o, &b, 0.5);
        assert!(p.newly_met().is_empty());
        p.check(&o, &b, 0.6);
        assert_eq!(p.newly_met(), vec![0], "held 1.1 s");
        // Broken and met again: announced once only.
        b.holds = false;
        p.check(&o, &b, 0.5);
        b.holds = true;
        p.check(&o, &b, 1.5);
        assert!(p.newly_met().is_empty());
        b.gathered = 100.0;
        b.seconds = 60.0;
        p.check(&o, &b, 0.5);
        assert_eq!(p.newly_met(), vec![1, 2], "goal order");
        assert_eq!(objective_message(1), "Objective2");
    }
}
