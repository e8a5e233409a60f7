//! The AI slot of Iron3D-rs (tome VI "AI, Behavior и Wizard"; FORMATS §11.10–§11.12,
//! §12.3, §13.11–§13.13): the rules the original's `ai.dll` (SuperAI) and
//! `Behavior.dll` follow where the spec states them, as pure, deterministic code with
//! the spec's numbers as tests, and the AI instance that wires them to the engine
//! ([`plugin::AiPlugin`]).
//!
//! The crate is a library without a root module: the `ai` plugin (`plugins/ai`, library
//! `iron3d_ai`) is the plugin shell that exports it, and an alternative AI
//! (`mods/rush-ai`) links it the same way under its own name — no linker flags needed.
//! The gameplay contract it shares with the seat, the HUD and the trace (order codes,
//! property names and layouts, clan rules) is `iron3d-gameplay`'s.
//!
//! * [`superai`] — `CreateSuperAI` per clan, the 64-entry `GetSuperAI` table, a clan's
//!   script package, the first `Init` event and `Handler(19)`, the outcome callback.
//! * [`anchor`] — clan anchors → `ClanBaseX` / `ClanBaseY` (ties to even, low words).
//! * [`schedule`] — Behavior's first step on the shared RNG; the distributor's clock.
//! * [`distributor`] — membership, shares with pinned rows, the two-pass step and the
//!   five totals of §13.12.
//! * [`profile`] — class word → behaviour profile, profile fields, ore defaults and
//!   `CurrentOre`.
//! * [`evaluator`] — the script condition evaluator (tags 1–5, the index-equals-length
//!   exception).
//! * [`doctrine`] — how fighters pick their fights (sight, flight, speed): the knobs an
//!   alternative AI turns; the default is the standard rules.
//! * [`path`] — Behavior's global path (areals), local path (the funnel through the
//!   corridor) and the six error states of tome VI.
//! * [`grid`] — the tick's neighbour grid (what is within `r`, the nearest acceptable
//!   point) with answers independent of the cell size.
//! * [`roster`] — every agent in id order, with what the engine was last told of it.
//! * [`wizard`] — short-term avoidance inside the corridor (`ClearWizardPath`).
//! * [`config`] — `Behavior.ini` keys with provenance and named defaults.
//! * [`x87`] — the x87 conversions these rules need.
//! * [`plugin`] — [`plugin::AiPlugin`]: the rules wired to the engine (the plugin
//!   interface's callbacks, the state blob).
//!
//! Every choice the spec leaves open is a named project decision in the module that
//! makes it (`PD-AI-*`, `PD-ECON-*`).

pub mod anchor;
pub mod behavior;
pub mod combat;
pub mod config;
pub mod distributor;
pub mod doctrine;
pub mod economy;
pub mod error;
pub mod evaluator;
pub mod grid;
pub mod objectives;
pub mod path;
pub mod plugin;
pub mod profile;
pub mod roster;
pub mod schedule;
pub mod superai;
pub mod wizard;
pub mod x87;

pub use error::AiError;
