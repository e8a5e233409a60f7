//! SuperAI per clan (FORMATS §13.11, tome VI "SuperAI и миссионные сценарии"): the
//! 64-entry table, the script package of a clan, the first `Init` event with its one
//! confirmed action (`Handler(19)`), and the host outcome callback.
//!
//! * `CreateSuperAI` runs for **every** clan record, whether or not its package loads;
//!   [`SuperAiTable::get`] (`GetSuperAI(n)`) answers only for clans whose package
//!   loaded. Slots are the clan's index in the TMA and are never renumbered.
//! * `Init` is looked up by name, case-sensitive, up to the first NUL, first duplicate
//!   wins. Not found → the one-shot mark stays off. Found → it runs once and sets the
//!   mark (the re-entrancy guard of the original is always free here: one call at a
//!   time).
//! * `Handler(19)` writes `ClanBaseX`, `ClanBaseY` (the anchors through
//!   [`AnchorPath`]) and `ClanID` (the clan's slot) into the clan's script variables.
//!
//! **PD-AI-INIT** (our rule; the VM is not decoded): an `Init` runs as a transaction —
//! `Handler(19)` records are applied, sentinel records (`0xFFFF_FFFF`) do nothing, and
//! any other selector makes the whole event [`InitRun::Unsupported`]: nothing it would
//! have written is applied, the variables keep their declared defaults, and the caller
//! reports it on the `ai.log` channel. A missing `ClanBaseX`/`ClanBaseY`/`ClanID`
//! declaration is unsupported the same way.
//!
//! **PD-AI-SLOTS**: clan records beyond the 64th get a SuperAI that no slot reaches
//! (reported by the caller), like a clan whose package did not load.

use crate::anchor::AnchorPath;
use iron3d_aux::scr::{DispatchSelector, Script};
use iron3d_aux::varset::{VarValue, Varset};

/// Entries of the `GetSuperAI` table.
pub const SUPER_AI_SLOTS: usize = 64;
/// The handler that writes the clan variables.
pub const HANDLER_CLAN_BASE: u32 = 19;
/// The script variables `Handler(19)` writes, in order.
pub const CLAN_VARIABLES: [&str; 3] = ["ClanBaseX", "ClanBaseY", "ClanID"];
/// Name of the start-up event.
pub const INIT_EVENT: &[u8] = b"Init";

/// A clan's loaded script package: the compiled script and its variable declarations.
#[derive(Clone, Debug, PartialEq)]
pub struct ScriptPackage {
    /// `<base>.scr`.
    pub script: Script,
    /// `<base>.var`, else the shared `MISSIONS\SCRIPTS\varset.var`.
    pub varset: Varset,
    /// Which file the varset came from (for diagnostics).
    pub varset_source: String,
}

/// What running `Init` did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InitRun {
    /// No package, or no `Init` event: the one-shot mark stays off.
    NotFound,
    /// Ran; the number of `Handler(19)` records applied.
    Applied(usize),
    /// Ran into a form we do not execute (PD-AI-INIT): nothing applied.
    Unsupported(String),
    /// Already ran once (the one-shot mark is set): nothing happens.
    AlreadyRan,
}

/// One clan's SuperAI.
#[derive(Clone, Debug, PartialEq)]
pub struct SuperAi {
    /// The clan's index in the TMA (its slot when below [`SUPER_AI_SLOTS`]).
    pub clan: usize,
    /// The clan's raw name (CP1251).
    pub name: Vec<u8>,
    /// The anchors through the three conversion steps.
    pub base: [AnchorPath; 2],
    /// The loaded package, if any.
    pub package: Option<ScriptPackage>,
    /// The clan's variable values, by varset declaration index (`None`: a declaration
    /// without a value, e.g. `STRING`).
    pub variables: Vec<Option<VarValue>>,
    /// The one-shot `Init` mark.
    pub init_done: bool,
}

impl SuperAi {
    /// `CreateSuperAI` for clan `clan` with its TMA anchors and its package (if it
    /// loaded): variables start at their declared defaults.
    pub fn create(
        clan: usize,
        name: &[u8],
        anchor: [f32; 2],
        package: Option<ScriptPackage>,
    ) -> Self {
        let variables = package
            .as_ref()
            .map(|p| p.varset.declarations().iter().map(|d| d.value).collect())
            .unwrap_or_default();
        Self {
            clan,
            name: name.to_vec(),
            base: [AnchorPath::of(anchor[0]), AnchorPath::of(anchor[1])],
            package,
            variables,
            init_done: false,
        }
    }

    /// The value of variable `name` (first declaration of that name).
    pub fn variable(&self, name: &str) -> Option<VarValue> {
        let p = self.package.as_ref()?;
        let i = p.varset.index_of(name.as_bytes())?;
        self.variables.get(i).copied().flatten()
    }

    /// Runs the first `Init` event once (see the module docs).
    pub fn run_init(&mut self) -> InitRun {
        if self.init_done {
            return InitRun::AlreadyRan;
        }
        let Some(p) = &self.package else {
            return InitRun::NotFound;
        };
        let Some(event) = p.script.event(INIT_EVENT) else {
            return InitRun::NotFound;
        };
        self.init_done = true;
        let mut writes: Vec<(usize, u32)> = Vec::new();
        let mut applied = 0;
        for (k, ins) in event.instructions.iter().enumerate() {
            match p.script.selector(ins) {
                DispatchSelector::Sentinel => {}
                DispatchSelector::Handler(HANDLER_CLAN_BASE) => {
                    let values = [
                        self.base[0].variable,
                        self.base[1].variable,
                        self.clan as u32,
                    ];
                    for (name, value) in CLAN_VARIABLES.iter().zip(values) {
                        let Some(i) = p.varset.index_of(name.as_bytes()) else {
                            return InitRun::Unsupported(format!(
                                "Init record {k}: Handler(19) writes {name}, which {} does not declare",
                                p.varset_source
                            ));
                        };
                        writes.push((i, value));
                    }
                    applied += 1;
                }
                DispatchSelector::Handler(h) => {
                    return InitRun::Unsupported(format!(
                        "Init record {k}: Handler({h}) is not executed (only Handler(19) is confirmed)"
                    ));
                }
                DispatchSelector::Unknown(w) => {
                    return InitRun::Unsupported(format!(
                        "Init record {k}: selector {w:#x} is outside the {} handlers",
                        p.script.opcode_handler_count
                    ));
                }
            }
        }
        for (i, v) in writes {
            if let Some(slot) = self.variables.get_mut(i) {
                *slot = Some(VarValue::Dword(v));
            }
        }
        InitRun::Applied(applied)
    }
}

/// Every clan's SuperAI and the `GetSuperAI` view of them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SuperAiTable {
    /// One per clan record, in TMA order.
    pub clans: Vec<SuperAi>,
}

impl SuperAiTable {
    /// `GetSuperAI(n)`: the clan in slot `n` when its package loaded.
    pub fn get(&self, n: usize) -> Option<&SuperAi> {
        if n >= SUPER_AI_SLOTS {
            return None;
        }
        self.clans.get(n).filter(|c| c.package.is_some())
    }

    /// Mutable [`Self::get`].
    pub fn get_mut(&mut self, n: usize) -> Option<&mut SuperAi> {
        if n >= SUPER_AI_SLOTS {
            return None;
        }
        self.clans.get_mut(n).filter(|c| c.package.is_some())
    }
}

/// The mission outcome the scripts report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Outcome {
    /// `(0, 0, 0)`: `VOICE_MISSION_FAIL`.
    Failed,
    /// `(0, 0, 1)`: `VOICE_MISSION_COMPLETE`.
    Complete,
}

/// What one host callback did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallbackResult {
    /// A `(mode, command, payload)` that is not an outcome: nothing.
    NotOutcome,
    /// Auto-demo mode: the outcome write is suppressed.
    Suppressed,
    /// The same state again: a no-op.
    Repeated,
    /// The new state.
    Set(Outcome),
}

/// The host side of the script outcome callback `(mode, command, payload)`
/// (`Handler(30)` sends `(0, first, second)`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OutcomeLatch {
    /// The state word.
    pub state: Option<Outcome>,
    /// Auto-demo mode (writes suppressed).
    pub auto_demo: bool,
    /// Outcome writes suppressed so far (auto-demo; saturating).
    pub suppressed: u32,
}

impl OutcomeLatch {
    /// One callback.
    pub fn callback(&mut self, mode: u32, command: u32, payload: u32) -> CallbackResult {
        let target = match (mode, command, payload) {
            (0, 0, 0) => Outcome::Failed,
            (0, 0, 1) => Outcome::Complete,
            _ => return CallbackResult::NotOutcome,
        };
        if self.auto_demo {
            self.suppressed = self.suppressed.saturating_add(1);
            return CallbackResult::Suppressed;
        }
        if self.state == Some(target) {
            return CallbackResult::Repeated;
        }
        self.state = Some(target);
        CallbackResult::Set(target)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use iron3d_aux::scr::{Event, Instruction, SELECTOR_SENTINEL};

    fn ins(selector: u32) -> Instruction {
        Instruction {
            words: [selector, 0, 0, 0, 0],
            references: vec![224, 225, 226],
            w6: 0,
        }
    }

    fn package(events: Vec<(&[u8], Vec<Instruction>)>) -> ScriptPackage {
        let script = Script {
            opcode_handler_count: 73,
            events: events
                .into_iter()
                .map(|(n, i)| Event {
                    name: n.to_vec(),
                    event_word: 0,
                    instructions: i,
                })
                .collect(),
            trailing: Vec::new(),
        };
        let varset = Varset::author(&[
            ("Score", VarValue::Float(1.5)),
            ("ClanBaseX", VarValue::Dword(7)),
            ("ClanBaseY", VarValue::Dword(7)),
            ("ClanID", VarValue::Dword(7)),
        ])
        .unwrap();
        ScriptPackage {
            script: Script::parse(&script.to_bytes()).unwrap(),
            varset,
            varset_source: "test.var".into(),
        }
    }

    #[test]
    fn init_writes_the_autodemo_values_once() {
        let p = package(vec![(b"Init", vec![ins(SELECTOR_SENTINEL), ins(19)])]);
        let mut ai = SuperAi::create(0, b"A", [500.2857, 752.0], Some(p));
        assert_eq!(ai.run_init(), InitRun::Applied(1));
        assert_eq!(ai.variable("ClanBaseX"), Some(VarValue::Dword(500)));
        assert_eq!(ai.variable("ClanBaseY"), Some(VarValue::Dword(752)));
        assert_eq!(ai.variable("ClanID"), Some(VarValue::Dword(0)));
        assert_eq!(ai.variable("Score"), Some(VarValue::Float(1.5)));
        assert_eq!(ai.run_init(), InitRun::AlreadyRan);
        let p = package(vec![(b"Init", vec![ins(19)])]);
        let mut second = SuperAi::create(1, b"B", [728.0, -0.6], Some(p));
        second.run_init();
        assert_eq!(second.variable("ClanBaseX"), Some(VarValue::Dword(728)));
        assert_eq!(second.variable("ClanBaseY"), Some(VarValue::Dword(0)));
        assert_eq!(second.variable("ClanID"), Some(VarValue::Dword(1)));
    }

    #[test]
    fn init_lookup_is_case_sensitive_and_first_wins() {
        let p = package(vec![
            (b"init", vec![ins(19)]),
            (b"Init\0tail", vec![]),
            (b"Init", vec![ins(19)]),
        ]);
        let mut ai = SuperAi::create(0, b"A", [1.0, 2.0], Some(p));
        // The first key equal to "Init" is the empty one (the name stops at the NUL).
        assert_eq!(ai.run_init(), InitRun::Applied(0));
        assert!(ai.init_done);
        assert_eq!(ai.variable("ClanBaseX"), Some(VarValue::Dword(7)));
        let p = package(vec![(b"Mission", vec![ins(19)])]);
        let mut none = SuperAi::create(0, b"A", [1.0, 2.0], Some(p));
        assert_eq!(none.run_init(), InitRun::NotFound);
        assert!(!none.init_done);
    }

    #[test]
    fn an_unsupported_record_applies_nothing() {
        let p = package(vec![(b"Init", vec![ins(19), ins(2)])]);
        let mut ai = SuperAi::create(0, b"A", [1.0, 2.0], Some(p));
        assert!(matches!(ai.run_init(), InitRun::Unsupported(m) if m.contains("Handler(2)")));
        assert_eq!(ai.variable("ClanBaseX"), Some(VarValue::Dword(7)));
        let p = package(vec![(b"Init", vec![ins(99)])]);
        let mut ai = SuperAi::create(0, b"A", [1.0, 2.0], Some(p));
        assert!(matches!(ai.run_init(), InitRun::Unsupported(m) if m.contains("0x63")));
    }

    #[test]
    fn table_answers_only_loaded_clans_and_never_renumbers() {
        let table = SuperAiTable {
            clans: vec![
                SuperAi::create(0, b"A", [0.0; 2], None),
                SuperAi::create(1, b"B", [0.0; 2], Some(package(vec![]))),
            ],
        };
        assert!(table.get(0).is_none());
        assert_eq!(table.get(1).unwrap().clan, 1);
        assert!(table.get(64).is_none());
    }

    #[test]
    fn outcome_callback() {
        let mut l = OutcomeLatch::default();
        assert_eq!(l.callback(0, 0, 1), CallbackResult::Set(Outcome::Complete));
        assert_eq!(l.callback(0, 0, 1), CallbackResult::Repeated);
        assert_eq!(l.callback(0, 0, 0), CallbackResult::Set(Outcome::Failed));
        assert_eq!(l.callback(1, 0, 0), CallbackResult::NotOutcome);
        let mut demo = OutcomeLatch {
            auto_demo: true,
            ..OutcomeLatch::default()
        };
        assert_eq!(demo.callback(0, 0, 0), CallbackResult::Suppressed);
        assert_eq!(demo.callback(0, 0, 1), CallbackResult::Suppressed);
        assert_eq!((demo.state, demo.suppressed), (None, 2));
        assert_eq!(demo.state, None);
    }
}
