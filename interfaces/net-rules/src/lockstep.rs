//! The turn scheduler of one peer (PD-NET-LOCKSTEP, -TURN, -DELAY, -HASH; see the crate
//! docs): which turn runs next, whether every player's orders for it arrived, the turn's
//! records merged in a fixed order, the local player's orders scheduled `delay` turns
//! ahead, and the state hashes compared turn by turn.
//!
//! Everything here is a pure function of the messages received, whatever their timing:
//! two peers that received the same orders run the same turns with the same records.
//! Memory is bounded: orders are taken only for the turns of the window
//! `next ..= next + delay + WINDOW_TURNS`, and turns are forgotten once run.

use crate::MAX_PLAYERS;
use crate::wire::{Orders, TurnHash, WireEvent};
use std::collections::BTreeMap;

/// Turns beyond the scheduling horizon (`next + delay`) orders may arrive for (a peer
/// running that far ahead of this one is refused, not buffered without end).
pub const WINDOW_TURNS: u32 = 64;
/// Turns whose hashes are kept for comparison after they ran.
pub const HASH_TURNS: u32 = 256;

/// How a match runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Ticks per turn (PD-NET-TURN), `1..=60`.
    pub turn_ticks: u32,
    /// Turns between an order and its turn (PD-NET-DELAY), `0..=30`.
    pub delay_turns: u32,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            turn_ticks: crate::DEFAULT_TURN_TICKS,
            delay_turns: crate::DEFAULT_DELAY_TURNS,
        }
    }
}

/// One turn ready to run: for each of its ticks, every player's records of that tick,
/// players ascending, each player's records in the order sent.
#[derive(Clone, Debug, PartialEq)]
pub struct Turn {
    /// The turn's number.
    pub turn: u32,
    /// Its first tick (`turn × turn_ticks`).
    pub first_tick: u64,
    /// `ticks[k]`: the records of tick `first_tick + k`, as `(player, record)`.
    pub ticks: Vec<Vec<(u8, WireEvent)>>,
}

/// Two players' states differ after the same turn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Desync {
    /// The turn.
    pub turn: u32,
    /// The tick the hashes were taken after.
    pub tick: u64,
    /// The players compared (`a < b`) and their hashes.
    pub a: (u8, [u8; 32]),
    /// The other.
    pub b: (u8, [u8; 32]),
}

/// Orders or a hash this peer cannot take.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LockstepError {
    /// From a player not in the match (or one who left before that turn).
    #[error("player {player} is not in the match at turn {turn}")]
    NotInMatch {
        /// Who.
        player: u8,
        /// Which turn.
        turn: u32,
    },
    /// Orders for a turn already run.
    #[error("player {player}'s orders for turn {turn} came after the turn ran")]
    TooLate {
        /// Who.
        player: u8,
        /// Which turn.
        turn: u32,
    },
    /// Orders for a turn beyond the window.
    #[error("player {player}'s orders for turn {turn}: beyond turn {limit}")]
    TooEarly {
        /// Who.
        player: u8,
        /// Which turn.
        turn: u32,
        /// The last turn taken now.
        limit: u32,
    },
    /// A second, different set of orders for the same turn.
    #[error("player {player} sent two different orders for turn {turn}")]
    Conflicting {
        /// Who.
        player: u8,
        /// Which turn.
        turn: u32,
    },
    /// A record for a tick the turn does not have.
    #[error("player {player}'s orders for turn {turn}: tick {tick} of a {ticks}-tick turn")]
    BadTick {
        /// Who.
        player: u8,
        /// Which turn.
        turn: u32,
        /// The tick within the turn.
        tick: u8,
        /// Ticks per turn.
        ticks: u32,
    },
}

/// The turns a player plays: ascending, disjoint spans `[from, until)` (`until` `None`:
/// on and on). A player who left has one that ends; one who came back has a second
/// that begins at the turn the host named — the first still covers the turns before
/// the one they left from, which a peer behind the others may not have run yet.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Span(Vec<(u32, Option<u32>)>);

impl Span {
    fn always() -> Self {
        Self(vec![(0, None)])
    }

    fn covers(&self, turn: u32) -> bool {
        self.0
            .iter()
            .any(|&(from, until)| from <= turn && until.is_none_or(|u| turn < u))
    }

    /// Left and not back.
    fn gone(&self) -> bool {
        self.0.last().is_none_or(|s| s.1.is_some())
    }

    /// The turn the player left from (the end of the last span), when gone.
    fn left_at(&self) -> Option<u32> {
        match self.0.last() {
            Some(&(_, until)) => until,
            None => Some(0),
        }
    }

    /// No turn from `turn` on.
    fn leave(&mut self, turn: u32) {
        for s in &mut self.0 {
            s.1 = Some(s.1.map_or(turn, |u| u.min(turn)));
        }
        self.0.retain(|s| s.1.is_none_or(|u| s.0 < u));
    }

    /// Every turn from `turn` on too (a player not gone is unchanged); spans that ended
    /// by `next` (the next turn to run) are forgotten.
    fn rejoin(&mut self, turn: u32, next: u32) {
        if !self.gone() {
            return;
        }
        self.0.retain(|s| s.1.is_none_or(|u| u > next));
        match self.0.last_mut() {
            Some(last) if last.1.is_none_or(|u| u >= turn) => last.1 = None,
            _ => self.0.push((turn, None)),
        }
    }
}

/// The scheduler of one peer.
#[derive(Clone, Debug)]
pub struct Lockstep {
    config: Config,
    local: u8,
    /// Players of the match and the turns each plays.
    players: BTreeMap<u8, Span>,
    /// Orders by turn, then player.
    orders: BTreeMap<u32, BTreeMap<u8, Vec<(u8, WireEvent)>>>,
    /// The next turn to run.
    next: u32,
    /// Hashes by turn, then player: `(tick, hash)`.
    hashes: BTreeMap<u32, BTreeMap<u8, (u64, [u8; 32])>>,
    /// The first desync seen.
    desync: Option<Desync>,
}

impl Lockstep {
    /// The scheduler of player `local` in a match of `players` (at most
    /// [`MAX_PLAYERS`]; `local` among them), at turn 0.
    pub fn new(config: Config, local: u8, players: &[u8]) -> Self {
        let mut map: BTreeMap<u8, Span> = players
            .iter()
            .take(MAX_PLAYERS)
            .map(|&p| (p, Span::always()))
            .collect();
        map.entry(local).or_insert_with(Span::always);
        Self {
            config,
            local,
            players: map,
            orders: BTreeMap::new(),
            next: 0,
            hashes: BTreeMap::new(),
            desync: None,
        }
    }

    /// The scheduler of a player who rejoins a match running at turn `next`
    /// (PD-NET-REJOIN): the others play on, this player's orders count from turn
    /// `from` (its first advance schedules them there: `from = next + delay`).
    pub fn rejoining(config: Config, local: u8, players: &[u8], next: u32, from: u32) -> Self {
        let mut ls = Self::new(config, local, players);
        ls.next = next;
        if let Some(span) = ls.players.get_mut(&local) {
            *span = Span(vec![(from, None)]);
        }
        ls
    }

    /// The match's configuration.
    pub fn config(&self) -> Config {
        self.config
    }

    /// The local player.
    pub fn local(&self) -> u8 {
        self.local
    }

    /// The next turn to run.
    pub fn next_turn(&self) -> u32 {
        self.next
    }

    /// The players still in the match at the next turn, ascending.
    pub fn playing(&self) -> Vec<u8> {
        self.players
            .iter()
            .filter(|(_, span)| span.covers(self.next))
            .map(|(&p, _)| p)
            .collect()
    }

    /// Whether `player` plays in `turn`.
    fn plays(&self, player: u8, turn: u32) -> bool {
        self.players
            .get(&player)
            .is_some_and(|span| span.covers(turn))
    }

    /// The players whose orders for the next turn have not arrived (empty: it may run).
    /// The first `delay` turns wait for nobody.
    pub fn waiting_for(&self) -> Vec<u8> {
        if self.next < self.config.delay_turns {
            return Vec::new();
        }
        let got = self.orders.get(&self.next);
        self.players
            .keys()
            .copied()
            .filter(|&p| self.plays(p, self.next))
            .filter(|p| !got.is_some_and(|g| g.contains_key(p)))
            .collect()
    }

    /// Whether the next turn may run.
    pub fn ready(&self) -> bool {
        self.waiting_for().is_empty()
    }

    /// Takes orders (the local player's own too, as [`Lockstep::advance`] made them): a
    /// copy of orders already held is ignored.
    pub fn receive(&mut self, o: &Orders) -> Result<(), LockstepError> {
        let (player, turn) = (o.player, o.turn);
        if !self.plays(player, turn) {
            return Err(LockstepError::NotInMatch { player, turn });
        }
        if let Some(&(tick, _)) = o
            .events
            .iter()
            .find(|(t, _)| u32::from(*t) >= self.config.turn_ticks)
        {
            return Err(LockstepError::BadTick {
                player,
                turn,
                tick,
                ticks: self.config.turn_ticks,
            });
        }
        if turn < self.next {
            // The channel delivers each message once: orders for a turn that ran came
            // too late (the peer that sent them ran it without them: a desync follows).
            return Err(LockstepError::TooLate { player, turn });
        }
        let limit = self.next + self.config.delay_turns + WINDOW_TURNS;
        if turn > limit {
            return Err(LockstepError::TooEarly {
                player,
                turn,
                limit,
            });
        }
        let slot = self.orders.entry(turn).or_default();
        match slot.get(&player) {
            Some(held) if *held == o.events => Ok(()),
            Some(_) => Err(LockstepError::Conflicting { player, turn }),
            None => {
                slot.insert(player, o.events.clone());
                Ok(())
            }
        }
    }

    /// Runs the scheduler one turn on, if the next turn is ready: returns that turn's
    /// records to simulate and the local player's orders — `gathered` (the records of
    /// its seat since the last turn, with their tick within a turn) — for turn
    /// `next + delay`, to send to everyone (they are already held here). `None`: still
    /// waiting (nothing changed; `gathered` is the caller's to keep).
    pub fn advance(&mut self, gathered: &[(u8, WireEvent)]) -> Option<(Turn, Orders)> {
        if !self.ready() {
            return None;
        }
        let turn = self.next;
        let n = self.config.turn_ticks as usize;
        let mut ticks: Vec<Vec<(u8, WireEvent)>> = vec![Vec::new(); n];
        if let Some(by_player) = self.orders.remove(&turn) {
            for (player, events) in by_player {
                if !self.plays(player, turn) {
                    continue;
                }
                for (t, e) in events {
                    if let Some(tick) = ticks.get_mut(usize::from(t)) {
                        tick.push((player, e));
                    }
                }
            }
        }
        let mine = Orders {
            turn: turn + self.config.delay_turns,
            player: self.local,
            events: {
                let mut e: Vec<(u8, WireEvent)> = gathered
                    .iter()
                    .map(|&(t, e)| (t.min((n - 1) as u8), e))
                    .collect();
                e.sort_by_key(|x| x.0);
                e
            },
        };
        self.orders
            .entry(mine.turn)
            .or_default()
            .insert(self.local, mine.events.clone());
        self.next += 1;
        // Hashes of turns long past are compared or never will be.
        let keep_from = self.next.saturating_sub(HASH_TURNS);
        self.hashes = self.hashes.split_off(&keep_from);
        Some((
            Turn {
                turn,
                first_tick: u64::from(turn) * u64::from(self.config.turn_ticks),
                ticks,
            },
            mine,
        ))
    }

    /// The local player's hash after running `turn` (the message to send); compared
    /// with the others' hashes of that turn already here.
    /// The second value is the match's first desync when this hash shows it (as
    /// [`Lockstep::receive_hash`] does for another player's).
    pub fn local_hash(
        &mut self,
        turn: u32,
        tick: u64,
        hash: [u8; 32],
    ) -> (TurnHash, Option<Desync>) {
        let h = TurnHash {
            turn,
            player: self.local,
            tick,
            hash,
        };
        let before = self.desync.is_some();
        self.note_hash(&h);
        let seen = if before { None } else { self.desync.clone() };
        (h, seen)
    }

    /// Takes another player's hash; returns the first desync of the match when this
    /// hash shows it (once: later differences are its consequences).
    pub fn receive_hash(&mut self, h: &TurnHash) -> Result<Option<Desync>, LockstepError> {
        if !self.players.contains_key(&h.player) {
            return Err(LockstepError::NotInMatch {
                player: h.player,
                turn: h.turn,
            });
        }
        if h.turn.saturating_add(HASH_TURNS) < self.next {
            return Ok(None);
        }
        let before = self.desync.is_some();
        self.note_hash(h);
        Ok(if before { None } else { self.desync.clone() })
    }

    fn note_hash(&mut self, h: &TurnHash) {
        let slot = self.hashes.entry(h.turn).or_default();
        slot.insert(h.player, (h.tick, h.hash));
        if self.desync.is_some() {
            return;
        }
        let mut it = slot.iter();
        if let Some((&p0, &(tick, h0))) = it.next() {
            if let Some((&p1, &(_, h1))) = it.find(|(_, v)| v.1 != h0) {
                self.desync = Some(Desync {
                    turn: h.turn,
                    tick,
                    a: (p0, h0),
                    b: (p1, h1),
                });
            }
        }
    }

    /// The first desync of the match, once one was seen.
    pub fn desync(&self) -> Option<&Desync> {
        self.desync.as_ref()
    }

    /// `player` left: turns from `from_turn` on neither wait for nor run their orders
    /// (the host chooses `from_turn` past every turn it relayed orders of theirs for, so
    /// every peer runs the same turns with them). Their later orders are dropped.
    pub fn player_left(&mut self, player: u8, from_turn: u32) {
        if let Some(span) = self.players.get_mut(&player) {
            span.leave(from_turn);
        }
        for (_, by_player) in self.orders.range_mut(from_turn..) {
            by_player.remove(&player);
        }
    }

    /// `player`, who left, plays again from `from_turn` on (PD-NET-REJOIN: the host
    /// chooses it past every turn already scheduled); the turns before the one they left
    /// from still run their orders here (a peer behind the host may not have run them
    /// yet). A player who never left, or who is not of the match, is unchanged.
    pub fn player_rejoined(&mut self, player: u8, from_turn: u32) {
        let next = self.next;
        if let Some(span) = self.players.get_mut(&player) {
            span.rejoin(from_turn, next);
        }
    }

    /// The first turn from which no player who left has orders left to run (every gone
    /// player's last turn is before it); the next turn when nobody is gone. A host
    /// snapshots a rejoin only from there (PD-NET-REJOIN), so the rejoining peer, which
    /// knows only who is gone, runs the same turns as everyone else.
    pub fn settled_from(&self) -> u32 {
        self.players
            .values()
            .filter_map(Span::left_at)
            .fold(self.next, u32::max)
    }

    /// The players who left and are not back, ascending.
    pub fn gone(&self) -> Vec<u8> {
        self.players
            .iter()
            .filter(|(_, span)| span.gone())
            .map(|(&p, _)| p)
            .collect()
    }

    /// The players of the match (whether or not they play now), ascending.
    pub fn players(&self) -> Vec<u8> {
        self.players.keys().copied().collect()
    }

    /// Every player's orders held for turns from `from` on, turns then players
    /// ascending (what a rejoining player needs besides the snapshot).
    pub fn held_orders(&self, from: u32) -> Vec<Orders> {
        self.orders
            .range(from..)
            .flat_map(|(&turn, by_player)| {
                by_player.iter().map(move |(&player, events)| Orders {
                    turn,
                    player,
                    events: events.clone(),
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]
    use super::*;

    fn key(code: u32) -> WireEvent {
        WireEvent::Key { code, down: true }
    }

    fn cfg() -> Config {
        Config {
            turn_ticks: 3,
            delay_turns: 2,
        }
    }

    /// The first `delay` turns wait for nobody; then a turn waits for every player's
    /// orders, and runs them merged tick by tick in player order.
    #[test]
    fn a_turn_waits_for_every_player_and_merges_in_player_order() {
        let mut a = Lockstep::new(cfg(), 0, &[0, 1]);
        let (t0, o0) = a.advance(&[(1, key(10))]).unwrap();
        assert_eq!(t0.ticks, vec![vec![]; 3]);
        assert_eq!((o0.turn, o0.player), (2, 0));
        let (_, o1) = a.advance(&[]).unwrap();
        assert_eq!(o1.turn, 3);
        assert_eq!(a.waiting_for(), [1], "turn 2 waits for player 1");
        assert!(a.advance(&[]).is_none());
        a.receive(&Orders {
            turn: 2,
            player: 1,
            events: vec![(0, key(20)), (1, key(21))],
        })
        .unwrap();
        let (t2, _) = a.advance(&[]).unwrap();
        assert_eq!(t2.first_tick, 6);
        assert_eq!(
            t2.ticks,
            [vec![(1, key(20))], vec![(0, key(10)), (1, key(21))], vec![]]
        );
    }

    #[test]
    fn duplicates_are_ignored_conflicts_late_early_and_strangers_refused() {
        let mut a = Lockstep::new(cfg(), 0, &[0, 1]);
        let o = Orders {
            turn: 2,
            player: 1,
            events: vec![(0, key(1))],
        };
        a.receive(&o).unwrap();
        a.receive(&o).unwrap();
        let mut other = o.clone();
        other.events.clear();
        assert_eq!(
            a.receive(&other),
            Err(LockstepError::Conflicting { player: 1, turn: 2 })
        );
        let stranger = Orders {
            player: 5,
            ..o.clone()
        };
        assert_eq!(
            a.receive(&stranger),
            Err(LockstepError::NotInMatch { player: 5, turn: 2 })
        );
        let bad = Orders {
            events: vec![(3, key(1))],
            turn: 3,
            ..o.clone()
        };
        assert!(matches!(
            a.receive(&bad),
            Err(LockstepError::BadTick { tick: 3, .. })
        ));
        let far = Orders {
            turn: 2 + WINDOW_TURNS + 1,
            ..o.clone()
        };
        assert!(matches!(
            a.receive(&far),
            Err(LockstepError::TooEarly { .. })
        ));
        for _ in 0..3 {
            a.advance(&[]).unwrap();
        }
        assert_eq!(
            a.receive(&Orders { turn: 0, ..o }),
            Err(LockstepError::TooLate { player: 1, turn: 0 })
        );
    }

    /// PD-NET-HASH: the first differing hash of a turn is the desync, reported once.
    #[test]
    fn the_first_differing_hash_is_the_desync() {
        let mut a = Lockstep::new(cfg(), 0, &[0, 1, 2]);
        assert_eq!(a.local_hash(0, 2, [1; 32]).1, None);
        let h = |player, turn, hash| TurnHash {
            turn,
            player,
            tick: u64::from(turn) * 3 + 2,
            hash,
        };
        assert_eq!(a.receive_hash(&h(1, 0, [1; 32])), Ok(None));
        let d = a.receive_hash(&h(2, 0, [9; 32])).unwrap().unwrap();
        assert_eq!((d.turn, d.tick, d.a.0, d.b.0), (0, 2, 0, 2));
        assert_eq!(a.receive_hash(&h(1, 1, [7; 32])), Ok(None), "reported once");
        assert_eq!(a.desync().unwrap().turn, 0);
    }

    /// FORMATS §13.15 "a duplicate create-mirror never makes a second instance", in
    /// lockstep: orders received twice (a duplicated datagram, a relay sent twice) run
    /// once, and a copy replayed after its turn ran is refused, never run again.
    #[test]
    fn a_duplicated_or_replayed_order_runs_once() {
        let mut a = Lockstep::new(cfg(), 0, &[0, 1]);
        let o = Orders {
            turn: 2,
            player: 1,
            events: vec![(1, key(7))],
        };
        for _ in 0..3 {
            a.receive(&o).unwrap();
        }
        a.advance(&[]).unwrap();
        a.advance(&[]).unwrap();
        let (t2, _) = a.advance(&[]).unwrap();
        assert_eq!(t2.ticks, [vec![], vec![(1, key(7))], vec![]]);
        assert_eq!(
            a.receive(&o),
            Err(LockstepError::TooLate { player: 1, turn: 2 })
        );
        a.receive(&Orders {
            turn: 3,
            player: 1,
            events: vec![],
        })
        .unwrap();
        let (t3, _) = a.advance(&[]).unwrap();
        assert!(t3.ticks.iter().all(Vec::is_empty), "{t3:?}");
    }

    /// FORMATS §13.15 "sequence and end markers in a stable order" (and "replaying a
    /// message log gives the same state"): whatever order the orders arrive in — turn
    /// by turn as they are due, or all at once backwards — the turns run in sequence,
    /// each with the same records in the same order.
    #[test]
    fn turns_run_in_sequence_whatever_order_the_orders_arrive_in() {
        let all: Vec<Orders> = (2..12u32)
            .flat_map(|turn| {
                (1..4u8).map(move |player| Orders {
                    turn,
                    player,
                    events: vec![
                        (0, key(turn * 10 + u32::from(player))),
                        (2, key(turn * 100 + u32::from(player))),
                    ],
                })
            })
            .collect();
        let run = |order: &[usize], ahead: bool| -> Vec<Turn> {
            let mut ls = Lockstep::new(cfg(), 0, &[0, 1, 2, 3]);
            let mut turns = Vec::new();
            let mut fed = order.iter().peekable();
            while turns.len() < 12 {
                if let Some((t, _)) = ls.advance(&[(1, key(1000 + ls.next_turn()))]) {
                    turns.push(t);
                    continue;
                }
                // Not ready: the next orders arrive (all of them at once when `ahead`).
                let n = if ahead { all.len() } else { 1 };
                for _ in 0..n {
                    if let Some(&&k) = fed.peek() {
                        ls.receive(&all[k]).unwrap();
                        fed.next();
                    }
                }
            }
            turns
        };
        let forward: Vec<usize> = (0..all.len()).collect();
        let mut backward = forward.clone();
        backward.reverse();
        // A fixed shuffle: players of a turn interleaved with later turns.
        let mut shuffled = forward.clone();
        for k in 0..shuffled.len() {
            shuffled.swap(k, (k * 7 + 3) % all.len());
        }
        let a = run(&forward, false);
        assert_eq!(
            a.iter().map(|t| t.turn).collect::<Vec<_>>(),
            (0..12).collect::<Vec<u32>>()
        );
        assert_eq!(a[2].ticks[0], [(1, key(21)), (2, key(22)), (3, key(23))]);
        assert_eq!(a[2].ticks[1], [(0, key(1000))], "the local order of turn 0");
        assert_eq!(run(&backward, true), a);
        assert_eq!(run(&shuffled, true), a);
    }

    /// FORMATS §13.15 "an ownership change updates routing atomically", in lockstep:
    /// whose orders a turn runs changes at one turn for every peer — a player who left
    /// at turn 3 and is back at turn 6 is waited for and run up to turn 2 and from turn
    /// 6 on, never in between, whatever arrives.
    #[test]
    fn who_plays_changes_at_one_turn() {
        let mut a = Lockstep::new(cfg(), 0, &[0, 1]);
        let o = |turn| Orders {
            turn,
            player: 1,
            events: vec![(0, key(turn))],
        };
        a.receive(&o(2)).unwrap();
        a.player_left(1, 3);
        a.player_rejoined(1, 6);
        for turn in 3..6 {
            assert_eq!(
                a.receive(&o(turn)),
                Err(LockstepError::NotInMatch { player: 1, turn })
            );
        }
        let mut ran = Vec::new();
        for _ in 0..6 {
            let (t, _) = a.advance(&[]).unwrap();
            ran.push(t.ticks[0].clone());
        }
        assert_eq!(ran[2], [(1, key(2))], "turn 2 still runs their orders");
        assert!(ran[3..].iter().all(Vec::is_empty), "{ran:?}");
        assert_eq!(a.waiting_for(), [1], "turn 6 waits for them again");
        a.receive(&o(6)).unwrap();
        let (t6, _) = a.advance(&[]).unwrap();
        assert_eq!(t6.ticks[0], [(1, key(6))]);
    }

    /// A player who left is not waited for from the turn the host names; their orders
    /// for earlier turns still run, later ones are dropped.
    #[test]
    fn a_player_who_left_is_not_waited_for() {
        let mut a = Lockstep::new(cfg(), 0, &[0, 1]);
        a.advance(&[]).unwrap();
        a.advance(&[]).unwrap();
        let o = |turn| Orders {
            turn,
            player: 1,
            events: vec![(0, key(turn))],
        };
        a.receive(&o(2)).unwrap();
        a.receive(&o(3)).unwrap();
        a.player_left(1, 3);
        let (t2, _) = a.advance(&[]).unwrap();
        assert_eq!(t2.ticks[0], [(1, key(2))]);
        let (t3, _) = a.advance(&[]).unwrap();
        assert!(t3.ticks[0].is_empty(), "dropped from turn 3");
        assert_eq!(a.playing(), [0]);
        assert!(a.receive(&o(6)).is_err());
    }
}
