//! What a mission says to the player (**PD-HUD-TEXT**).
//!
//! `briefing.cfg` and `messages.cfg` are block files (FORMATS §12.5) whose parameter
//! grammar is not documented; the HUD reads them this way (text stays CP1251 bytes):
//!
//! * **`briefing.cfg`**: the first block that has a `Title` or `Text` parameter is the
//!   briefing: `Title` (the first one) is its heading, every `Text` is one paragraph,
//!   in order. Surrounding double quotes are removed from a value.
//! * **`messages.cfg`**: every block is one message; its `Text` parameters are its
//!   paragraphs. `Time <seconds>` shows it at that game time, for [`MESSAGE_SECONDS`]. A
//!   message without `Time` is kept but not shown on its own: the original triggers
//!   messages from mission scripts, whose instruction grammar is not decoded (FORMATS
//!   §11.10). A `Time` that is not a finite, non-negative number is an error naming
//!   the file and line.
//! * **`Objectives.txt`** (our own format, [`iron3d_config::objectives`]): each
//!   objective becomes one line of the objectives panel.
//!
//! **PD-HUD-TRIGGERED**: a `GMSG_TEXT_FOR_PLAYER` delivered during play (a plugin's way
//! to say something to the player — the AI announces objectives with it,
//! PD-AI-OBJECTIVE-MESSAGES) shows for [`MESSAGE_SECONDS`] from the game time of its
//! tick: the paragraphs of the `messages.cfg` block whose name is its text (exact
//! bytes), else its text as one paragraph ([`MissionText::triggered`]).

use crate::HudError;
use crate::text::cp1251;
use iron3d_config::objectives::{Goal, Objectives, Side};
use iron3d_config::{BlockFile, ConfigError};

/// How long a message stays on screen (game seconds).
pub const MESSAGE_SECONDS: f32 = 10.0;
/// Most messages read from one `messages.cfg` (bounds what a file can make us keep).
pub const MAX_MESSAGES: usize = 256;

/// One message of `messages.cfg`.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    /// The block's name.
    pub name: Vec<u8>,
    /// When it shows (game seconds); `None`: only when a script asks for it.
    pub at: Option<f32>,
    /// Its paragraphs (CP1251).
    pub text: Vec<Vec<u8>>,
}

/// A mission's briefing, messages and objectives.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MissionText {
    /// The briefing's heading (CP1251; the mission's name when the file has none).
    pub title: Vec<u8>,
    /// The briefing's paragraphs (CP1251).
    pub briefing: Vec<Vec<u8>>,
    /// The messages in file order.
    pub messages: Vec<Message>,
    /// One line per objective: whether it wins or loses, and its description.
    pub objectives: Vec<(Side, Vec<u8>)>,
}

fn unquote(v: &[u8]) -> Vec<u8> {
    match v {
        [b'"', inner @ .., b'"'] => inner.to_vec(),
        _ => v.to_vec(),
    }
}

fn config(origin: &str) -> impl Fn(ConfigError) -> HudError + '_ {
    move |source| HudError::Config {
        origin: origin.to_owned(),
        source,
    }
}

impl MissionText {
    /// Reads the files a mission has (each `None` when the mission lacks it);
    /// `mission` is the heading when the briefing names none. A file that does not
    /// parse is an error naming it, its line and column.
    pub fn load(
        mission: &str,
        briefing: Option<&[u8]>,
        messages: Option<&[u8]>,
        objectives: Option<&[u8]>,
    ) -> Result<Self, HudError> {
        let mut t = MissionText {
            title: cp1251(mission),
            ..Self::default()
        };
        if let Some(bytes) = briefing {
            let f = BlockFile::parse(bytes, "briefing.cfg").map_err(config("briefing.cfg"))?;
            if let Some(b) = f
                .blocks()
                .iter()
                .find(|b| b.param("Title").is_some() || b.param("Text").is_some())
            {
                if let Some(title) = b.param("Title") {
                    t.title = unquote(&title.value);
                }
                t.briefing = b
                    .params
                    .iter()
                    .filter(|p| p.name == b"Text")
                    .map(|p| unquote(&p.value))
                    .collect();
            }
        }
        if let Some(bytes) = messages {
            let f = BlockFile::parse(bytes, "messages.cfg").map_err(config("messages.cfg"))?;
            for b in f.blocks().iter().take(MAX_MESSAGES) {
                let at = match b.param("Time") {
                    None => None,
                    Some(p) => {
                        let v = std::str::from_utf8(&p.value)
                            .ok()
                            .and_then(|s| s.trim().parse::<f32>().ok())
                            .filter(|v| v.is_finite() && *v >= 0.0);
                        match v {
                            Some(v) => Some(v),
                            None => {
                                return Err(HudError::Config {
                                    origin: "messages.cfg".to_owned(),
                                    source: ConfigError::at(
                                        "messages.cfg",
                                        p.line,
                                        1,
                                        format!(
                                            "Time {:?} is not a non-negative number of seconds",
                                            String::from_utf8_lossy(&p.value)
                                        ),
                                    ),
                                });
                            }
                        }
                    }
                };
                t.messages.push(Message {
                    name: b.name.clone(),
                    at,
                    text: b
                        .params
                        .iter()
                        .filter(|p| p.name == b"Text")
                        .map(|p| unquote(&p.value))
                        .collect(),
                });
            }
        }
        if let Some(bytes) = objectives {
            let o = Objectives::parse(bytes, "Objectives.txt").map_err(config("Objectives.txt"))?;
            t.objectives = o
                .goals
                .iter()
                .map(|(side, goal)| (*side, cp1251(&describe(goal))))
                .collect();
        }
        Ok(t)
    }

    /// What a triggered message named `named` shows (PD-HUD-TRIGGERED): the paragraphs
    /// of the `messages.cfg` block of that name, else `named` itself as one paragraph.
    pub fn triggered(&self, named: &[u8]) -> Vec<Vec<u8>> {
        self.messages
            .iter()
            .find(|m| m.name == named)
            .map_or_else(|| vec![named.to_vec()], |m| m.text.clone())
    }

    /// The messages on screen at game time `seconds`, oldest first: those whose time
    /// has come within the last [`MESSAGE_SECONDS`].
    pub fn messages_at(&self, seconds: f32) -> impl Iterator<Item = &Message> {
        self.messages.iter().filter(move |m| {
            m.at.is_some_and(|at| seconds >= at && seconds < at + MESSAGE_SECONDS)
        })
    }
}

/// One objective in words.
pub fn describe(goal: &Goal) -> String {
    match *goal {
        Goal::Destroy(c) => format!("Destroy every unit of clan {c}"),
        Goal::Gather(a) => format!("Unload {a} ore into your storages"),
        Goal::Hold { x, y, r, seconds } => {
            format!("Hold ({x}, {y}) within {r} for {seconds} s")
        }
        Goal::Survive(s) => format!("Survive {s} s"),
        Goal::Destroyed => "Keep at least one unit alive".to_owned(),
        Goal::Gathered { clan, amount } => {
            format!("Do not let clan {clan} unload {amount} ore first")
        }
        Goal::Time(s) => format!("Finish within {s} s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn briefing_messages_and_objectives_are_read_as_the_module_docs_say() {
        let briefing = b"object Briefing\r\n  Title \"\xc1\xe8\xf2\xe2\xe0\"\r\n  Text \"First.\"\r\n  Text Second line\r\nend\r\n";
        let messages =
            b"object Msg1\n Time 5\n Text \"Enemy spotted\"\nend\nobject Msg2\n Text Later\nend\n";
        let objectives = b"clan 0\nwin destroy 1\nlose time 600\n";
        let t =
            MissionText::load("BATTLE", Some(briefing), Some(messages), Some(objectives)).unwrap();
        assert_eq!(t.title, b"\xc1\xe8\xf2\xe2\xe0", "CP1251 kept as bytes");
        assert_eq!(
            t.briefing,
            vec![b"First.".to_vec(), b"Second line".to_vec()]
        );
        assert_eq!(t.messages.len(), 2);
        assert_eq!(t.messages[0].at, Some(5.0));
        assert_eq!(t.messages[1].at, None);
        assert_eq!(t.messages_at(4.9).count(), 0);
        assert_eq!(t.messages_at(5.0).count(), 1);
        assert_eq!(t.messages_at(14.9).count(), 1);
        assert_eq!(t.messages_at(15.0).count(), 0);
        assert_eq!(t.objectives.len(), 2);
        assert_eq!(
            t.objectives[0],
            (Side::Win, b"Destroy every unit of clan 1".to_vec())
        );
        assert_eq!(t.objectives[1].0, Side::Lose);
        // Without files: the mission's name is the heading.
        let bare = MissionText::load("DEMO1", None, None, None).unwrap();
        assert_eq!(bare.title, b"DEMO1");
        assert!(bare.briefing.is_empty() && bare.messages.is_empty());
    }

    #[test]
    fn bad_files_are_errors_naming_file_and_line() {
        let e =
            MissionText::load("M", None, Some(b"object A\n Time soon\nend\n"), None).unwrap_err();
        let chain = format!("{e}: {}", std::error::Error::source(&e).unwrap());
        assert!(
            chain.contains("messages.cfg") && chain.contains('2'),
            "{chain}"
        );
        let e = MissionText::load("M", Some(b"object A\n Text x\n"), None, None).unwrap_err();
        assert!(e.to_string().contains("briefing.cfg"), "{e}");
        let e = MissionText::load("M", None, None, Some(b"win destroy 1\n")).unwrap_err();
        assert!(e.to_string().contains("Objectives.txt"), "{e}");
    }
}
