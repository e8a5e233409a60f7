//! Typed device records (FORMATS §11.6 "Typed device records"): the strict common
//! reader (Control `+0x21D50`), a writer that round-trips, and the runtime [`Device`]
//! with the initial factory values.
//!
//! Record layout (little endian):
//!
//! ```text
//! u8  fixed[0xB0]      fixed words; word 1 (+0x04) key, word 6 (+0x18) field-50 word,
//!                      word 11 (+0x2C) coefficient bits, word 43 (+0xAC) value_count
//! u32 values[value_count]
//! u32 text_len
//! u8  text[text_len] + NUL   (only if text_len != 0)
//! ```
//!
//! Where the tag is stored is not stated by the spec, so the caller passes it.

use crate::error::{ControlError, Result};

/// Size of the fixed block in bytes.
pub const FIXED_SIZE: usize = 0xB0;
/// Number of `u32` words in the fixed block.
pub const FIXED_WORDS: usize = FIXED_SIZE / 4;
/// Word index of the key (+0x04), the NDP row key for tag 26.
pub const WORD_KEY: usize = 1;
/// Word index of the field-50 word (+0x18); [`KEEP_FACTORY_FIELD_50`] keeps the
/// factory value of device field +0x50.
pub const WORD_FIELD_50: usize = 0x18 / 4;
/// Word index of the coefficient bits (+0x2C, `fixed_words[11]`).
pub const WORD_COEFFICIENT: usize = 11;
/// Word index of `value_count` (+0xAC).
pub const WORD_VALUE_COUNT: usize = 0xAC / 4;
/// Record word +0x18 value that keeps the factory value of field +0x50.
pub const KEEP_FACTORY_FIELD_50: u32 = 0xFFFF_FFFF;

/// A Control factory tag (the dispatcher `+0x2D4B0` creates one device per record,
/// keyed by tag).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FactoryTag(pub u32);

/// How the common record reader supports a factory tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReaderSupport {
    /// FORMATS §11.6 lists the tag as read by the common reader (2, 3, 4, 5, 8, 10,
    /// 21, 27).
    Spec,
    /// Tome 06 shows the tag's record going through the same reader `0x21D50`
    /// (tag 19: override slot +0x1C; tag 26: its coefficient is copied there).
    /// **Inferred.**
    Inferred,
    /// Not known to use the common reader: reported as unsupported.
    Unsupported,
}

impl FactoryTag {
    /// Resource-device tag whose getter 0x300 multiplies provider × coefficient ×
    /// multiplier.
    pub const RESOURCE: FactoryTag = FactoryTag(26);
    /// Aggregate tag 19 (getters 1/2, setter 1).
    pub const AGGREGATE: FactoryTag = FactoryTag(19);
    /// Tag 9: selector 0 multiplies by field +0x11C.
    pub const SCALED: FactoryTag = FactoryTag(9);

    /// Whether the common reader consumes records of this tag.
    pub const fn reader_support(self) -> ReaderSupport {
        match self.0 {
            2 | 3 | 4 | 5 | 8 | 10 | 21 | 27 => ReaderSupport::Spec,
            19 | 26 => ReaderSupport::Inferred,
            _ => ReaderSupport::Unsupported,
        }
    }

    /// The factory's initial value of field +0x50 (FORMATS §11.6): 0 for tags 2 and
    /// 27, 5 for tags 3, 5, 8 and 21, `0x200` for tag 4, `0x2000` for tag 10; `None`
    /// where the spec gives no value.
    pub const fn initial_field_50(self) -> Option<u32> {
        match self.0 {
            2 | 27 => Some(0),
            3 | 5 | 8 | 21 => Some(5),
            4 => Some(0x200),
            10 => Some(0x2000),
            _ => None,
        }
    }
}

/// One typed device record, exactly as stored. Invariants (kept by every
/// constructor): `fixed[43] == values.len()`, `text` is `None` or non-empty, and every
/// length fits `u32`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceRecord {
    tag: FactoryTag,
    fixed: [u32; FIXED_WORDS],
    values: Vec<u32>,
    text: Option<Vec<u8>>,
}

impl DeviceRecord {
    /// Builds a record; `fixed[43]` is set to `values.len()` and an empty text becomes
    /// `None`. Fails when a length does not fit `u32`.
    pub fn new(
        tag: FactoryTag,
        mut fixed: [u32; FIXED_WORDS],
        values: Vec<u32>,
        text: Option<Vec<u8>>,
    ) -> Result<Self> {
        fixed[WORD_VALUE_COUNT] =
            u32::try_from(values.len()).map_err(|_| ControlError::Unencodable {
                reason: "value count exceeds u32",
            })?;
        let text = text.filter(|t| !t.is_empty());
        if let Some(t) = &text {
            // text_len is a u32 and the NUL follows it.
            if u32::try_from(t.len()).is_err() {
                return Err(ControlError::Unencodable {
                    reason: "text length exceeds u32",
                });
            }
        }
        Ok(Self {
            tag,
            fixed,
            values,
            text,
        })
    }

    /// A record with all fixed words zero except key, coefficient bits and the
    /// field-50 word, and no values or text (a convenience for synthetic inputs).
    pub fn synthetic(tag: FactoryTag, key: u32, coefficient: f32, field_50_word: u32) -> Self {
        let mut fixed = [0u32; FIXED_WORDS];
        fixed[WORD_KEY] = key;
        fixed[WORD_COEFFICIENT] = coefficient.to_bits();
        fixed[WORD_FIELD_50] = field_50_word;
        Self {
            tag,
            fixed,
            values: Vec::new(),
            text: None,
        }
    }

    /// The same record with fixed word `index` set; word 43 (`value_count`) and
    /// indices ≥ 44 are refused.
    pub fn with_fixed_word(mut self, index: usize, value: u32) -> Result<Self> {
        if index >= WORD_VALUE_COUNT {
            return Err(ControlError::FixedWordIndex { index });
        }
        self.fixed[index] = value;
        Ok(self)
    }

    /// The factory tag given when the record was read or built.
    pub fn tag(&self) -> FactoryTag {
        self.tag
    }

    /// The 44 fixed words (`fixed_words[0..44]`).
    pub fn fixed(&self) -> &[u32; FIXED_WORDS] {
        &self.fixed
    }

    /// The value entries.
    pub fn values(&self) -> &[u32] {
        &self.values
    }

    /// The text without its NUL; `None` when `text_len == 0`.
    pub fn text(&self) -> Option<&[u8]> {
        self.text.as_deref()
    }

    /// Key word +0x04 (`fixed_words[1]`).
    pub fn key(&self) -> u32 {
        self.fixed[WORD_KEY]
    }

    /// Coefficient word +0x2C (`fixed_words[11]`) as `f32` bits.
    pub fn coefficient_bits(&self) -> u32 {
        self.fixed[WORD_COEFFICIENT]
    }

    /// Word +0x18: [`KEEP_FACTORY_FIELD_50`] or the new value of field +0x50.
    pub fn field_50_word(&self) -> u32 {
        self.fixed[WORD_FIELD_50]
    }

    /// Encoded length in bytes (`0xB0 + 4·count + 4 + (text_len + 1 if text)`).
    pub fn encoded_len(&self) -> usize {
        FIXED_SIZE + 4 * self.values.len() + 4 + self.text.as_ref().map_or(0, |t| t.len() + 1)
    }

    /// Reads one record of factory tag `tag` starting at `offset` of `bytes`; returns
    /// it and the offset just past it. Strict: every field is bounds-checked (errors
    /// name the absolute offset), `value_count` is checked against the remaining bytes
    /// before any allocation, and a non-empty text must end with NUL. Tags not read by
    /// the common reader fail as [`ControlError::UnsupportedTag`].
    pub fn read(bytes: &[u8], offset: usize, tag: FactoryTag) -> Result<(Self, usize)> {
        if tag.reader_support() == ReaderSupport::Unsupported {
            return Err(ControlError::UnsupportedTag {
                tag: tag.0,
                operation: "the common device record reader",
            });
        }
        // The framing is the CTLD codec's (`iron3d_aux::TypedRecord`): one reader.
        let at = bytes.get(offset..).unwrap_or(&[]);
        let (r, len) = iron3d_aux::TypedRecord::parse(at)
            .map_err(|source| ControlError::Record { offset, source })?;
        let mut fixed = [0u32; FIXED_WORDS];
        for (w, b) in fixed.iter_mut().zip(r.fixed.chunks_exact(4)) {
            *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
        Ok((
            Self {
                tag,
                fixed,
                values: r.values,
                text: (!r.text.is_empty()).then_some(r.text),
            },
            offset + len,
        ))
    }

    /// Reads consecutive records, one per entry of `tags`, starting at `offset`;
    /// returns them and the end offset. Fails on the first bad record.
    pub fn read_many(
        bytes: &[u8],
        offset: usize,
        tags: &[FactoryTag],
    ) -> Result<(Vec<Self>, usize)> {
        let mut out = Vec::new();
        let mut at = offset;
        for &tag in tags {
            let (r, end) = Self::read(bytes, at, tag)?;
            out.push(r);
            at = end;
        }
        Ok((out, at))
    }

    /// Appends the encoding to `out`; [`DeviceRecord::read`] of the result gives back
    /// an equal record (the tag is not encoded).
    pub fn write(&self, out: &mut Vec<u8>) {
        let mut fixed = [0u8; FIXED_SIZE];
        for (b, w) in fixed.chunks_exact_mut(4).zip(self.fixed) {
            b.copy_from_slice(&w.to_le_bytes());
        }
        let r = iron3d_aux::TypedRecord {
            fixed,
            values: self.values.clone(),
            text: self.text.clone().unwrap_or_default(),
        };
        out.extend_from_slice(&r.to_bytes());
    }

    /// The encoding as a new buffer.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut v = Vec::new();
        self.write(&mut v);
        v
    }
}

/// A runtime Control device (one slot of the device table).
///
/// Fields modelled (offsets of the native object): key +0x04, component ID +0x08,
/// value entries +0x1C/+0x20, multiplier +0x4C (initially 1.0), field +0x50,
/// coefficient +0x54, tag-9 scale +0x11C (initially 1.0).
#[derive(Debug, Clone, PartialEq)]
pub struct Device {
    factory_tag: FactoryTag,
    current_tag: FactoryTag,
    key: u32,
    component_id: i32,
    multiplier: f32,
    field_50: Option<u32>,
    coefficient_bits: u32,
    value_entries: Vec<u32>,
    scale_11c: f32,
    record: DeviceRecord,
}

impl Device {
    /// The factory path: a new device of the record's tag with the record's key.
    /// Multiplier 1.0, tag-9 scale 1.0, coefficient from `fixed_words[11]`, field
    /// +0x50 = record word +0x18 unless it is [`KEEP_FACTORY_FIELD_50`] (then the
    /// factory value, `None` when the spec gives none), value entries = the record's.
    pub fn create(record: &DeviceRecord, component_id: i32) -> Self {
        Self::create_with_key(record, component_id, record.key())
    }

    /// As [`Device::create`] but with key +0x04 replaced (the EXTO key remap).
    pub fn create_with_key(record: &DeviceRecord, component_id: i32, key: u32) -> Self {
        let tag = record.tag();
        let field_50 = if record.field_50_word() == KEEP_FACTORY_FIELD_50 {
            tag.initial_field_50()
        } else {
            Some(record.field_50_word())
        };
        Self {
            factory_tag: tag,
            current_tag: tag,
            key,
            component_id,
            multiplier: 1.0,
            field_50,
            coefficient_bits: record.coefficient_bits(),
            value_entries: record.values().to_vec(),
            scale_11c: 1.0,
            record: record.clone(),
        }
    }

    /// The INTO override (Control `+0x2D890`, slot +0x1C with init flag 0): keeps
    /// factory tag (class/vtable), key, component ID and multiplier; sets the current
    /// descriptor tag and record; copies the coefficient; sets field +0x50 only when
    /// word +0x18 is not −1; **appends** the value entries to +0x1C/+0x20
    /// (PD-CTRL-VALUE-ENTRIES).
    pub fn apply_override(&mut self, record: &DeviceRecord) {
        self.current_tag = record.tag();
        self.coefficient_bits = record.coefficient_bits();
        if record.field_50_word() != KEEP_FACTORY_FIELD_50 {
            self.field_50 = Some(record.field_50_word());
        }
        self.value_entries.extend_from_slice(record.values());
        self.record = record.clone();
    }

    /// Factory tag (class and vtable; never changed by an override).
    pub fn factory_tag(&self) -> FactoryTag {
        self.factory_tag
    }

    /// Current descriptor tag (the tag of the last applied record).
    pub fn current_tag(&self) -> FactoryTag {
        self.current_tag
    }

    /// Key +0x04 (model node or NDP row key).
    pub fn key(&self) -> u32 {
        self.key
    }

    /// Component ID +0x08.
    pub fn component_id(&self) -> i32 {
        self.component_id
    }

    /// Multiplier +0x4C.
    pub fn multiplier(&self) -> f32 {
        self.multiplier
    }

    /// Sets multiplier +0x4C (what setter 1 writes).
    pub fn set_multiplier(&mut self, multiplier: f32) {
        self.multiplier = multiplier;
    }

    /// Field +0x50; `None` when neither the record nor the spec gives a value.
    pub fn field_50(&self) -> Option<u32> {
        self.field_50
    }

    /// Coefficient +0x54 as `f32` bits.
    pub fn coefficient_bits(&self) -> u32 {
        self.coefficient_bits
    }

    /// Coefficient +0x54.
    pub fn coefficient(&self) -> f32 {
        f32::from_bits(self.coefficient_bits)
    }

    /// Value entries +0x1C/+0x20, accumulated over create and overrides.
    pub fn value_entries(&self) -> &[u32] {
        &self.value_entries
    }

    /// Tag-9 field +0x11C (1.0 after construction; used only by factory tag 9).
    pub fn scale_11c(&self) -> f32 {
        self.scale_11c
    }

    /// Sets field +0x11C.
    pub fn set_scale_11c(&mut self, scale: f32) {
        self.scale_11c = scale;
    }

    /// The current typed record (the last one applied).
    pub fn record(&self) -> &DeviceRecord {
        &self.record
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn fx_record() -> DeviceRecord {
        let mut fixed = [0u32; FIXED_WORDS];
        fixed[WORD_KEY] = 3;
        fixed[WORD_COEFFICIENT] = 1.5f32.to_bits();
        fixed[WORD_FIELD_50] = KEEP_FACTORY_FIELD_50;
        DeviceRecord::new(FactoryTag(4), fixed, vec![7, 9], Some(b"fx".to_vec())).unwrap()
    }

    /// FORMATS §11.6: values 7, 9 and text `fx` end the record at +0xBF.
    #[test]
    fn spec_example_ends_at_0xbf() {
        let bytes = fx_record().to_bytes();
        assert_eq!(bytes.len(), 0xBF);
        let mut padded = vec![0xEEu8; 5];
        padded.extend_from_slice(&bytes);
        padded.extend_from_slice(&[1, 2, 3]);
        let (r, end) = DeviceRecord::read(&padded, 5, FactoryTag(4)).unwrap();
        assert_eq!(end, 5 + 0xBF);
        assert_eq!(r.values(), &[7, 9]);
        assert_eq!(r.text(), Some(&b"fx"[..]));
        assert_eq!(r.fixed()[WORD_VALUE_COUNT], 2);
        assert_eq!(r, fx_record());
    }

    #[test]
    fn round_trip_without_text() {
        let r = DeviceRecord::synthetic(FactoryTag(2), 5, 2.0, 0x33);
        let bytes = r.to_bytes();
        assert_eq!(bytes.len(), 0xB0 + 4);
        let (back, end) = DeviceRecord::read(&bytes, 0, FactoryTag(2)).unwrap();
        assert_eq!((back, end), (r, bytes.len()));
    }

    #[test]
    fn read_many_is_sequential() {
        let a = fx_record();
        let b = DeviceRecord::synthetic(FactoryTag(27), 1, 1.0, 0);
        let mut bytes = a.to_bytes();
        b.write(&mut bytes);
        let (rs, end) =
            DeviceRecord::read_many(&bytes, 0, &[FactoryTag(4), FactoryTag(27)]).unwrap();
        assert_eq!(rs, vec![a, b]);
        assert_eq!(end, bytes.len());
    }

    /// The full error chain as one line.
    fn chain(e: &ControlError) -> String {
        let mut s = e.to_string();
        let mut src = std::error::Error::source(e);
        while let Some(c) = src {
            s.push_str(": ");
            s.push_str(&c.to_string());
            src = c.source();
        }
        s
    }

    #[test]
    fn huge_value_count_is_rejected_before_allocation() {
        let mut bytes = fx_record().to_bytes();
        bytes[0xAC..0xB0].copy_from_slice(&u32::MAX.to_le_bytes());
        let e = DeviceRecord::read(&bytes, 0, FactoryTag(4)).unwrap_err();
        assert!(matches!(e, ControlError::Record { offset: 0, .. }), "{e}");
        assert!(chain(&e).contains("record.values"), "{}", chain(&e));
    }

    #[test]
    fn every_truncation_fails_with_an_offset() {
        let bytes = fx_record().to_bytes();
        let mut shifted = vec![0u8; 5];
        shifted.extend_from_slice(&bytes);
        for cut in 0..bytes.len() {
            let e = DeviceRecord::read(&bytes[..cut], 0, FactoryTag(4)).unwrap_err();
            assert!(chain(&e).contains("offset"), "{cut}: {e}");
            let e = DeviceRecord::read(&shifted[..cut + 5], 5, FactoryTag(4)).unwrap_err();
            assert!(e.to_string().contains("offset 0x5"), "absolute offset: {e}");
        }
        // Past the end of the input entirely.
        assert!(DeviceRecord::read(&bytes, usize::MAX, FactoryTag(4)).is_err());
        let (r, end) = DeviceRecord::read(&shifted, 5, FactoryTag(4)).unwrap();
        assert_eq!((r, end), (fx_record(), shifted.len()));
    }

    #[test]
    fn missing_nul_and_huge_text_len() {
        let mut bytes = fx_record().to_bytes();
        let last = bytes.len() - 1;
        bytes[last] = b'!';
        let e = DeviceRecord::read(&bytes, 0, FactoryTag(4)).unwrap_err();
        assert!(chain(&e).contains("record.text_nul"), "{}", chain(&e));
        let mut bytes = fx_record().to_bytes();
        bytes[0xB8..0xBC].copy_from_slice(&u32::MAX.to_le_bytes());
        let e = DeviceRecord::read(&bytes, 0, FactoryTag(4)).unwrap_err();
        assert!(chain(&e).contains("record.text"), "{}", chain(&e));
    }

    #[test]
    fn unknown_tag_is_unsupported() {
        let bytes = fx_record().to_bytes();
        assert!(matches!(
            DeviceRecord::read(&bytes, 0, FactoryTag(99)),
            Err(ControlError::UnsupportedTag { tag: 99, .. })
        ));
        assert_eq!(FactoryTag(26).reader_support(), ReaderSupport::Inferred);
        assert_eq!(FactoryTag(10).reader_support(), ReaderSupport::Spec);
    }

    /// FORMATS §11.6 "Initial factory values".
    #[test]
    fn initial_factory_values() {
        let cases = [
            (2, 0),
            (3, 5),
            (5, 5),
            (8, 5),
            (21, 5),
            (4, 0x200),
            (10, 0x2000),
            (27, 0),
        ];
        for (tag, want) in cases {
            let d = Device::create(
                &DeviceRecord::synthetic(FactoryTag(tag), 1, 1.0, KEEP_FACTORY_FIELD_50),
                0,
            );
            assert_eq!(d.field_50(), Some(want), "tag {tag}");
            assert_eq!(d.multiplier(), 1.0);
        }
        let d9 = Device::create(
            &DeviceRecord::synthetic(FactoryTag(9), 1, 1.0, KEEP_FACTORY_FIELD_50),
            0,
        );
        assert_eq!((d9.field_50(), d9.scale_11c()), (None, 1.0));
        // A word other than -1 sets +0x50 on the create path too.
        let d = Device::create(&DeviceRecord::synthetic(FactoryTag(4), 1, 1.0, 7), 0);
        assert_eq!(d.field_50(), Some(7));
    }

    #[test]
    fn override_keeps_identity_and_appends_values() {
        let mut d = Device::create(&fx_record(), 12);
        d.set_multiplier(2.5);
        let mut over = DeviceRecord::synthetic(FactoryTag(19), 77, 4.0, KEEP_FACTORY_FIELD_50);
        over = DeviceRecord::new(FactoryTag(19), *over.fixed(), vec![1, 2], None).unwrap();
        d.apply_override(&over);
        assert_eq!(d.factory_tag(), FactoryTag(4));
        assert_eq!(d.current_tag(), FactoryTag(19));
        assert_eq!((d.key(), d.component_id(), d.multiplier()), (3, 12, 2.5));
        assert_eq!(d.coefficient(), 4.0);
        assert_eq!(d.field_50(), Some(0x200));
        assert_eq!(d.value_entries(), &[7, 9, 1, 2]);
        d.apply_override(&DeviceRecord::synthetic(FactoryTag(19), 0, 4.0, 9));
        assert_eq!(d.field_50(), Some(9));
    }

    #[test]
    fn fixed_word_guard() {
        let r = DeviceRecord::synthetic(FactoryTag(2), 0, 0.0, 0);
        assert!(r.clone().with_fixed_word(WORD_VALUE_COUNT, 5).is_err());
        assert!(r.clone().with_fixed_word(44, 5).is_err());
        assert_eq!(r.with_fixed_word(2, 5).unwrap().fixed()[2], 5);
    }
}
