//! FFI-safe math types (`#[repr(C)]`, `StableAbi`) with lossless conversions to and from glam.

use abi_stable::StableAbi;

/// A 3-component vector.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, Default, PartialEq)]
pub struct Vec3f {
    /// X.
    pub x: f32,
    /// Y.
    pub y: f32,
    /// Z.
    pub z: f32,
}

/// A quaternion `(x, y, z, w)`.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq)]
pub struct Quatf {
    /// X.
    pub x: f32,
    /// Y.
    pub y: f32,
    /// Z.
    pub z: f32,
    /// W.
    pub w: f32,
}

impl Default for Quatf {
    fn default() -> Self {
        Self {
            x: 0.0,
            y: 0.0,
            z: 0.0,
            w: 1.0,
        }
    }
}

/// A column-major 4×4 matrix (glam's layout).
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq)]
pub struct Mat4f {
    /// The 16 elements, column by column.
    pub cols: [f32; 16],
}

impl Default for Mat4f {
    fn default() -> Self {
        glam::Mat4::IDENTITY.into()
    }
}

impl From<glam::Vec3> for Vec3f {
    fn from(v: glam::Vec3) -> Self {
        Self {
            x: v.x,
            y: v.y,
            z: v.z,
        }
    }
}

impl From<Vec3f> for glam::Vec3 {
    fn from(v: Vec3f) -> Self {
        glam::Vec3::new(v.x, v.y, v.z)
    }
}

impl From<glam::Quat> for Quatf {
    fn from(q: glam::Quat) -> Self {
        Self {
            x: q.x,
            y: q.y,
            z: q.z,
            w: q.w,
        }
    }
}

impl From<Quatf> for glam::Quat {
    fn from(q: Quatf) -> Self {
        glam::Quat::from_xyzw(q.x, q.y, q.z, q.w)
    }
}

impl From<glam::Mat4> for Mat4f {
    fn from(m: glam::Mat4) -> Self {
        Self {
            cols: m.to_cols_array(),
        }
    }
}

impl From<Mat4f> for glam::Mat4 {
    fn from(m: Mat4f) -> Self {
        glam::Mat4::from_cols_array(&m.cols)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glam_roundtrips_are_bit_exact() {
        let v = glam::Vec3::new(1.5, -0.0, f32::MIN_POSITIVE);
        assert_eq!(glam::Vec3::from(Vec3f::from(v)), v);
        let q = glam::Quat::from_rotation_z(0.7);
        assert_eq!(glam::Quat::from(Quatf::from(q)), q);
        let m = glam::Mat4::from_rotation_translation(q, v);
        assert_eq!(glam::Mat4::from(Mat4f::from(m)), m);
    }
}
