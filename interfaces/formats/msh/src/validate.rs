//! The strict checks of FORMATS §7.12 / tome V, one function per group, run by
//! [`crate::Msh::parse`] in the order of [`Check::ALL`]. Every size is computed with
//! checked or 64-bit arithmetic before use; nothing is allocated beyond what the input's
//! own counts justify.

use crate::error::{Check, Expected, Found, Location, MshError};
use crate::hierarchy;
use crate::model::{MTCHECK_NODE_STRIDE, Msh, NODE38_STRIDE, NodeLayout, Stream, stream_type};
use crate::records::{NONE_U16, Node38, Record, SLOT_HEADER_SIZE, Slot68};
use std::collections::BTreeMap;

type Result<T> = std::result::Result<T, MshError>;

fn at(s: &Stream<'_>) -> Location {
    Location::stream(s.type_id).entry(Some(s.index))
}

/// Stream-level checks: presence, duplicates, strides, the slot table framing.
pub(crate) fn streams(streams: &[Stream<'_>]) -> Result<NodeLayout> {
    for t in stream_type::REQUIRED {
        let n = streams.iter().filter(|s| s.type_id == t).count();
        if n != 1 {
            let e = streams
                .iter()
                .filter(|s| s.type_id == t)
                .nth(1)
                .map(|s| s.index);
            return Err(MshError::invalid(
                Check::RequiredStream,
                Location::stream(t).entry(e),
                "entries of this type",
                Expected::Exactly(1),
                n as u64,
            ));
        }
    }
    for t in stream_type::OPTIONAL_TYPED {
        if let Some(dup) = streams.iter().filter(|s| s.type_id == t).nth(1) {
            return Err(MshError::invalid(
                Check::DuplicateStream,
                at(dup),
                "entries of this type",
                Expected::AtMost(1),
                2,
            ));
        }
    }
    let mut layout = NodeLayout::Node38;
    for s in streams {
        let size = s.data.len() as u64;
        let stride = match s.type_id {
            stream_type::NODES => {
                layout = match s.attr3 {
                    NODE38_STRIDE => NodeLayout::Node38,
                    MTCHECK_NODE_STRIDE => NodeLayout::Opaque24,
                    other => {
                        return Err(MshError::invalid(
                            Check::NodeStride,
                            at(s),
                            "attr3 (node stride)",
                            Expected::OneOf(&[38, 24]),
                            u64::from(other),
                        ));
                    }
                };
                Some(u64::from(s.attr3))
            }
            stream_type::SLOTS => {
                if size < SLOT_HEADER_SIZE as u64 {
                    return Err(MshError::invalid(
                        Check::SlotTable,
                        at(s),
                        "payload size",
                        Expected::AtLeast(SLOT_HEADER_SIZE as u64),
                        size,
                    ));
                }
                let rest = size - SLOT_HEADER_SIZE as u64;
                if rest % Slot68::SIZE as u64 != 0 {
                    return Err(MshError::invalid(
                        Check::SlotTable,
                        at(s),
                        "payload size - 0x8C",
                        Expected::MultipleOf(Slot68::SIZE as u64),
                        rest,
                    ));
                }
                None
            }
            t => stream_type::stride(t).map(|v| v as u64),
        };
        if let Some(stride) = stride
            && size % stride != 0
        {
            return Err(MshError::invalid(
                Check::StreamStride,
                at(s),
                "payload size",
                Expected::MultipleOf(stride),
                size,
            ));
        }
    }
    Ok(layout)
}

fn find(msh: &Msh<'_>, t: u32) -> Location {
    let s = msh.stream(t);
    Location::stream(t).entry(s.map(|s| s.index))
}

/// Cross-reference checks of a model whose streams passed [`streams`].
pub(crate) fn model(msh: &Msh<'_>) -> Result<()> {
    let slot_count = msh.slot_count() as u64;
    let nodes_at = find(msh, stream_type::NODES);
    for (i, node) in msh.nodes().enumerate() {
        for (j, &sid) in node.slot_index.iter().enumerate() {
            if sid != NONE_U16 && u64::from(sid) >= slot_count {
                return Err(MshError::invalid(
                    Check::SlotIndex,
                    nodes_at.record(i, Node38::SIZE, 8 + 2 * j),
                    "slot_index",
                    Expected::LessThan(slot_count),
                    u64::from(sid),
                ));
            }
        }
    }
    slots(msh)?;
    batches(msh)?;
    animation(msh)?;
    parents(msh)?;
    names(msh)
}

fn slots(msh: &Msh<'_>) -> Result<()> {
    let slots_at = find(msh, stream_type::SLOTS);
    let rec = |i: usize, field: usize| {
        slots_at
            .record(i, Slot68::SIZE, field)
            .offset((SLOT_HEADER_SIZE + i * Slot68::SIZE + field) as u64)
    };
    let tri_count = msh.tris().len() as u64;
    let batch_count = msh.batches().len() as u64;
    for (i, s) in msh.slots().enumerate() {
        let end = u64::from(s.tri_start) + u64::from(s.tri_count);
        if end > tri_count {
            return Err(MshError::invalid(
                Check::TriRange,
                rec(i, 0),
                "tri_start + tri_count",
                Expected::AtMost(tri_count),
                end,
            ));
        }
        let end = u64::from(s.batch_start) + u64::from(s.batch_count);
        if end > batch_count {
            return Err(MshError::invalid(
                Check::BatchRange,
                rec(i, 4),
                "batch_start + batch_count",
                Expected::AtMost(batch_count),
                end,
            ));
        }
    }
    Ok(())
}

/// `slot_bounds` runs after the index checks, as [`Check::ALL`] lists it.
fn bounds(msh: &Msh<'_>) -> Result<()> {
    let slots_at = find(msh, stream_type::SLOTS);
    for (i, s) in msh.slots().enumerate() {
        let base = SLOT_HEADER_SIZE + i * Slot68::SIZE;
        for axis in 0..3 {
            let (lo, hi) = (s.aabb_min[axis], s.aabb_max[axis]);
            let bad = if !lo.is_finite() {
                Some((0x08, "aabb_min finite", lo))
            } else if !hi.is_finite() {
                Some((0x14, "aabb_max finite", hi))
            } else if lo > hi {
                Some((0x14, "aabb_max >= aabb_min", hi))
            } else {
                None
            };
            if let Some((field, what, v)) = bad {
                return Err(MshError::Invalid {
                    check: Check::SlotBounds,
                    at: slots_at
                        .record(i, Slot68::SIZE, field + 4 * axis)
                        .offset((base + field + 4 * axis) as u64),
                    what,
                    expected: Expected::Condition("finite, min <= max"),
                    found: Found::Float(v),
                });
            }
        }
        let r = s.sphere_radius;
        if !(r.is_finite() && r >= 0.0) {
            return Err(MshError::Invalid {
                check: Check::SlotBounds,
                at: slots_at
                    .record(i, Slot68::SIZE, 0x2C)
                    .offset((base + 0x2C) as u64),
                what: "sphere_radius",
                expected: Expected::Condition("finite and >= 0"),
                found: Found::Float(r),
            });
        }
    }
    Ok(())
}

/// Maximum of `u16` words over ranges, by blocks of 64 (one `u16` per block).
struct RangeMax<'a> {
    words: &'a [u8],
    blocks: Vec<u16>,
}

const BLOCK: usize = 64;

impl<'a> RangeMax<'a> {
    fn new(words: &'a [u8]) -> Self {
        let blocks = words
            .chunks(BLOCK * 2)
            .map(|c| {
                c.chunks_exact(2)
                    .map(|w| u16::from_le_bytes([w[0], w[1]]))
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        Self { words, blocks }
    }

    fn word(&self, i: usize) -> u16 {
        self.words
            .get(2 * i..2 * i + 2)
            .map_or(0, |w| u16::from_le_bytes([w[0], w[1]]))
    }

    /// Max over `[start, end)`; the caller guarantees `end <= len`.
    fn max(&self, start: usize, end: usize) -> Option<u16> {
        let mut best: Option<u16> = None;
        let mut i = start;
        while i < end {
            if i % BLOCK == 0 && i + BLOCK <= end {
                let b = self.blocks.get(i / BLOCK).copied().unwrap_or(0);
                best = Some(best.map_or(b, |m| m.max(b)));
                i += BLOCK;
            } else {
                let w = self.word(i);
                best = Some(best.map_or(w, |m| m.max(w)));
                i += 1;
            }
        }
        best
    }
}

fn batches(msh: &Msh<'_>) -> Result<()> {
    let batches_at = find(msh, stream_type::BATCHES);
    let index_count = msh.index_count() as u64;
    let vertex_count = msh.vertex_count() as u64;
    let words = msh.stream(stream_type::INDICES).map_or(&[][..], |s| s.data);
    let rmax = RangeMax::new(words);
    for (i, b) in msh.batches().enumerate() {
        let start = u64::from(b.index_start);
        let end = start + u64::from(b.index_count);
        if end > index_count {
            return Err(MshError::invalid(
                Check::IndexRange,
                batches_at.record(i, 20, 0x0A),
                "index_start + index_count",
                Expected::AtMost(index_count),
                end,
            ));
        }
        // Both bounds fit usize now: they are at most the number of u16 in the input.
        let (s, e) = (start as usize, end as usize);
        if let Some(max) = rmax.max(s, e) {
            let base = u64::from(b.base_vertex);
            if base + u64::from(max) >= vertex_count {
                let pos = (s..e).find(|&k| base + u64::from(rmax.word(k)) >= vertex_count);
                let k = pos.unwrap_or(s);
                return Err(MshError::invalid(
                    Check::VertexRange,
                    batches_at.record(i, 20, 0x10),
                    "base_vertex + index (index at type-6 element given as found - base_vertex)",
                    Expected::LessThan(vertex_count),
                    base + u64::from(rmax.word(k)),
                ));
            }
        }
    }
    bounds(msh)
}

fn animation(msh: &Msh<'_>) -> Result<()> {
    let nodes_at = find(msh, stream_type::NODES);
    let has_keys = msh.stream(stream_type::KEYS).is_some();
    let key_count = msh.key_count() as u64;
    if has_keys {
        for (i, n) in msh.nodes().enumerate() {
            if u64::from(n.fallback_key) >= key_count {
                return Err(MshError::invalid(
                    Check::FallbackKey,
                    nodes_at.record(i, Node38::SIZE, 6),
                    "fallback_key",
                    Expected::LessThan(key_count),
                    u64::from(n.fallback_key),
                ));
            }
        }
    }
    let frames = u64::from(msh.frame_count());
    let map_len = msh.frame_map_len() as u64;
    // Sweep events: (word position, +1/-1, fallback key of the node).
    let mut events: Vec<(u64, bool, u16)> = Vec::new();
    for (i, n) in msh.nodes().enumerate() {
        if n.anim_map_start == NONE_U16 {
            continue;
        }
        let end = u64::from(n.anim_map_start) + frames;
        if end > map_len {
            return Err(MshError::invalid(
                Check::FrameMapBlock,
                nodes_at.record(i, Node38::SIZE, 4),
                "anim_map_start + frame_count (type-19 words)",
                Expected::AtMost(map_len),
                end,
            ));
        }
        if frames > 0 {
            events.push((u64::from(n.anim_map_start), true, n.fallback_key));
            events.push((end, false, n.fallback_key));
        }
    }
    if !has_keys || events.is_empty() {
        return Ok(());
    }
    events.sort_unstable();
    let keys_at = find(msh, stream_type::KEYS);
    let mut active: BTreeMap<u16, usize> = BTreeMap::new();
    let mut ev = events.iter().peekable();
    let mut p = 0u64;
    while p < map_len {
        while let Some(&&(pos, start, fb)) = ev.peek() {
            if pos > p {
                break;
            }
            if start {
                *active.entry(fb).or_insert(0) += 1;
            } else if let Some(c) = active.get_mut(&fb) {
                *c -= 1;
                if *c == 0 {
                    active.remove(&fb);
                }
            }
            ev.next();
        }
        let Some((&max_fb, _)) = active.last_key_value() else {
            // Jump to the next event: nothing is mapped here.
            match ev.peek() {
                Some(&&(pos, _, _)) => {
                    p = pos;
                    continue;
                }
                None => break,
            }
        };
        let w = msh.frame_map_word(p as usize).unwrap_or(NONE_U16);
        if w < max_fb {
            let k = usize::from(w);
            if let (Some(k0), Some(k1)) = (msh.key(k), msh.key(k + 1))
                && k0.time.partial_cmp(&k1.time) != Some(std::cmp::Ordering::Less)
            {
                return Err(MshError::Invalid {
                    check: Check::KeyTimes,
                    at: keys_at.record(k + 1, 24, 0x0C),
                    what: "time of the next key of a mapped pair",
                    expected: Expected::Condition("greater than the time of the mapped key"),
                    found: Found::Float(k1.time),
                });
            }
        }
        p += 1;
    }
    Ok(())
}

fn parents(msh: &Msh<'_>) -> Result<()> {
    let nodes_at = find(msh, stream_type::NODES);
    let count = msh.node_count();
    for (i, n) in msh.nodes().enumerate() {
        if n.parent != NONE_U16 && usize::from(n.parent) >= count {
            return Err(MshError::invalid(
                Check::ParentLink,
                nodes_at.record(i, Node38::SIZE, 2),
                "parent_or_link",
                Expected::LessThan(count as u64),
                u64::from(n.parent),
            ));
        }
    }
    let parents: Vec<Option<usize>> = msh.nodes().map(|n| n.parent()).collect();
    match hierarchy::order(&parents) {
        Ok(_) => Ok(()),
        Err(MshError::Cycle { node }) => Err(MshError::invalid(
            Check::ParentCycle,
            nodes_at.record(node, Node38::SIZE, 2),
            "parent chain",
            Expected::Condition("a chain that ends at a root"),
            parents.get(node).copied().flatten().unwrap_or(0) as u64,
        )),
        Err(e) => Err(e),
    }
}

/// A type-10 record: the name (`None` for `len == 0`) and the position after it.
pub(crate) type NameRecord<'a> = (Option<&'a [u8]>, usize);

/// One type-10 record at `pos`: `Ok(None)` at the end of the data, else the name
/// (`None` for `len == 0`) and the position after the record.
pub(crate) fn name_record(data: &[u8], pos: usize) -> Result<Option<NameRecord<'_>>> {
    if pos >= data.len() {
        return Ok(None);
    }
    let loc = Location::stream(stream_type::NAMES).offset(pos as u64);
    let Some(len) = data.get(pos..pos + 4) else {
        return Err(MshError::invalid(
            Check::NodeNames,
            loc,
            "bytes for the u32 length",
            Expected::AtLeast(4),
            (data.len() - pos) as u64,
        ));
    };
    let len = u64::from(u32::from_le_bytes([len[0], len[1], len[2], len[3]]));
    let body = pos as u64 + 4;
    if len == 0 {
        return Ok(Some((None, pos + 4)));
    }
    let end = body + len + 1;
    if end > data.len() as u64 {
        return Err(MshError::invalid(
            Check::NodeNames,
            loc,
            "name length + NUL",
            Expected::AtMost(data.len() as u64 - body),
            len + 1,
        ));
    }
    let (body, end) = (body as usize, end as usize);
    if data[end - 1] != 0 {
        return Err(MshError::invalid(
            Check::NodeNames,
            Location::stream(stream_type::NAMES).offset((end - 1) as u64),
            "name terminator",
            Expected::Exactly(0),
            u64::from(data[end - 1]),
        ));
    }
    Ok(Some((Some(&data[body..end - 1]), end)))
}

fn names(msh: &Msh<'_>) -> Result<()> {
    let Some(s) = msh.stream(stream_type::NAMES) else {
        return Ok(());
    };
    if msh.node_layout() == NodeLayout::Opaque24 {
        return Ok(()); // node count unknown: kept raw
    }
    let count = msh.node_count();
    let mut pos = 0;
    let mut n = 0usize;
    while let Some((_, next)) = name_record(s.data, pos).map_err(|e| relocate(e, s))? {
        n += 1;
        pos = next;
        if n > count {
            break;
        }
    }
    if n != count {
        return Err(MshError::invalid(
            Check::NodeNames,
            at(s).offset(pos as u64),
            "name records (one per node, ending at the payload end)",
            Expected::Exactly(count as u64),
            n as u64,
        ));
    }
    Ok(())
}

fn relocate(e: MshError, s: &Stream<'_>) -> MshError {
    match e {
        MshError::Invalid {
            check,
            mut at,
            what,
            expected,
            found,
        } => {
            at.entry = Some(s.index);
            MshError::Invalid {
                check,
                at,
                what,
                expected,
                found,
            }
        }
        other => other,
    }
}
