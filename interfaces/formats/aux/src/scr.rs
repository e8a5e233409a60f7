//! Compiled script `*.scr` framing (spec §11.10): handler count, named events and their
//! instruction records; trailing bytes preserved. Instruction semantics stay opaque.
//!
//! ```text
//! u32 opcode_handler_count; u32 event_count
//! Event: u32 name_len; u8 name[name_len + 1] (last = NUL); u32 event_word;
//!        u32 instruction_count; Instruction[instruction_count]
//! Instruction: u32 w0..w4 (w0 = dispatch selector); u32 w5 = reference_count;
//!              u32 references[w5]; u32 w6
//! trailing bytes
//! ```

use crate::cursor::Cursor;
use crate::error::{AuxError, Format};

/// Minimum size of an instruction record.
pub const MIN_INSTRUCTION_LEN: u64 = 28;
/// Minimum size of an event (empty name, no instructions).
pub const MIN_EVENT_LEN: u64 = 13;
/// Dispatch selector sentinel.
pub const SELECTOR_SENTINEL: u32 = 0xFFFF_FFFF;

/// Meaning of an instruction's `w0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DispatchSelector {
    /// Index into the handler table (`< opcode_handler_count`).
    Handler(u32),
    /// `0xFFFFFFFF`.
    Sentinel,
    /// Any other value, kept as read.
    Unknown(u32),
}

/// One instruction record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instruction {
    /// `w0..w4` (w0 layout-confirmed dispatch selector; w1..w4 opaque).
    pub words: [u32; 5],
    /// Varset declaration indices (layout-confirmed framing; consumer-inferred meaning).
    pub references: Vec<u32>,
    /// `w6` (opaque).
    pub w6: u32,
}

/// One named event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// Raw name bytes without the final NUL (may contain inner NULs; lookup stops at
    /// the first; layout-confirmed).
    pub name: Vec<u8>,
    /// Event word (opaque).
    pub event_word: u32,
    /// Instructions in file order.
    pub instructions: Vec<Instruction>,
}

impl Event {
    /// The lookup key: name bytes up to the first NUL (case-sensitive).
    pub fn key(&self) -> &[u8] {
        let end = self
            .name
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(self.name.len());
        &self.name[..end]
    }
}

/// A parsed compiled script package.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Script {
    /// Opcode handler count (73 in the GOG `ai.dll`; layout-confirmed).
    pub opcode_handler_count: u32,
    /// Events in file order.
    pub events: Vec<Event>,
    /// Bytes after the last event (opaque; none in checked files).
    pub trailing: Vec<u8>,
}

impl Script {
    /// Strictly parses the framing: every count is bounded by the bytes left.
    pub fn parse(bytes: &[u8]) -> Result<Script, AuxError> {
        let mut c = Cursor::new(bytes, Format::Scr);
        let opcode_handler_count = c.u32("opcode_handler_count")?;
        let event_count = c.u32("event_count")?;
        c.check_array(u64::from(event_count), MIN_EVENT_LEN, "events")?;
        let mut events = Vec::with_capacity(event_count as usize);
        for ei in 0..event_count as usize {
            c.set_record(Some(ei));
            let name_len = c.u32("name_len")?;
            c.need(u64::from(name_len) + 1, "name")?;
            let name = c.take(name_len as usize, "name")?.to_vec();
            let at = c.pos();
            let nul = c.u8("name_nul")?;
            if nul != 0 {
                return Err(c.invalid(
                    "name_nul",
                    at,
                    "NUL as the last name byte",
                    nul.to_string(),
                ));
            }
            let event_word = c.u32("event_word")?;
            let count = c.u32("instruction_count")?;
            c.check_array(u64::from(count), MIN_INSTRUCTION_LEN, "instructions")?;
            let mut instructions = Vec::with_capacity(count as usize);
            for _ in 0..count {
                let mut words = [0u32; 5];
                for w in &mut words {
                    *w = c.u32("instruction.w0_w4")?;
                }
                let refs = c.u32("instruction.reference_count")?;
                c.check_array(u64::from(refs), 4, "instruction.references")?;
                let references = (0..refs)
                    .map(|_| c.u32("instruction.references"))
                    .collect::<Result<_, _>>()?;
                let w6 = c.u32("instruction.w6")?;
                instructions.push(Instruction {
                    words,
                    references,
                    w6,
                });
            }
            events.push(Event {
                name,
                event_word,
                instructions,
            });
        }
        let trailing = c.rest().to_vec();
        Ok(Script {
            opcode_handler_count,
            events,
            trailing,
        })
    }

    /// Classifies an instruction's `w0` against this package's handler count.
    pub fn selector(&self, instruction: &Instruction) -> DispatchSelector {
        match instruction.words[0] {
            SELECTOR_SENTINEL => DispatchSelector::Sentinel,
            w if w < self.opcode_handler_count => DispatchSelector::Handler(w),
            w => DispatchSelector::Unknown(w),
        }
    }

    /// The first event whose key equals `name` (case-sensitive, first duplicate wins).
    pub fn event(&self, name: &[u8]) -> Option<&Event> {
        self.events.iter().find(|e| e.key() == name)
    }

    /// Serialises byte-identically to the parsed input (counts recomputed).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let put = |out: &mut Vec<u8>, v: u32| out.extend_from_slice(&v.to_le_bytes());
        put(&mut out, self.opcode_handler_count);
        put(&mut out, self.events.len() as u32);
        for e in &self.events {
            put(&mut out, e.name.len() as u32);
            out.extend_from_slice(&e.name);
            out.push(0);
            put(&mut out, e.event_word);
            put(&mut out, e.instructions.len() as u32);
            for i in &e.instructions {
                for w in i.words {
                    put(&mut out, w);
                }
                put(&mut out, i.references.len() as u32);
                for &r in &i.references {
                    put(&mut out, r);
                }
                put(&mut out, i.w6);
            }
        }
        out.extend_from_slice(&self.trailing);
        out
    }
}
