//! The player's view as the seat (the input plugin) publishes it once per tick: where
//! the player looks and which units are selected. The kernel keeps the last one and
//! hands it to every render snapshot, so the presentation camera, the audio listener
//! and the selection markers all come from the same camera frame. It is derived from
//! plugin state (which is saved and hashed with the plugin), so it is not part of the
//! state hash itself.

/// The published view (see the module docs).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlayerView {
    /// The eye (world, Z up).
    pub eye: [f32; 3],
    /// Horizontal angle in `[0, 2π)` (0 along +X, counter-clockwise).
    pub yaw: f32,
    /// Vertical angle (positive up).
    pub pitch: f32,
    /// Horizontal field of view in radians; 0: the presentation's default.
    pub fov: f32,
    /// How the view is placed (the interface's `ViewMode` number).
    pub mode: u32,
    /// The followed or possessed unit's id (0: none).
    pub subject: u32,
    /// Interface `VIEW_*` flags.
    pub flags: u32,
    /// Selected unit ids, ascending, without repeats.
    pub selected: Vec<u32>,
    /// The tick that published it.
    pub tick: u64,
}

impl PlayerView {
    /// Whether every number is finite and the selection ascends without repeats.
    pub fn is_valid(&self) -> bool {
        self.eye.iter().all(|v| v.is_finite())
            && self.yaw.is_finite()
            && self.pitch.is_finite()
            && self.fov.is_finite()
            && self.fov >= 0.0
            && self.selected.windows(2).all(|w| w[0] < w[1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_finite_numbers_and_unsorted_selections_are_invalid() {
        let ok = PlayerView {
            selected: vec![1, 5],
            ..PlayerView::default()
        };
        assert!(ok.is_valid());
        let mut v = ok.clone();
        v.eye[1] = f32::NAN;
        assert!(!v.is_valid());
        let mut v = ok.clone();
        v.selected = vec![5, 5];
        assert!(!v.is_valid());
        let mut v = ok;
        v.fov = -1.0;
        assert!(!v.is_valid());
    }
}
