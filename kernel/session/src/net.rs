//! The engine's side of a match (interface 2.14, PD-NET-LOCKSTEP): [`NetDriver`] is the
//! kernel's input source while a net plugin runs the match. Once per presented frame
//! the caller hands it the local seat's records ([`NetDriver::exchange`]); the ticks the
//! net plugin reports final wait here, in order, and the kernel runs exactly those —
//! [`NetDriver::budget`] is the frame's tick budget, which also stops the frame right
//! after a tick whose state hash the plugin asked for, so [`NetDriver::after_frame`]
//! takes that hash between ticks. A tick without its input never runs.
//!
//! **Desync reports** (PD-NET-SYNC-REPORT): with every hash the driver keeps a state
//! summary ([`crate::sync::SyncReport`]) of the last turns, and the records of the last
//! [`KEPT_RECORD_TICKS`] ticks it ran. When the plugin reports a desync the driver
//! writes `desync-tick<T>-player<P>.txt` into its report folder — the tick, the
//! players' hashes, the orders of the ticks before — sends its summary of that tick to
//! the other peers, and adds to the file what differs from each summary that comes
//! back: the system whose state differs, the first object and its fields.
//!
//! **A player who leaves** (**PD-NET-LEFT**): their clan stays with the AI, as every
//! clan is (the seat only adds orders), and their seat keeps its selection; from the
//! tick they leave every key of their band the kernel holds goes up and every axis of
//! it goes to 0 — computed from the kernel's input state, which every peer shares
//! (a rejoined peer's comes with its snapshot), so nothing they held keeps acting and
//! all peers release the same.

use crate::SessionError;
use crate::sync::{KEPT_TICKS, SyncReport, summary};
use iron3d_abi::abi_stable::std_types::{RString, RVec};
use iron3d_abi::{
    InputRecord, InputRecordKind, NetEvent, NetFrame, NetHash, NetReport, NetReservation, NetStart,
    NetState, NetTick,
};
use iron3d_kernel::{InputEvent, InputSource, Kernel, ManualCommandKind};
use iron3d_plugin_host::PluginHost;
use std::collections::{BTreeSet, VecDeque};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The ticks whose records a desync report lists.
pub const KEPT_RECORD_TICKS: usize = 30;

/// The most ticks waiting here (a plugin that reports more is in error: the engine
/// runs ticks as fast as its clock allows, and the plugin runs turns at that pace).
pub const MAX_PENDING_TICKS: usize = 65_536;

/// What the caller hands one exchange besides the clock.
#[derive(Clone, Debug, Default)]
pub struct Outgoing {
    /// The local seat's records since the last exchange (player 0's codes).
    pub local: Vec<InputRecord>,
    /// Host and server: end the match (PD-NET-END).
    pub end: bool,
    /// A chat line and whom to (`None`: everyone).
    pub say: Option<(Option<u8>, String)>,
    /// Host and server: the snapshot a rejoin waits for — the save of the state after
    /// the tick ([`iron3d_abi::NetEventKind::SNAPSHOT_WANTED`]).
    pub snapshot: Option<(u64, Vec<u8>)>,
}

/// The kernel's input source during a match.
#[derive(Debug, Default)]
pub struct NetDriver {
    pending: VecDeque<NetTick>,
    hashes: Vec<NetHash>,
    state: Option<NetState>,
    player: u32,
    waiting_for: Vec<u32>,
    reservation: Option<NetReservation>,
    /// Ticks the plugin reported that did not follow the ones before (refused).
    out_of_order: u64,
    /// State summaries after the last turns.
    summaries: VecDeque<SyncReport>,
    /// The records of the last ticks run.
    ran: VecDeque<(u64, Vec<InputRecord>)>,
    /// Where desync reports go (`None`: none written).
    report_dir: Option<PathBuf>,
    /// The desync being reported.
    desync: Option<DesyncFile>,
    /// A summary to send with the next exchange.
    outgoing: Option<(u64, Vec<u8>)>,
    /// Lines for the shell to show.
    notes: Vec<String>,
    /// Rejoining: the snapshot to restore before the next tick.
    snapshot: Option<iron3d_abi::NetSnapshot>,
    /// PD-NET-LEFT: the players leaving, by the first tick without them.
    leaves: std::collections::BTreeMap<u64, Vec<u32>>,
    /// PD-NET-LEFT: the releases to run first in a tick.
    releases: std::collections::BTreeMap<u64, Vec<InputEvent>>,
}

/// The report of the match's first desync, as far as it got.
#[derive(Debug)]
struct DesyncFile {
    tick: u64,
    path: PathBuf,
    text: String,
    /// The players whose summaries were compared.
    compared: BTreeSet<u32>,
}

/// The kernel's input record for a record of the net plugin (`None`: one the kernel
/// does not take, left out as the input plugin's would be).
pub fn input_event(r: &InputRecord) -> Option<InputEvent> {
    iron3d_plugin_host::input::input_events(std::slice::from_ref(r))
        .into_iter()
        .next()
}

/// The net plugin's form of a kernel input event (the inverse of [`input_event`]).
pub fn input_record(e: &InputEvent) -> InputRecord {
    match *e {
        InputEvent::Key { code, down } => InputRecord::key(code, down),
        InputEvent::Axis { axis, value } => InputRecord::axis(axis, value),
        InputEvent::Manual { kind, value } => InputRecord {
            kind: InputRecordKind::MANUAL,
            code: match kind {
                ManualCommandKind::State => 0,
                ManualCommandKind::AngleX => 1,
                ManualCommandKind::AngleY => 2,
            },
            value: 0.0,
            arg: value,
        },
        InputEvent::Command { code, arg } => InputRecord::command(code, arg),
    }
}

fn net_error(what: &'static str, source: iron3d_abi::PluginError) -> SessionError {
    SessionError::Net { what, source }
}

impl NetDriver {
    /// Starts the net plugin of `host` for this peer's part (see
    /// [`iron3d_abi::NetStart`]).
    ///
    /// # Errors
    /// No net plugin, or the plugin refused the start (an address it cannot bind).
    pub fn start(host: &PluginHost, start: &NetStart) -> Result<Self, SessionError> {
        host.net_start(start)
            .map_err(|e| net_error("the net plugin did not start", e))?;
        Ok(Self::default())
    }

    /// Writes desync reports into `dir` (created when the first one is written).
    pub fn with_reports(mut self, dir: &Path) -> Self {
        self.report_dir = Some(dir.to_owned());
        self
    }

    /// One exchange with the net plugin at `now_ns` (the platform clock), after the
    /// kernel ran `tick`: the ticks it reports final join those waiting; returns its
    /// events.
    ///
    /// # Errors
    /// The plugin failed (a panic rolls it back at its next boundary).
    pub fn exchange(
        &mut self,
        host: &PluginHost,
        now_ns: u64,
        tick: u64,
        out: Outgoing,
    ) -> Result<Vec<NetEvent>, SessionError> {
        let (say_to, say) = match out.say {
            Some((to, text)) => (to.map_or(-1, i32::from), text),
            None => (-1, String::new()),
        };
        let (report_tick, report) = self.outgoing.take().unwrap_or_default();
        let (snapshot_tick, snapshot) = out.snapshot.unwrap_or_default();
        let frame = NetFrame {
            now_ns,
            tick,
            end: out.end,
            local: RVec::from(out.local),
            hashes: RVec::from(std::mem::take(&mut self.hashes)),
            say: RString::from(say),
            say_to,
            report: RVec::from(report),
            report_tick,
            snapshot: RVec::from(snapshot),
            snapshot_tick,
        };
        let report: NetReport = host
            .net_exchange(&frame)
            .map_err(|e| net_error("net exchange", e))?;
        let mut next = self
            .pending
            .back()
            .map_or(tick, |t| t.tick)
            .saturating_add(1);
        for t in report.ticks {
            if t.tick != next || self.pending.len() >= MAX_PENDING_TICKS {
                self.out_of_order += 1;
                continue;
            }
            next += 1;
            self.pending.push_back(t);
        }
        self.state = Some(report.state);
        self.player = report.player;
        self.waiting_for = report.waiting_for.to_vec();
        if let iron3d_abi::abi_stable::std_types::ROption::RSome(r) = report.reservation {
            self.reservation = Some(r);
        }
        if let iron3d_abi::abi_stable::std_types::ROption::RSome(s) = report.snapshot {
            self.snapshot = Some(s);
        }
        let events = report.events.to_vec();
        for e in &events {
            if e.kind == iron3d_abi::NetEventKind::DESYNC {
                self.begin_report(e);
            }
            if e.kind == iron3d_abi::NetEventKind::LEFT && e.tick > tick {
                self.leaves.entry(e.tick).or_default().push(e.player);
            }
        }
        for r in report.reports.iter() {
            self.compare(r.player, r.tick, &r.bytes);
        }
        Ok(events)
    }

    /// The first desync: the report's file begins, and this peer's summary of the tick
    /// goes to the others.
    fn begin_report(&mut self, e: &iron3d_abi::NetEvent) {
        if self.desync.is_some() {
            return;
        }
        let tick = e.tick;
        let mut text = String::new();
        let _ = writeln!(text, "Iron3D-rs desync report (PD-NET-SYNC-REPORT)");
        let _ = writeln!(text, "this peer: player {}", self.player);
        let _ = writeln!(text, "first differing tick: {tick}");
        let _ = writeln!(text, "seen: {}", e.text);
        let _ = writeln!(
            text,
            "\nthe records of the ticks up to it (every player's, banded):"
        );
        for (t, records) in self.ran.iter().filter(|(t, _)| *t <= tick) {
            let list: Vec<String> = records
                .iter()
                .map(|r| format!("{}:{:#x}:{}:{}", r.kind.0, r.code, r.value, r.arg))
                .collect();
            let _ = writeln!(text, "  tick {t}: [{}]", list.join(", "));
        }
        let own = self.summaries.iter().find(|s| s.tick == tick);
        match own {
            Some(s) => {
                self.outgoing = Some((tick, s.encode()));
                let _ = writeln!(
                    text,
                    "\nthis peer's state after tick {tick}: {} systems, {} objects{}",
                    s.systems.len(),
                    s.objects.len(),
                    if s.cut { " (cut)" } else { "" }
                );
            }
            None => {
                let _ = writeln!(text, "\nthis peer no longer holds its state of tick {tick}");
            }
        }
        let path = self
            .report_dir
            .as_ref()
            .map(|d| d.join(format!("desync-tick{tick}-player{}.txt", self.player)))
            .unwrap_or_default();
        self.desync = Some(DesyncFile {
            tick,
            path,
            text,
            compared: BTreeSet::new(),
        });
        self.write_report();
    }

    /// Another peer's summary: what differs goes into the report.
    fn compare(&mut self, player: u32, tick: u64, bytes: &[u8]) {
        let Some(file) = self.desync.as_mut() else {
            return;
        };
        if tick != file.tick || !file.compared.insert(player) {
            return;
        }
        let own = self.summaries.iter().find(|s| s.tick == tick);
        let line = match (SyncReport::decode(bytes), own) {
            (Err(e), _) => format!("player {player}'s summary is unreadable: {e}"),
            (Ok(_), None) => format!("player {player}'s summary came; this peer's is gone"),
            (Ok(theirs), Some(mine)) => match mine.differences(&theirs) {
                Some(d) => format!(
                    "against player {player}: {}",
                    d.trim_end().replace('\n', "; ")
                ),
                None => format!(
                    "against player {player}: the same summary (the difference is elsewhere)"
                ),
            },
        };
        let _ = writeln!(file.text, "{line}");
        self.notes
            .push(format!("desync report {}: {line}", file.path.display()));
        self.write_report();
    }

    fn write_report(&mut self) {
        let (Some(dir), Some(file)) = (&self.report_dir, &self.desync) else {
            return;
        };
        let written =
            std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&file.path, &file.text));
        if let Err(e) = written {
            self.notes.push(format!(
                "desync report {}: not written: {e}",
                file.path.display()
            ));
        }
    }

    /// Rejoining: the snapshot the plugin handed, to restore now (the ticks that follow
    /// come once the kernel is at its tick).
    pub fn take_snapshot(&mut self) -> Option<iron3d_abi::NetSnapshot> {
        self.snapshot.take()
    }

    /// Lines for the shell to show (desync reports written), since the last call.
    pub fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }

    /// The desync report's file, once one began (`None` without a report folder).
    pub fn report_path(&self) -> Option<&Path> {
        self.desync
            .as_ref()
            .filter(|_| self.report_dir.is_some())
            .map(|d| d.path.as_path())
    }

    /// The frame's tick budget: the ticks waiting, up to and including the next one
    /// whose hash the plugin asked for.
    pub fn budget(&self) -> u64 {
        // Stop after a tick to hash, and before a tick a player leaves at (its
        // releases are computed between ticks).
        let stop = self
            .pending
            .iter()
            .position(|t| t.hash || self.leaves.contains_key(&(t.tick + 1)));
        match stop {
            Some(k) => k as u64 + 1,
            None => self.pending.len() as u64,
        }
    }

    /// After the kernel's frame: the hash the plugin asked for after the tick the
    /// kernel stopped at, for the next exchange.
    pub fn after_frame(&mut self, kernel: &Kernel, asked: Option<u64>) {
        let next = kernel.tick() + 1;
        if let Some(players) = self.leaves.remove(&next) {
            let input = kernel.input();
            let band = |code: u32| iron3d_input::split_seat(code).0;
            let mut out = Vec::new();
            for p in players {
                out.extend(
                    input
                        .held
                        .iter()
                        .filter(|&&c| band(c) == p)
                        .map(|&code| InputEvent::Key { code, down: false }),
                );
                out.extend(
                    input
                        .axes
                        .iter()
                        .filter(|&(&a, &v)| band(a) == p && v != 0.0)
                        .map(|(&axis, _)| InputEvent::Axis { axis, value: 0.0 }),
                );
            }
            if !out.is_empty() {
                self.releases.insert(next, out);
            }
        }
        if asked == Some(kernel.tick()) {
            self.hashes.push(NetHash {
                tick: kernel.tick(),
                hash: kernel.state_hash().0,
            });
            if self.summaries.len() == KEPT_TICKS {
                self.summaries.pop_front();
            }
            self.summaries.push_back(summary(kernel));
        }
    }

    /// The tick after which the kernel must hand a hash, if it is the last of the
    /// budget (call before the frame; pass to [`NetDriver::after_frame`]).
    pub fn hash_tick(&self) -> Option<u64> {
        self.pending.iter().find(|t| t.hash).map(|t| t.tick)
    }

    /// The match's state at the last exchange (`None`: no exchange yet).
    pub fn state(&self) -> Option<NetState> {
        self.state
    }

    /// This peer's player number, as the plugin reported it.
    pub fn player(&self) -> u32 {
        self.player
    }

    /// The players the next tick waits for.
    pub fn waiting_for(&self) -> &[u32] {
        &self.waiting_for
    }

    /// The lobby's answer, once in.
    pub fn reservation(&self) -> Option<&NetReservation> {
        self.reservation.as_ref()
    }

    /// Ticks waiting to run.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// Ticks the plugin reported out of order (refused; a sound plugin reports none).
    pub fn out_of_order(&self) -> u64 {
        self.out_of_order
    }
}

impl InputSource for NetDriver {
    /// The records of tick `tick`, when it is the next one waiting (the kernel asks
    /// only for ticks within [`NetDriver::budget`]).
    fn events_for_tick(&mut self, tick: u64) -> Vec<InputEvent> {
        match self.pending.front() {
            Some(t) if t.tick == tick => {
                let Some(t) = self.pending.pop_front() else {
                    return Vec::new();
                };
                if self.ran.len() == KEPT_RECORD_TICKS {
                    self.ran.pop_front();
                }
                self.ran.push_back((t.tick, t.records.to_vec()));
                let mut events = self.releases.remove(&tick).unwrap_or_default();
                events.extend(t.records.iter().filter_map(input_event));
                events
            }
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_and_events_convert_both_ways() {
        for e in [
            InputEvent::Key {
                code: 0x1_0005,
                down: true,
            },
            InputEvent::Axis {
                axis: 0x11_0020,
                value: -0.25,
            },
            InputEvent::Manual {
                kind: ManualCommandKind::AngleY,
                value: 7,
            },
            InputEvent::Command { code: 9, arg: -1 },
        ] {
            assert_eq!(input_event(&input_record(&e)), Some(e));
        }
        assert_eq!(input_event(&InputRecord::axis(1, f32::NAN)), None);
    }

    /// PD-NET-LEFT: the leaving player's held keys and axes go up and to 0 at the
    /// first tick without them; other bands are untouched; the budget stops before it.
    #[test]
    fn a_leaving_players_held_input_is_released() {
        use iron3d_input::SEAT_BAND;
        let mut k = Kernel::new(
            iron3d_kernel::KernelConfig::default(),
            Box::new(iron3d_kernel::ManualTimeSource::new()),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        k.step(&[
            InputEvent::Key {
                code: SEAT_BAND + 5,
                down: true,
            },
            InputEvent::Key {
                code: 5,
                down: true,
            },
            InputEvent::Axis {
                axis: SEAT_BAND + 7,
                value: 0.5,
            },
        ])
        .unwrap_or_else(|e| panic!("{e}"));
        let mut d = NetDriver::default();
        for tick in 2..=4 {
            d.pending.push_back(NetTick {
                tick,
                records: RVec::new(),
                hash: false,
            });
        }
        d.leaves.insert(3, vec![1]);
        assert_eq!(d.budget(), 1, "stops before the tick the player leaves at");
        let e = d.events_for_tick(2);
        k.step(&e).unwrap_or_else(|e| panic!("{e}"));
        d.after_frame(&k, None);
        assert_eq!(
            d.events_for_tick(3),
            [
                InputEvent::Key {
                    code: SEAT_BAND + 5,
                    down: false
                },
                InputEvent::Axis {
                    axis: SEAT_BAND + 7,
                    value: 0.0
                }
            ]
        );
    }

    #[test]
    fn the_budget_stops_after_the_tick_to_hash() {
        let mut d = NetDriver::default();
        for tick in 1..=6 {
            d.pending.push_back(NetTick {
                tick,
                records: RVec::new(),
                hash: tick % 3 == 0,
            });
        }
        assert_eq!((d.budget(), d.hash_tick()), (3, Some(3)));
        for tick in 1..=3 {
            d.events_for_tick(tick);
        }
        assert_eq!((d.budget(), d.hash_tick()), (3, Some(6)));
        assert!(d.events_for_tick(9).is_empty(), "not the next tick");
        assert_eq!(d.pending(), 3);
    }
}
