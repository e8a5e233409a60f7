//! The kernel's own state for a save game (**PD-SAVE-KERNEL**): the world (every slot,
//! so handles in messages and plugins stay valid), the messages waiting for the next
//! boundary with the bus's counters, the RNG streams, the game clock, the fixed step's
//! progress and the persistent input state — everything the state hash reads except
//! the systems' digests, which come from their own blobs ([`Kernel::system_states`]).
//! Encoded with postcard (floats keep their bits) behind a version word.
//!
//! Not state, so not saved: the platform clock (a loaded game goes on from the platform
//! time of the load), the maintenance clock, statistics, the journal, the render
//! snapshot and the player view (presentation).

use super::Kernel;
use crate::bus::{Bus, Envelope, SenderId};
use crate::clock::{FixedStep, GameClock};
use crate::error::{KernelError, KernelResult};
use crate::input::{InputSnapshot, ManualCommandKind};
use crate::rng::{StreamName, StreamState};
use crate::system::SavedState;
use crate::world::World;
use crate::world::save::WorldState;
use serde::{Deserialize, Serialize};

/// Version of the kernel state encoding.
pub const KERNEL_STATE_VERSION: u32 = 1;

#[derive(Clone, Debug, Serialize, Deserialize)]
struct InputState {
    held: Vec<u32>,
    axes: Vec<(u32, f32)>,
    pressed: Vec<u32>,
    released: Vec<u32>,
    manual: Vec<(ManualCommandKind, i32)>,
    commands: Vec<(u32, i32)>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct KernelState {
    version: u32,
    seed: u64,
    world: WorldState,
    pending: Vec<Envelope>,
    sequences: Vec<(SenderId, u64)>,
    sent: u64,
    delivered: u64,
    rng: Vec<StreamState>,
    game_clock: GameClock,
    fixed: FixedStep,
    input: InputState,
}

fn bad(what: impl Into<String>) -> KernelError {
    KernelError::BadState(what.into())
}

impl Kernel {
    /// The kernel's state between ticks (see the module docs). Refused during a tick.
    pub fn save_state(&self) -> KernelResult<Vec<u8>> {
        if let Some(phase) = self.phase {
            return Err(KernelError::Forbidden {
                op: crate::phase::Operation::RegistryMutation,
                phase,
            });
        }
        let (pending, sequences, sent, delivered) = self.bus.saved();
        let i = &self.input;
        let state = KernelState {
            version: KERNEL_STATE_VERSION,
            seed: self.config.seed,
            world: self.world.to_state()?,
            pending,
            sequences,
            sent,
            delivered,
            rng: self.rng.states(),
            game_clock: self.game_clock,
            fixed: self.fixed,
            input: InputState {
                held: i.held.iter().copied().collect(),
                axes: i.axes.iter().map(|(&k, &v)| (k, v)).collect(),
                pressed: i.pressed.iter().copied().collect(),
                released: i.released.iter().copied().collect(),
                manual: i.manual.clone(),
                commands: i.commands.clone(),
            },
        };
        postcard::to_allocvec(&state).map_err(|e| bad(format!("encoding: {e}")))
    }

    /// Replaces the kernel's state with `bytes` from [`Kernel::save_state`] of a kernel
    /// with the same seed, tick rate and id layout. Everything is decoded and checked
    /// first; a refusal ([`KernelError::BadState`]) changes nothing. The systems keep
    /// their own state ([`Kernel::restore_system_state`]).
    pub fn restore_state(&mut self, bytes: &[u8]) -> KernelResult<()> {
        if let Some(phase) = self.phase {
            return Err(KernelError::Forbidden {
                op: crate::phase::Operation::RegistryMutation,
                phase,
            });
        }
        let (state, rest): (KernelState, &[u8]) =
            postcard::take_from_bytes(bytes).map_err(|e| bad(format!("decoding: {e}")))?;
        if !rest.is_empty() {
            return Err(bad(format!("{} bytes after the state", rest.len())));
        }
        if state.version != KERNEL_STATE_VERSION {
            return Err(bad(format!(
                "state version {}, this kernel reads {KERNEL_STATE_VERSION}",
                state.version
            )));
        }
        if state.seed != self.config.seed {
            return Err(bad(format!(
                "saved with seed {}, this session runs seed {}",
                state.seed, self.config.seed
            )));
        }
        let fixed = self.fixed.with_progress_of(&state.fixed).ok_or_else(|| {
            bad(format!(
                "saved at a step of {} ns, this kernel steps {} ns",
                state.fixed.step_ns(),
                self.fixed.step_ns()
            ))
        })?;
        if !state.game_clock.is_valid() {
            return Err(bad("the game clock's scale is invalid"));
        }
        let mut names = Vec::new();
        for st in &state.rng {
            if !StreamName::ALL.contains(&st.name) || names.contains(&st.name) {
                return Err(bad(format!("random stream {:?} repeated", st.name)));
            }
            names.push(st.name);
        }
        if names.len() != StreamName::ALL.len() {
            return Err(bad(format!(
                "{} random streams, the kernel has {}",
                names.len(),
                StreamName::ALL.len()
            )));
        }
        let world = World::from_state(state.world, self.config.id_layout)?;
        for e in &state.pending {
            if let crate::bus::Target::Object(h) = e.target {
                // A message to a gone object is dropped at delivery, as in a run; one
                // naming a slot that never existed is damage.
                if h.slot as usize >= world.slot_count() {
                    return Err(bad(format!("a pending message names slot {}", h.slot)));
                }
            }
        }
        // Everything checked: apply.
        self.world = world;
        self.bus = Bus::restored(state.pending, state.sequences, state.sent, state.delivered);
        self.rng.restore(&state.rng);
        self.game_clock = state.game_clock;
        self.fixed = fixed;
        let i = state.input;
        self.input = InputSnapshot {
            held: i.held.into_iter().collect(),
            axes: i.axes.into_iter().collect(),
            pressed: i.pressed.into_iter().collect(),
            released: i.released.into_iter().collect(),
            manual: i.manual,
            commands: i.commands,
        };
        self.last_platform_ns = self.platform.now_ns();
        Ok(())
    }

    /// Every system's saved state, in the order systems were added: `(name, state)`
    /// for each system that keeps one, `Err` naming why one cannot save now.
    pub fn system_states(&self) -> Vec<(String, Result<SavedState, String>)> {
        self.systems
            .iter()
            .filter_map(|e| {
                e.system
                    .save_state()
                    .map(|s| (e.system.name().to_owned(), s))
            })
            .collect()
    }

    /// Restores system `name`'s state (between ticks).
    pub fn restore_system_state(&mut self, name: &str, state: &SavedState) -> KernelResult<()> {
        if let Some(phase) = self.phase {
            return Err(KernelError::Forbidden {
                op: crate::phase::Operation::RegistryMutation,
                phase,
            });
        }
        let entry = self
            .systems
            .iter_mut()
            .find(|e| e.system.name() == name)
            .ok_or_else(|| bad(format!("no system '{name}' in this session")))?;
        entry
            .system
            .restore_state(state)
            .map_err(|reason| bad(format!("system '{name}' refused its state: {reason}")))
    }
}

#[cfg(test)]
#[path = "kernel_save_tests.rs"]
mod tests;
