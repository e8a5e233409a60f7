//! How a MAT0 phase is drawn. **Project decision PD-MAT-4, not the confirmed layer**: the
//! sources keep the 18 phase parameter bytes raw and leave the render-state mapping open
//! (FORMATS §8.2, §16 items 20 and 30). The runtime needs one, so we name it here:
//!
//! | byte | meaning (ours) |
//! |---|---|
//! | `parameters[15]` bit 0 | two-sided (no back-face culling) |
//! | `parameters[16]` | surface mode: `0` opaque, `1` alpha-tested, `2` alpha-blended, `3` additive |
//! | `parameters[17]` | alpha reference of the alpha test (`alpha >= ref` passes) |
//!
//! Bytes `0..15` and the other bits of byte 15 stay uninterpreted. An unknown mode byte
//! is reported as [`SurfaceMode::Unknown`] and drawn opaque by the renderer (a named
//! rule with its own test, never a silent reinterpretation). Original data may disagree
//! with this choice: the table changes here once evidence appears.

use crate::mat0::Phase;

/// Byte of the surface mode.
pub const SURFACE_MODE_BYTE: usize = 16;
/// Byte of the alpha reference.
pub const ALPHA_REF_BYTE: usize = 17;
/// Byte whose bit 0 marks a two-sided surface.
pub const SURFACE_FLAGS_BYTE: usize = 15;

/// How a surface combines with the frame (PD-MAT-4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SurfaceMode {
    /// Writes colour and depth.
    Opaque,
    /// Opaque where `alpha >= alpha_ref`, nothing elsewhere.
    AlphaTested,
    /// `src·α + dst·(1−α)`, drawn back to front, no depth write.
    AlphaBlended,
    /// `src·α + dst`, drawn back to front, no depth write.
    Additive,
    /// A mode byte outside `0..=3` (drawn opaque).
    Unknown(u8),
}

impl SurfaceMode {
    /// The mode byte this mode is written as.
    pub fn to_byte(self) -> u8 {
        match self {
            SurfaceMode::Opaque => 0,
            SurfaceMode::AlphaTested => 1,
            SurfaceMode::AlphaBlended => 2,
            SurfaceMode::Additive => 3,
            SurfaceMode::Unknown(b) => b,
        }
    }

    /// The mode of byte `b`.
    pub fn from_byte(b: u8) -> Self {
        match b {
            0 => SurfaceMode::Opaque,
            1 => SurfaceMode::AlphaTested,
            2 => SurfaceMode::AlphaBlended,
            3 => SurfaceMode::Additive,
            other => SurfaceMode::Unknown(other),
        }
    }
}

/// The drawing properties of one phase under PD-MAT-4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Surface {
    /// Blending family.
    pub mode: SurfaceMode,
    /// Alpha reference (meaningful for [`SurfaceMode::AlphaTested`]).
    pub alpha_ref: u8,
    /// Draw both sides.
    pub two_sided: bool,
}

impl Surface {
    /// An opaque one-sided surface.
    pub const OPAQUE: Surface = Surface {
        mode: SurfaceMode::Opaque,
        alpha_ref: 0,
        two_sided: false,
    };

    /// Reads the surface of `params` (a phase's 18 parameter bytes).
    pub fn from_parameters(params: &[u8; crate::PHASE_PARAMETERS]) -> Self {
        Self {
            mode: SurfaceMode::from_byte(params[SURFACE_MODE_BYTE]),
            alpha_ref: params[ALPHA_REF_BYTE],
            two_sided: params[SURFACE_FLAGS_BYTE] & 1 != 0,
        }
    }

    /// Reads the surface of `phase`.
    pub fn of(phase: &Phase) -> Self {
        Self::from_parameters(phase.parameters())
    }

    /// Writes this surface into `params`, keeping every other byte and bit.
    pub fn apply(&self, params: &mut [u8; crate::PHASE_PARAMETERS]) {
        params[SURFACE_MODE_BYTE] = self.mode.to_byte();
        params[ALPHA_REF_BYTE] = self.alpha_ref;
        params[SURFACE_FLAGS_BYTE] = (params[SURFACE_FLAGS_BYTE] & !1) | u8::from(self.two_sided);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_parameters_are_an_opaque_one_sided_surface() {
        assert_eq!(Surface::from_parameters(&[0; 18]), Surface::OPAQUE);
    }

    #[test]
    fn apply_then_read_gives_the_surface_back_and_keeps_other_bytes() {
        for mode in [
            SurfaceMode::Opaque,
            SurfaceMode::AlphaTested,
            SurfaceMode::AlphaBlended,
            SurfaceMode::Additive,
            SurfaceMode::Unknown(9),
        ] {
            let mut p = [0xA5u8; 18];
            let s = Surface {
                mode,
                alpha_ref: 128,
                two_sided: true,
            };
            s.apply(&mut p);
            assert_eq!(Surface::from_parameters(&p), s);
            assert_eq!(p[15] & !1, 0xA5 & !1, "other bits of byte 15 kept");
            assert!(p[..15].iter().all(|&b| b == 0xA5));
        }
    }

    #[test]
    fn unknown_mode_bytes_are_named_not_reinterpreted() {
        let mut p = [0u8; 18];
        p[SURFACE_MODE_BYTE] = 4;
        assert_eq!(Surface::from_parameters(&p).mode, SurfaceMode::Unknown(4));
    }
}
