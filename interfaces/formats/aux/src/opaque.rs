//! Formats whose byte layout the sources do not give (spec §11.2–§11.5, §11.7): NDPR,
//! EXPL, reference arrays, SUND and BASE. Each is kept whole as opaque bytes so that
//! editing tools round-trip them exactly; the only strict check is a non-empty payload
//! (every counted resource holds at least one record, key, version field or polygon).

use crate::error::{AuxError, Format, Record};

macro_rules! opaque_format {
    ($(#[$doc:meta])* $name:ident, $fmt:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct $name {
            raw: Vec<u8>,
        }

        impl $name {
            /// Parses the payload: non-empty, otherwise kept raw (opaque).
            pub fn parse(bytes: &[u8]) -> Result<Self, AuxError> {
                Self::from_raw(bytes.to_vec())
            }

            /// Authors the payload from raw bytes (must be non-empty).
            pub fn from_raw(raw: Vec<u8>) -> Result<Self, AuxError> {
                if raw.is_empty() {
                    return Err(AuxError::Truncated {
                        format: $fmt,
                        record: Record(None),
                        field: "payload",
                        offset: 0,
                        need: 1,
                        have: 0,
                    });
                }
                Ok($name { raw })
            }

            /// The whole payload (opaque).
            pub fn raw(&self) -> &[u8] {
                &self.raw
            }

            /// Serialises byte-identically to the parsed input.
            pub fn to_bytes(&self) -> Vec<u8> {
                self.raw.clone()
            }
        }
    };
}

opaque_format!(
    /// NDPR / `*.ndp` provider rows (§11.2): record layout undocumented; kept raw, record
    /// order preserved by construction.
    Ndpr,
    Format::Ndpr
);
opaque_format!(
    /// EXPL (§11.3): versions 1–3; the version field's location is undocumented, so the
    /// whole payload stays opaque.
    Expl,
    Format::Expl
);
opaque_format!(
    /// `ReferenceArray` (§11.4): same-kind reference records whose layout the sources
    /// do not give; kept raw.
    RefArray,
    Format::RefArray
);
opaque_format!(
    /// SUND (§11.5): system-object parameters (12 keys in 2 resources); layout undocumented.
    Sund,
    Format::Sund
);
opaque_format!(
    /// BASE / `*.bas` (§11.7): exactly one polygon record, layout undocumented; never
    /// geometry. Kept byte-for-byte.
    Base,
    Format::Base
);
