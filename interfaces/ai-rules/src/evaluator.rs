//! The script condition evaluator (`ai.dll` 1.00 RVA `0x5180`, tome 06-extended
//! "Подтверждённый evaluator записей условий"). A static reconstruction of the
//! branches; the field names are ours — the spec does not say what the payloads mean
//! in game terms, so neither do we.
//!
//! **From the spec:**
//! * a record has a tag, a subtype, a payload and a completion flag (byte `+0x0C`);
//!   tags 1–3 need subtype 0 and tags 4–5 subtype 1, any other combination never
//!   completes;
//! * the evaluator sets the flag when the check passes and leaves the record as it is
//!   otherwise; the caller skips records already complete;
//! * tag 1 completes when the payload's object lookup finds **nothing**;
//! * tag 2 needs the object to exist, then checks a property of it; in the complex
//!   branch only the result codes 1, `0x12` and `0x13` pass;
//! * tag 3 compares the found value with the first number of the current context;
//! * tags 4 and 5 walk the child keys of a selected list; `-1` means "no element" and
//!   is skipped. Tag 4 completes only when **no** child key finds an object. Tag 5
//!   skips missing objects; for a found one another check answers: zero continues, the
//!   first non-zero stops the walk and leaves the condition incomplete;
//! * the list index is compared **unsigned** with the list's length and only values
//!   strictly greater are rejected: an index **equal** to the length passes that check
//!   and the following checked access raises a C++ exception. Here that is
//!   [`AiError::IndexEqualsLength`], never a silent "false".
//!
//! **PD-AI-COND-EQUAL** (ours): tag 3 passes on equality of the two words.

use crate::error::AiError;

/// Child key meaning "no element".
pub const NO_ELEMENT: u32 = 0xFFFF_FFFF;
/// Offset of the completion flag in the 16-byte record.
pub const DONE_FLAG_OFFSET: usize = 0x0C;
/// Tag-2 result codes that pass in the complex branch.
pub const TAG2_PASSING_CODES: [u32; 3] = [1, 0x12, 0x13];

/// One 16-byte condition record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Condition {
    /// The rule (1–5 known).
    pub tag: u32,
    /// Must be 0 for tags 1–3 and 1 for tags 4–5.
    pub subtype: u32,
    /// Object key (tags 1–3) or list index (tags 4–5).
    pub payload: u32,
    /// The completion flag.
    pub done: bool,
}

/// What tag 2's property check of a found object answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tag2Check {
    /// The simple branch: the property check passed or not.
    Simple(bool),
    /// The complex branch: a result code (passes when in [`TAG2_PASSING_CODES`]).
    Code(u32),
}

/// The game as the evaluator sees it.
pub trait ConditionWorld {
    /// Whether the object lookup of `key` finds an object.
    fn exists(&self, key: u32) -> bool;
    /// Tag 2's property check of the found object `key`.
    fn tag2(&self, key: u32) -> Tag2Check;
    /// Tag 3's found value for `key` (`None`: nothing found).
    fn value(&self, key: u32) -> Option<u32>;
    /// The first number of the current context (tag 3).
    fn context_first(&self) -> u32;
    /// The number of selectable lists (tags 4 and 5).
    fn list_count(&self) -> u32;
    /// The child keys of list `index` (`index < list_count()`).
    fn list(&self, index: u32) -> Vec<u32>;
    /// Tag 5's per-object answer: zero continues, non-zero stops.
    fn tag5(&self, key: u32) -> u32;
}

/// Evaluates record `record` of `conditions`: a complete record stays complete; a
/// passing check sets its flag. Returns the flag.
pub fn evaluate(
    conditions: &mut [Condition],
    record: usize,
    world: &dyn ConditionWorld,
) -> Result<bool, AiError> {
    let Some(c) = conditions.get(record).copied() else {
        return Ok(false);
    };
    if c.done {
        return Ok(true);
    }
    let subtype_ok = match c.tag {
        1..=3 => c.subtype == 0,
        4 | 5 => c.subtype == 1,
        _ => false,
    };
    if !subtype_ok {
        return Ok(false);
    }
    let pass = match c.tag {
        1 => !world.exists(c.payload),
        2 => {
            world.exists(c.payload)
                && match world.tag2(c.payload) {
                    Tag2Check::Simple(ok) => ok,
                    Tag2Check::Code(code) => TAG2_PASSING_CODES.contains(&code),
                }
        }
        3 => world.value(c.payload) == Some(world.context_first()),
        _ => {
            let len = world.list_count();
            if c.payload > len {
                return Ok(false);
            }
            if c.payload == len {
                return Err(AiError::IndexEqualsLength {
                    record,
                    index: c.payload,
                });
            }
            let keys = world.list(c.payload);
            let present = keys
                .iter()
                .filter(|&&k| k != NO_ELEMENT)
                .filter(|&&k| world.exists(k));
            if c.tag == 4 {
                present.count() == 0
            } else {
                present.map(|&k| world.tag5(k)).all(|a| a == 0)
            }
        }
    };
    if pass {
        conditions[record].done = true;
    }
    Ok(pass)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    struct World {
        objects: Vec<u32>,
        tag2: Tag2Check,
        context: u32,
        lists: Vec<Vec<u32>>,
        nonzero: Vec<u32>,
    }

    impl ConditionWorld for World {
        fn exists(&self, key: u32) -> bool {
            self.objects.contains(&key)
        }
        fn tag2(&self, _key: u32) -> Tag2Check {
            self.tag2
        }
        fn value(&self, key: u32) -> Option<u32> {
            self.exists(key).then_some(key * 10)
        }
        fn context_first(&self) -> u32 {
            self.context
        }
        fn list_count(&self) -> u32 {
            self.lists.len() as u32
        }
        fn list(&self, index: u32) -> Vec<u32> {
            self.lists[index as usize].clone()
        }
        fn tag5(&self, key: u32) -> u32 {
            u32::from(self.nonzero.contains(&key))
        }
    }

    fn world() -> World {
        World {
            objects: vec![1, 2, 3],
            tag2: Tag2Check::Code(0x12),
            context: 20,
            lists: vec![vec![NO_ELEMENT, 9], vec![1, NO_ELEMENT, 2]],
            nonzero: vec![],
        }
    }

    fn one(tag: u32, subtype: u32, payload: u32, w: &World) -> Result<bool, AiError> {
        let mut c = [Condition {
            tag,
            subtype,
            payload,
            done: false,
        }];
        let r = evaluate(&mut c, 0, w)?;
        assert_eq!(c[0].done, r);
        Ok(r)
    }

    #[test]
    fn tags_and_subtypes() {
        let w = world();
        assert!(one(1, 0, 7, &w).unwrap(), "tag 1: nothing found passes");
        assert!(!one(1, 0, 1, &w).unwrap());
        assert!(!one(1, 1, 7, &w).unwrap(), "tag 1 needs subtype 0");
        assert!(one(2, 0, 1, &w).unwrap());
        assert!(!one(2, 0, 7, &w).unwrap(), "tag 2 needs the object");
        for (code, pass) in [
            (1, true),
            (0x12, true),
            (0x13, true),
            (0, false),
            (2, false),
        ] {
            let w = World {
                tag2: Tag2Check::Code(code),
                ..world()
            };
            assert_eq!(one(2, 0, 1, &w).unwrap(), pass, "code {code:#x}");
        }
        let w2 = World {
            tag2: Tag2Check::Simple(false),
            ..world()
        };
        assert!(!one(2, 0, 1, &w2).unwrap());
        assert!(one(3, 0, 2, &w).unwrap(), "20 == context");
        assert!(!one(3, 0, 3, &w).unwrap());
        assert!(!one(4, 0, 0, &w).unwrap(), "tag 4 needs subtype 1");
        assert!(!one(6, 0, 0, &w).unwrap(), "unknown tag");
    }

    #[test]
    fn lists_skip_no_element_and_tag5_stops_at_non_zero() {
        let w = world();
        assert!(one(4, 1, 0, &w).unwrap(), "list 0: -1 skipped, 9 not found");
        assert!(!one(4, 1, 1, &w).unwrap(), "list 1 finds 1 and 2");
        assert!(one(5, 1, 1, &w).unwrap(), "all found answer zero");
        let w = World {
            nonzero: vec![2],
            ..world()
        };
        assert!(!one(5, 1, 1, &w).unwrap());
    }

    #[test]
    fn index_equal_to_length_is_the_exception() {
        let w = world();
        assert!(!one(4, 1, 3, &w).unwrap(), "index > length: plain false");
        let e = one(4, 1, 2, &w).unwrap_err();
        assert!(
            matches!(e, AiError::IndexEqualsLength { index: 2, .. }),
            "{e}"
        );
        assert!(one(5, 1, 2, &w).is_err());
    }

    #[test]
    fn complete_records_stay_complete() {
        let w = world();
        let mut c = [Condition {
            tag: 1,
            subtype: 0,
            payload: 1,
            done: true,
        }];
        assert!(evaluate(&mut c, 0, &w).unwrap());
        assert!(!evaluate(&mut c, 5, &w).unwrap(), "no such record");
    }
}
