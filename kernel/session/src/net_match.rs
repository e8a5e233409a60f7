//! One peer's match, frame by frame — the one path the headless peer (`iron3d serve`,
//! `host --bot`, `join --bot`) and the window (`iron3d host`, `iron3d join`) share.
//!
//! [`NetMatch::frame`] is a presented frame of a match: the exchange with the net plugin
//! (the local seat's records out, the final ticks in), the snapshot a rejoin waits for
//! (saved here on the host, restored here on the rejoining peer: PD-NET-REJOIN), the
//! ticks the [`NetDriver`] hands the kernel, and the state hashes after them. What
//! happened comes back as lines for the player or a process supervisor, the chat lines,
//! and the run's own frame output; the shell only prints and draws them.
//!
//! **PD-NET-SERVE-IDLE**: a dedicated server (role `SERVE`) whose players have all left
//! ends the match at once (PD-NET-END) rather than running an empty world until
//! `--ticks` or the mission's outcome; a player who rejoins before that frame counts as
//! present again.
//!
//! **PD-NET-NO-SAVES**: a match is not saved or loaded by the player — its state is the
//! peers' together; the host's snapshot for a rejoin is the only save a match writes.
//! (The shells refuse quick saves, autosaves and loads while a match runs.)

use crate::SessionError;
use crate::net::{NetDriver, Outgoing};
use crate::run::{FrameOutput, Run};
use crate::save::SaveIdentity;
use iron3d_abi::abi_stable::std_types::RString;
use iron3d_abi::{
    InputRecord, NetEventKind, NetIdentity, NetPluginId, NetRole, NetStart, NetState,
};
use std::path::Path;

/// What the shell hands one frame of a match besides the clock.
#[derive(Clone, Debug, Default)]
pub struct MatchInput {
    /// The local seat's records since the last frame (player 0's codes).
    pub local: Vec<InputRecord>,
    /// Host and server: end the match now (PD-NET-END). A decided mission ends it too.
    pub end: bool,
    /// A chat line and whom to (`None`: everyone).
    pub say: Option<(Option<u8>, String)>,
}

/// What one frame of a match did.
#[derive(Debug, Default)]
pub struct MatchFrame {
    /// What happened, one line each, for the player or a supervisor (no prefix).
    pub lines: Vec<String>,
    /// Chat lines that arrived: who said it, what.
    pub chat: Vec<(u32, String)>,
    /// The run's frame: the ticks run, the mission's messages, notes and host events.
    pub output: FrameOutput,
    /// The match is over: every tick it had was run (stop calling [`NetMatch::frame`]).
    pub over: bool,
}

/// One peer's part in a match: the [`NetDriver`] and what the frames between its
/// exchanges remember.
#[derive(Debug)]
pub struct NetMatch {
    driver: NetDriver,
    start: NetStart,
    /// PD-NET-REJOIN: the tick whose snapshot a rejoining player waits for.
    wanted: Option<u64>,
    desync: bool,
    /// Testing: perturb this peer's world after this tick (`--inject-desync`).
    inject: Option<u64>,
    injected: bool,
    over: bool,
    /// The players who left and did not rejoin (PD-NET-SERVE-IDLE).
    gone: std::collections::BTreeSet<u32>,
    /// The server ends the match: every player left.
    idle: bool,
}

/// The identity the net plugin sends: this build, the mission's data and mods
/// fingerprints (as saves record them), the simulation slots' plugins.
pub fn identity(run: &Run, save: &SaveIdentity) -> NetIdentity {
    let mut entries = crate::replay::plugin_set(&run.host);
    entries.sort();
    let plugins = entries
        .into_iter()
        .filter_map(|entry| {
            let (slot, rest) = entry.split_once('=')?;
            let mut parts = rest.split_whitespace();
            Some(NetPluginId {
                slot: slot.into(),
                name: parts.next()?.into(),
                version: parts.next()?.into(),
            })
        })
        .collect();
    NetIdentity {
        engine: RString::from(save.engine.clone()),
        data: RString::from(save.data.clone()),
        mods: RString::from(save.mods.clone()),
        plugins,
    }
}

impl NetMatch {
    /// Starts this peer's part: `start` with the run's identity filled in, desync reports
    /// written into `desync_dir`.
    ///
    /// # Errors
    /// No net plugin, or it refused the start (an address it cannot bind).
    pub fn start(
        run: &Run,
        mut start: NetStart,
        save: &SaveIdentity,
        desync_dir: &Path,
    ) -> Result<Self, SessionError> {
        start.identity = identity(run, save);
        let driver = NetDriver::start(&run.host, &start)?.with_reports(desync_dir);
        Ok(Self {
            driver,
            start,
            wanted: None,
            desync: false,
            inject: None,
            injected: false,
            over: false,
            gone: std::collections::BTreeSet::new(),
            idle: false,
        })
    }

    /// Testing: after tick `tick` this peer moves the first object of its queue half a
    /// unit along X, so the peers' states differ and every one reports the desync.
    pub fn inject_desync_after(mut self, tick: u64) -> Self {
        self.inject = Some(tick);
        self
    }

    /// One presented frame at platform time `now_ns`: exchange, rejoin snapshots, the
    /// ticks handed, the hashes after them.
    ///
    /// # Errors
    /// The net plugin failed, a snapshot could not be written or restored, the kernel
    /// failed a tick, or this joining peer was refused by the host
    /// ([`SessionError::NetRefused`]).
    pub fn frame(
        &mut self,
        run: &mut Run,
        now_ns: u64,
        input: MatchInput,
        save: &SaveIdentity,
    ) -> Result<MatchFrame, SessionError> {
        let mut out = MatchFrame::default();
        let tick = run.kernel.tick();
        let players = self.start.players.saturating_sub(1) as usize;
        if self.start.role == NetRole::SERVE
            && !self.idle
            && players > 0
            && self.gone.len() >= players
        {
            self.idle = true;
            out.lines.push(
                "every player left: the server ends the match (PD-NET-SERVE-IDLE)".to_owned(),
            );
        }
        let end = input.end || self.idle || run.decided().is_some();
        let snapshot = match self.wanted {
            Some(t) if self.driver.pending() == 0 && tick == t => {
                self.wanted = None;
                let bytes = run.save_file(save)?.to_bytes()?;
                out.lines.push(format!(
                    "snapshot after tick {t} for the rejoin: {} bytes",
                    bytes.len()
                ));
                Some((t, bytes))
            }
            _ => None,
        };
        let playing = self.driver.state() == Some(NetState::PLAYING);
        let events = self.driver.exchange(
            &run.host,
            now_ns,
            tick,
            Outgoing {
                local: if playing { input.local } else { Vec::new() },
                end,
                say: input.say,
                snapshot,
            },
        )?;
        if let Some(s) = self.driver.take_snapshot() {
            let file = iron3d_save::SaveFile::parse(&s.bytes)?;
            run.restore_save(&file, save)?;
            out.lines.push(format!(
                "rejoined: restored the host's snapshot after tick {} ({} bytes, state_hash={})",
                s.tick,
                s.bytes.len(),
                run.kernel.state_hash().to_hex()
            ));
        }
        for e in &events {
            let line = match e.kind {
                NetEventKind::LISTENING => format!(
                    "listening on {} mission={} players={}",
                    e.text, self.start.mission, self.start.players
                ),
                NetEventKind::JOINED => format!("player {} joined: {}", e.player, e.text),
                NetEventKind::STARTED => {
                    format!("match started, player {}: seats {}", e.player, e.text)
                }
                NetEventKind::LEFT => {
                    if e.player != 0 {
                        self.gone.insert(e.player);
                    }
                    format!("player {} left from tick {}: {}", e.player, e.tick, e.text)
                }
                NetEventKind::CHAT => {
                    out.chat.push((e.player, e.text.to_string()));
                    format!("player {} says: {}", e.player, e.text)
                }
                NetEventKind::DESYNC => {
                    self.desync = true;
                    format!("DESYNC at tick {}: {}", e.tick, e.text)
                }
                // A host refusing a stranger goes on; a player refused stops here.
                NetEventKind::REFUSED if self.start.role == NetRole::JOIN => {
                    return Err(SessionError::NetRefused(e.text.to_string()));
                }
                NetEventKind::REFUSED => {
                    format!("refused a player: {}", e.text.replace('\n', "; "))
                }
                NetEventKind::ENDED => e.text.to_string(),
                NetEventKind::SNAPSHOT_WANTED => {
                    self.wanted = Some(e.tick);
                    format!("player {} {}", e.player, e.text)
                }
                NetEventKind::REJOINED => {
                    self.gone.remove(&e.player);
                    format!("player {} rejoined from tick {}", e.player, e.tick)
                }
                _ => {
                    tracing::debug!(target: "NetWatch", kind = e.kind.0, text = %e.text, "net event");
                    continue;
                }
            };
            out.lines.push(line);
        }
        out.lines.extend(self.driver.take_notes());
        let hash_at = self.driver.hash_tick();
        let budget = match self.inject {
            // Stop at the tick to perturb, so the change lands right after it.
            Some(t) if !self.injected && tick < t => self.driver.budget().min(t - tick),
            _ => self.driver.budget(),
        };
        out.output = run.frame(&mut self.driver, Some(budget))?;
        if let Some(t) = self
            .inject
            .filter(|&t| !self.injected && run.kernel.tick() >= t)
        {
            self.injected = true;
            let what = inject_desync(&mut run.kernel)?;
            out.lines
                .push(format!("injected a desync after tick {t}: {what}"));
        }
        self.driver.after_frame(&run.kernel, hash_at);
        self.over |= self.driver.state() == Some(NetState::ENDED) && self.driver.pending() == 0;
        out.over = self.over;
        Ok(out)
    }

    /// The match's state as the plugin last reported it (`None` before the first frame).
    pub fn state(&self) -> Option<NetState> {
        self.driver.state()
    }

    /// This peer's player number (0: the host or the server).
    pub fn player(&self) -> u32 {
        self.driver.player()
    }

    /// The players the match waits for (joining, or late with a turn's orders).
    pub fn waiting_for(&self) -> &[u32] {
        self.driver.waiting_for()
    }

    /// Whether a desync was reported in this match.
    pub fn desynced(&self) -> bool {
        self.desync
    }

    /// Whether every tick of the match has run.
    pub fn is_over(&self) -> bool {
        self.over
    }

    /// The role this peer plays.
    pub fn role(&self) -> NetRole {
        self.start.role
    }
}

/// Moves the first object of the queue half a unit along X (`--inject-desync`).
fn inject_desync(kernel: &mut iron3d_kernel::Kernel) -> Result<String, SessionError> {
    let world = kernel.world_mut()?;
    let handle = world
        .queue_live_at(0)
        .ok_or(SessionError::NothingToPerturb)?;
    let object = world.get_mut(handle)?;
    object.transform.position.x += 0.5;
    Ok(format!("object {} moved 0.5 along X", object.id.raw()))
}
