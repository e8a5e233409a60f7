//! Procedural pictures of the demo's textures: seamless fractal noise (the `noise` crate's
//! fBm over Perlin noise, sampled on a 4-D torus so that every picture tiles) seeded from
//! the generator's stream, shaped into materials — riveted steel plates, rust, hazard
//! stripes, corrugated sheet, camouflage, track links, grilles, wheels, concrete slabs,
//! roller shutters, windows, louvres, girders, molten ore, slag, water, grass, rock,
//! asphalt, glass and a grate — and the soft ambient-occlusion shading of the model
//! lightmaps.
//!
//! **Model texture layout** (project convention of the demo): a model material's texture
//! is a 2×2 atlas of [`Region`]s; the MSH faces map into one quarter, which quarter
//! choosing the look ([`steel`], [`camo`], [`concrete`], [`lava`]). Glass and grate show
//! the same picture in each quarter (faces use [`PANE`]). A model lightmap, addressed
//! by the same UVs, darkens the border and the foot of each quarter.

use crate::shapes::Region;
use iron3d_texm::{RgbaImage, TexmError};
use noise::{Fbm, MultiFractal, NoiseFn, Perlin};
use rand_chacha::ChaCha8Rng;
use rand_core::RngCore;
use std::f64::consts::TAU;

/// Linear RGB in `0..=1`.
type Rgb = [f32; 3];

/// The quarters of `STEEL`'s texture.
pub(crate) mod steel {
    use crate::shapes::Region;
    /// Blue-grey plates with seams and rivets.
    pub(crate) const PLATE: Region = Region::A;
    /// Rusted, weathered steel.
    pub(crate) const RUST: Region = Region::B;
    /// Worn yellow and black hazard stripes.
    pub(crate) const HAZARD: Region = Region::C;
    /// Corrugated, ribbed sheet.
    pub(crate) const RIBS: Region = Region::D;
}

/// The quarters of `CAMO`'s texture.
pub(crate) mod camo {
    use crate::shapes::Region;
    /// Three-tone camouflage paint over riveted plates.
    pub(crate) const PAINT: Region = Region::A;
    /// Dark track links (and tyre treads around wheels).
    pub(crate) const TREAD: Region = Region::B;
    /// Engine grille: painted frame, dark slats.
    pub(crate) const GRILLE: Region = Region::C;
    /// A wheel seen from the side: tyre, painted disc, hub and bolts (also lamps and
    /// hatches on cylinder caps).
    pub(crate) const WHEEL: Region = Region::D;
}

/// The quarters of `CONCRETE`'s texture.
pub(crate) mod concrete {
    use crate::shapes::Region;
    /// Cast slabs with seams, tie holes, stains and cracks.
    pub(crate) const SLAB: Region = Region::A;
    /// A painted roller shutter.
    pub(crate) const SHUTTER: Region = Region::B;
    /// A row of framed windows, some lit.
    pub(crate) const WINDOWS: Region = Region::C;
    /// Dark louvres.
    pub(crate) const VENT: Region = Region::D;
}

/// The quarters of `LAVA`'s textures (one per animation phase: the girder and slag
/// quarters are the same in every phase, the molten and glowing ones flow and pulse).
pub(crate) mod lava {
    use crate::shapes::Region;
    /// Rusty riveted girders.
    pub(crate) const GIRDER: Region = Region::A;
    /// Flowing molten ore.
    pub(crate) const MOLTEN: Region = Region::B;
    /// Glowing hot metal.
    pub(crate) const GLOW: Region = Region::C;
    /// Dark slag crust with glowing cracks.
    pub(crate) const SLAG: Region = Region::D;
}

/// The quarter glass and grate faces use (their pictures repeat in every quarter).
pub(crate) const PANE: Region = Region::A;

/// What a texture shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Look {
    /// Neutral grey primer plate (`DEFAULT`).
    Primer,
    /// The [`steel`] atlas; `true`: the worn variant of a second phase.
    Steel(bool),
    /// The [`camo`] atlas.
    Camo,
    /// The [`camo`] atlas with clan `.0`'s paint: blue-grey (0) or rust-red (1).
    ClanCamo(u8),
    /// Bluish translucent glass, alpha 90..=160.
    Glass,
    /// The [`concrete`] atlas; `true`: the worn variant of a second phase.
    Concrete(bool),
    /// The [`lava`] atlas, phase `.0` of `.1`.
    Lava(u32, u32),
    /// Water, phase `.0` of `.1` (ripples scroll one period over the loop).
    Water(u32, u32),
    /// HUD pieces on a transparent page: a radar disc, a gauge bar, a button.
    Hud,
    /// Steel bars (alpha 255) around square holes (alpha 0).
    Grate,
    /// Meadow grass.
    Grass,
    /// Weathered rock.
    Rock,
    /// Asphalt with gravel.
    Road,
}

/// Bar width and period (texels of a 32-texel grate) of the grate.
pub(crate) const GRATE_BAR: u32 = 2;
/// See [`GRATE_BAR`].
pub(crate) const GRATE_PERIOD: u32 = 8;

/// Seamless fBm over the unit square.
struct Tile(Fbm<Perlin>);

impl Tile {
    fn new(rng: &mut ChaCha8Rng, octaves: usize) -> Tile {
        Tile(Fbm::<Perlin>::new(rng.next_u32()).set_octaves(octaves))
    }

    /// About `cs` × `ct` features over the square, period 1 in `s` and `t`; roughly
    /// `-1..1`, mostly `-0.5..0.5`.
    fn at2(&self, s: f32, t: f32, cs: f32, ct: f32) -> f32 {
        let (rs, rt) = (f64::from(cs) / TAU, f64::from(ct) / TAU);
        let (a, b) = (f64::from(s) * TAU, f64::from(t) * TAU);
        self.0
            .get([rs * a.cos(), rs * a.sin(), rt * b.cos(), rt * b.sin()]) as f32
    }

    fn at(&self, s: f32, t: f32, cells: f32) -> f32 {
        self.at2(s, t, cells, cells)
    }
}

/// The noises one material's textures share (its phases stay coherent).
pub(crate) struct Noises {
    a: Tile,
    b: Tile,
    c: Tile,
    d: Tile,
}

impl Noises {
    /// Four noises seeded from the stream.
    pub(crate) fn new(rng: &mut ChaCha8Rng) -> Noises {
        Noises {
            a: Tile::new(rng, 4),
            b: Tile::new(rng, 4),
            c: Tile::new(rng, 3),
            d: Tile::new(rng, 2),
        }
    }
}

fn mix(a: Rgb, b: Rgb, t: f32) -> Rgb {
    let t = t.clamp(0.0, 1.0);
    [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
    ]
}

fn mul(a: Rgb, k: f32) -> Rgb {
    [a[0] * k, a[1] * k, a[2] * k]
}

fn smooth(e0: f32, e1: f32, x: f32) -> f32 {
    let t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

fn fract(x: f32) -> f32 {
    x - x.floor()
}

fn byte(v: f32) -> u8 {
    (v.clamp(0.0, 1.0) * 255.0).round() as u8
}

/// A `size`×`size` image from `f(s, t)` → `(rgb, alpha)` at texel centres.
fn image(size: u32, f: impl Fn(f32, f32) -> (Rgb, f32)) -> Result<RgbaImage, TexmError> {
    let mut px = Vec::with_capacity((size * size * 4) as usize);
    for y in 0..size {
        for x in 0..size {
            let (s, t) = (
                (x as f32 + 0.5) / size as f32,
                (y as f32 + 0.5) / size as f32,
            );
            let (c, a) = f(s, t);
            px.extend_from_slice(&[byte(c[0]), byte(c[1]), byte(c[2]), byte(a)]);
        }
    }
    RgbaImage::new(size, size, px)
}

/// [`image`] quarter by quarter: `f(region, s, t)` with `(s, t)` local to the quarter.
fn atlas(size: u32, f: impl Fn(Region, f32, f32) -> (Rgb, f32)) -> Result<RgbaImage, TexmError> {
    image(size, |s, t| {
        let r = match (s >= 0.5, t >= 0.5) {
            (false, false) => Region::A,
            (true, false) => Region::B,
            (false, true) => Region::C,
            (true, true) => Region::D,
        };
        f(r, fract(s * 2.0), fract(t * 2.0))
    })
}

/// Distance from the border of the unit square.
fn border(s: f32, t: f32) -> f32 {
    s.min(1.0 - s).min(t).min(1.0 - t)
}

/// Brightness factor of a riveted plate at `(s, t)`: a dark seam along the border, a
/// bevel lit from the top left, `n` domed rivets per side.
fn plate(s: f32, t: f32, n: u32) -> f32 {
    const SEAM: f32 = 0.035;
    const BEVEL: f32 = 0.08;
    const ROW: f32 = 0.12;
    const RADIUS: f32 = 0.05;
    let e = border(s, t);
    if e < SEAM {
        return 0.5;
    }
    let mut k = 1.0;
    if e < BEVEL {
        let lit = s.min(t) <= (1.0 - s).min(1.0 - t);
        k += if lit { 0.14 } else { -0.14 };
    }
    // Nearest rivet of the four rows.
    let n = n as f32;
    let along = |x: f32| ((x * n - 0.5).round().clamp(0.0, n - 1.0) + 0.5) / n;
    let centres = [
        [along(s), ROW],
        [along(s), 1.0 - ROW],
        [ROW, along(t)],
        [1.0 - ROW, along(t)],
    ];
    for [cx, cy] in centres {
        let (dx, dy) = ((s - cx) / RADIUS, (t - cy) / RADIUS);
        let d2 = dx * dx + dy * dy;
        if d2 < 1.0 {
            return if d2 > 0.7 {
                0.6
            } else {
                1.05 - 0.35 * (dx + dy)
            };
        }
    }
    k
}

/// Dirt gathering towards the foot of a face (`t → 1`), broken up by `n`.
fn grime(t: f32, n: f32) -> f32 {
    smooth(0.55, 1.0, t) * (0.5 + n).clamp(0.0, 1.0)
}

const STEEL: Rgb = [0.50, 0.54, 0.58];
const RUST_DARK: Rgb = [0.28, 0.15, 0.08];
const RUST_ORANGE: Rgb = [0.62, 0.32, 0.12];
const MUD: Rgb = [0.27, 0.22, 0.16];
const OLIVE: Rgb = [0.36, 0.40, 0.22];
const FOREST: Rgb = [0.17, 0.23, 0.13];
const BROWN: Rgb = [0.40, 0.30, 0.19];
const RUBBER: Rgb = [0.11, 0.11, 0.11];
const CONCRETE: Rgb = [0.60, 0.58, 0.54];

fn rust(n: &Noises, s: f32, t: f32) -> Rgb {
    let a = n.a.at(s, t, 4.0);
    let pits = n.c.at(s, t, 24.0);
    let streak = n.b.at2(s, t, 10.0, 1.5);
    let mut c = mix(RUST_DARK, RUST_ORANGE, 0.5 + 1.4 * a + 0.5 * streak);
    if a < -0.25 {
        // Remnants of the grey paint.
        c = mix(c, mul(STEEL, 0.85), smooth(-0.25, -0.4, a));
    }
    if pits > 0.3 {
        c = mul(c, 0.7);
    }
    mul(c, plate(s, t, 4).min(1.0) * 0.3 + 0.7)
}

fn steel_px(n: &Noises, r: Region, s: f32, t: f32, worn: bool) -> Rgb {
    let fine = n.c.at(s, t, 20.0);
    let brushed = n.d.at2(s, t, 2.0, 24.0);
    match r {
        Region::A => {
            let mut c = mul(STEEL, 1.0 + 0.08 * brushed + 0.06 * fine);
            let spots = n.a.at(s, t, 5.0);
            let rust_at = if worn { 0.1 } else { 0.28 };
            if spots > rust_at {
                c = mix(c, rust(n, s, t), smooth(rust_at, rust_at + 0.15, spots));
            }
            c = mix(c, MUD, 0.55 * grime(t, n.b.at(s, t, 6.0)));
            mul(c, plate(s, t, 5))
        }
        Region::B => rust(n, s, t),
        Region::C => {
            let stripe = fract((s + t) * 3.0) < 0.5;
            let mut c: Rgb = if stripe {
                [0.86, 0.66, 0.09]
            } else {
                [0.09, 0.09, 0.08]
            };
            c = mul(c, 1.0 + 0.08 * fine);
            let wear = n.a.at(s, t, 6.0) + 0.25 * fine;
            if wear > if worn { 0.12 } else { 0.25 } {
                c = mix(STEEL, rust(n, s, t), smooth(0.3, 0.5, wear));
            }
            c = mix(c, MUD, 0.4 * grime(t, n.b.at(s, t, 6.0)));
            mul(c, plate(s, t, 4))
        }
        Region::D => {
            let rib = (std::f32::consts::TAU * s * 6.0).sin();
            let mut c = mul([0.56, 0.58, 0.58], 0.82 + 0.2 * rib + 0.05 * fine);
            let streaks = n.b.at2(s, t, 12.0, 1.0);
            c = mix(c, RUST_DARK, (0.35 * grime(t, streaks)).max(0.0));
            if border(s, t) < 0.02 { mul(c, 0.55) } else { c }
        }
    }
}

fn camo_px(n: &Noises, r: Region, s: f32, t: f32) -> Rgb {
    let fine = n.c.at(s, t, 20.0);
    match r {
        Region::A => {
            let a = n.a.at(s, t, 1.5);
            let b = n.b.at(s, t, 2.0);
            let mut c = if a > 0.12 {
                BROWN
            } else if b > 0.1 {
                FOREST
            } else {
                OLIVE
            };
            c = mul(c, 1.0 + 0.06 * fine);
            c = mix(c, MUD, 0.6 * grime(t, n.d.at(s, t, 5.0)));
            mul(c, plate(s, t, 4))
        }
        Region::B => {
            // Links across u: a raised plate, a lit leading edge, a dark gap, a pin.
            let l = fract(s * 5.0);
            let mut k = if l < 0.12 {
                0.35
            } else if l < 0.22 {
                1.35
            } else {
                1.0
            };
            if (0.45..0.55).contains(&t) && l > 0.2 {
                k *= 0.75;
            }
            if !(0.1..=0.9).contains(&t) && (0.4..0.7).contains(&l) {
                k *= 1.3;
            }
            let c = mix([0.22, 0.22, 0.21], RUST_DARK, 0.4 + n.a.at(s, t, 6.0));
            let c = mix(c, MUD, 0.3 + 0.4 * n.b.at(s, t, 4.0));
            mul(c, k * (1.0 + 0.1 * fine))
        }
        Region::C => {
            if border(s, t) < 0.12 {
                mul(mix(OLIVE, MUD, 0.2), plate(s, t, 3))
            } else {
                let l = fract(t * 7.0);
                let k = if l < 0.25 {
                    1.2
                } else if l < 0.55 {
                    0.75
                } else {
                    0.18
                };
                mul([0.20, 0.21, 0.19], k * (1.0 + 0.15 * fine))
            }
        }
        Region::D => {
            let (dx, dy) = (s - 0.5, t - 0.5);
            let rr = 2.0 * (dx * dx + dy * dy).sqrt();
            let angle = dy.atan2(dx);
            // Light from the top left on the disc.
            let dome = 1.0 - 0.35 * (dx + dy);
            if rr > 0.66 {
                let notch = rr > 0.86 && fract(angle / std::f32::consts::TAU * 18.0) < 0.3;
                let bulge = 1.0 + 0.5 * (1.0 - ((rr - 0.82) / 0.16).abs()).max(0.0);
                mul(
                    RUBBER,
                    if notch { 0.6 } else { bulge } * (1.0 + 0.15 * fine),
                )
            } else if rr > 0.6 {
                [0.06, 0.06, 0.06]
            } else if rr > 0.3 {
                let hole = (0..6).any(|k| {
                    let a = k as f32 * std::f32::consts::TAU / 6.0;
                    let (hx, hy) = (0.22 * a.cos(), 0.22 * a.sin());
                    (dx - hx).powi(2) + (dy - hy).powi(2) < 0.04 * 0.04
                });
                if hole {
                    [0.05, 0.05, 0.05]
                } else {
                    mul(OLIVE, 0.8 * dome * (1.0 + 0.08 * fine))
                }
            } else {
                let bolt = (0..8).any(|k| {
                    let a = k as f32 * std::f32::consts::TAU / 8.0;
                    let (hx, hy) = (0.11 * a.cos(), 0.11 * a.sin());
                    (dx - hx).powi(2) + (dy - hy).powi(2) < 0.02 * 0.02
                });
                if bolt {
                    [0.8, 0.8, 0.75]
                } else if rr < 0.12 {
                    mul(FOREST, dome)
                } else {
                    mul(STEEL, dome * 0.8)
                }
            }
        }
    }
}

fn concrete_px(n: &Noises, r: Region, s: f32, t: f32, worn: bool) -> Rgb {
    let fine = n.c.at(s, t, 24.0);
    let slab = |s: f32, t: f32| {
        let mottle = n.a.at(s, t, 3.0);
        let mut c = mul(CONCRETE, 1.0 + 0.12 * mottle + 0.06 * fine);
        // Water stains run down from the top, dirt gathers at the foot.
        let stain = n.b.at2(s, t, 9.0, 1.2);
        c = mul(c, 1.0 - (0.25 * (stain + 0.2) * (1.2 - t)).max(0.0));
        c = mix(c, MUD, 0.5 * grime(t, n.d.at(s, t, 4.0)));
        // Hairline cracks on the worn variant.
        if worn && n.a.at(s + 0.37, t, 4.0).abs() < 0.04 {
            c = mul(c, 0.7);
        }
        // Seams (border and mid-height) and tie holes.
        let e = border(s, t).min((t - 0.5).abs());
        if e < 0.02 {
            c = mul(c, 0.55);
        }
        let (hx, hy) = (fract(s * 3.0) - 0.5, fract(t * 4.0) - 0.5);
        if hx * hx + hy * hy < 0.01 {
            c = mul(c, 0.6);
        }
        c
    };
    match r {
        Region::A => slab(s, t),
        Region::B => {
            if !(0.07..=0.93).contains(&s) {
                return mul([0.30, 0.31, 0.32], 1.0 + 0.1 * fine);
            }
            let l = fract(t * 10.0);
            let k =
                0.85 + 0.25 * (l * std::f32::consts::PI).sin() - if l < 0.1 { 0.3 } else { 0.0 };
            let mut c = mul([0.30, 0.42, 0.50], k * (1.0 + 0.06 * fine));
            let chips = n.a.at(s, t, 8.0);
            if chips > 0.3 {
                c = mix(c, rust(n, s, t), 0.7);
            }
            if t > 0.95 {
                c = RUBBER;
            }
            mix(c, MUD, 0.45 * grime(t, n.b.at(s, t, 5.0)))
        }
        Region::C => {
            let (cs, ct) = (fract(s * 4.0), fract(t * 2.0));
            if cs < 0.12 || !(0.1..=0.92).contains(&ct) {
                return mul([0.72, 0.72, 0.70], 1.0 + 0.06 * fine);
            }
            let pane = (s * 4.0).floor() + 4.0 * (t * 2.0).floor();
            let lit = n.d.at(pane / 8.0, 0.3, 3.0) > 0.15;
            if lit {
                mix([0.95, 0.82, 0.50], [0.75, 0.58, 0.30], ct)
            } else {
                let sheen = smooth(0.1, 0.0, (cs - ct * 0.6 - 0.25).abs());
                mix(
                    mix([0.42, 0.52, 0.60], [0.14, 0.19, 0.25], ct),
                    [0.75, 0.82, 0.88],
                    0.5 * sheen,
                )
            }
        }
        Region::D => {
            if border(s, t) < 0.08 {
                return mul([0.45, 0.46, 0.46], plate(s, t, 3));
            }
            let l = fract(t * 8.0);
            let k = if l < 0.3 { 1.1 - l } else { 0.25 };
            mul([0.32, 0.34, 0.35], k * (1.0 + 0.1 * fine))
        }
    }
}

/// Which effect sprite [`sprite`] paints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sprite {
    /// A soft grey puff: billowing noise inside a round, feathered alpha (alpha-blended
    /// smoke).
    Smoke,
    /// A fire ball: white-hot core through orange to black at the rim, flickering
    /// tongues of noise; alpha 1 (an additive sprite fades by its colour).
    Fire,
}

/// A `size`×`size` effect sprite (PD-RENDER-EFFECT-TEXTURES draws it on particles and
/// billboards): round and centred, from two noises of the stream; the smoke's alpha
/// and the fire's colour fall to zero at the rim.
pub(crate) fn sprite(
    look: Sprite,
    size: u32,
    rng: &mut ChaCha8Rng,
) -> Result<RgbaImage, TexmError> {
    let billow = Tile::new(rng, 4);
    let tongues = Tile::new(rng, 3);
    image(size, |s, t| {
        let (x, y) = (s * 2.0 - 1.0, t * 2.0 - 1.0);
        let r = (x * x + y * y).sqrt();
        let n = billow.at(s, t, 3.0);
        match look {
            Sprite::Smoke => {
                // The rim wobbles with the noise; the body is lighter where it billows.
                let edge = 0.92 + 0.12 * n;
                let a = (1.0 - smooth(0.35 * edge, edge, r)) * (0.75 + 0.5 * n).clamp(0.3, 1.0);
                let grey = 0.62 + 0.3 * n - 0.15 * r;
                ([grey, grey, grey * 1.03], a)
            }
            Sprite::Fire => {
                let lick = tongues.at2(s, t, 2.0, 5.0);
                let h = (1.0 - smooth(0.0, 0.95 + 0.15 * lick, r)) * (0.85 + 0.45 * n);
                (heat(h), 1.0)
            }
        }
    })
}

/// Molten ore colour for heat `h` in `0..=1`.
fn heat(h: f32) -> Rgb {
    let ramp: [(f32, Rgb); 4] = [
        (0.0, [0.10, 0.05, 0.04]),
        (0.35, [0.55, 0.08, 0.02]),
        (0.7, [1.0, 0.42, 0.05]),
        (1.0, [1.0, 0.88, 0.45]),
    ];
    let h = h.clamp(0.0, 1.0);
    for w in ramp.windows(2) {
        if h <= w[1].0 {
            return mix(w[0].1, w[1].1, (h - w[0].0) / (w[1].0 - w[0].0));
        }
    }
    ramp[3].1
}

fn lava_px(n: &Noises, r: Region, s: f32, t: f32, phase: f32) -> Rgb {
    let fine = n.c.at(s, t, 20.0);
    let pulse = (std::f32::consts::TAU * phase).sin();
    match r {
        Region::A => {
            // An I-beam face: a web between two flanges, riveted.
            let flange = !(0.18..=0.82).contains(&s);
            let c = mix(
                rust(n, s, t),
                [0.24, 0.22, 0.21],
                0.45 + 0.3 * n.a.at(s, t, 3.0),
            );
            let mut c = mul(c, if flange { 1.15 } else { 0.85 });
            if (s - 0.1).abs() < 0.04 || (s - 0.9).abs() < 0.04 {
                c = mul(c, if fract(t * 6.0) < 0.3 { 1.4 } else { 1.0 });
            }
            mul(c, 1.0 + 0.1 * fine)
        }
        Region::B => {
            // Two layers scrolling one period per loop in opposite directions.
            let a = n.a.at(fract(s + phase), t, 3.0);
            let b = n.b.at(s, fract(t - phase), 4.0);
            let crust = smooth(0.02, 0.2, (a + 0.5 * b).abs());
            heat(0.95 - 0.75 * crust + 0.1 * fine)
        }
        Region::C => {
            heat(0.55 + 0.12 * pulse + 0.6 * n.a.at(s, fract(t + phase), 3.0) + 0.1 * fine)
        }
        Region::D => {
            let crack = n.b.at(s, t, 3.0).abs();
            let mut c = mul(
                [0.16, 0.14, 0.13],
                1.0 + 0.3 * n.a.at(s, t, 6.0) + 0.15 * fine,
            );
            if crack < 0.05 {
                c = heat(0.65 + 0.15 * pulse);
            }
            c
        }
    }
}

fn water_px(n: &Noises, s: f32, t: f32, phase: f32) -> Rgb {
    use std::f32::consts::TAU;
    let depth = n.a.at(s, t, 2.0);
    // Two wave trains with whole periods over the tile, warped by noise; each phase
    // moves them a third of a wave, so the loop closes.
    let warp = 2.5 * n.b.at(s, t, 3.0);
    let wave_a = (TAU * (3.0 * s + 2.0 * t + phase) + warp).sin();
    let wave_b = (TAU * (-2.0 * s + 4.0 * t + phase) + 0.7 * warp).sin();
    let crest = smooth(0.55, 0.95, 0.5 * (wave_a + wave_b));
    let c = mix([0.07, 0.20, 0.28], [0.16, 0.36, 0.42], 0.5 + depth);
    let c = mix(c, [0.55, 0.72, 0.78], 0.35 * crest);
    if n.c.at(s, fract(t + phase), 12.0) > 0.5 {
        mix(c, [0.9, 0.95, 1.0], 0.3)
    } else {
        c
    }
}

fn terrain_px(look: Look, n: &Noises, s: f32, t: f32) -> Rgb {
    let big = n.a.at(s, t, 3.0);
    let mid = n.b.at(s, t, 8.0);
    let fine = n.c.at(s, t, 28.0);
    match look {
        Look::Grass => {
            let mut c = mix([0.20, 0.34, 0.12], [0.40, 0.46, 0.19], 0.5 + 1.2 * big);
            c = mul(c, 1.0 + 0.15 * fine + 0.1 * mid);
            if big < -0.35 {
                c = mix(c, [0.36, 0.29, 0.19], smooth(-0.35, -0.5, big));
            }
            if fine > 0.5 {
                c = mix(c, [0.70, 0.68, 0.40], 0.5);
            }
            c
        }
        Look::Rock => {
            let strata = 0.06 * (t * 40.0 + 6.0 * mid).sin();
            let mut c = mul(
                mix([0.40, 0.37, 0.33], [0.56, 0.52, 0.46], 0.5 + big),
                1.0 + strata + 0.07 * fine,
            );
            let crack = n.d.at(s, t, 4.0).abs();
            if crack < 0.025 {
                c = mul(c, 0.72);
            }
            if mid > 0.3 {
                c = mix(c, [0.42, 0.46, 0.30], 0.4);
            }
            c
        }
        _ => {
            let mut c = mul([0.23, 0.23, 0.24], 1.0 + 0.2 * big + 0.12 * fine);
            if big < -0.3 {
                c = mul(c, 0.85);
            }
            if fine > 0.42 {
                c = mix(c, [0.45, 0.44, 0.42], 0.5);
            }
            if n.d.at(s, t, 4.0).abs() < 0.03 {
                c = mul(c, 0.75);
            }
            c
        }
    }
}

fn hud_px(s: f32, t: f32) -> (Rgb, f32) {
    let (x, y) = (s * 64.0, t * 64.0);
    if x < 32.0 && y < 32.0 {
        // A radar disc: dark glass, rings, a sweep.
        let (dx, dy) = ((x - 16.0) / 16.0, (y - 16.0) / 16.0);
        let r = (dx * dx + dy * dy).sqrt();
        if r > 1.0 {
            return ([0.0; 3], 0.0);
        }
        let ring = fract(r * 3.0) < 0.12 || r > 0.92;
        let sweep = dy.atan2(dx);
        let glow = smooth(-1.2, 0.0, sweep) * smooth(0.0, -0.05, sweep);
        let c = mix(
            [0.03, 0.12, 0.06],
            [0.3, 0.95, 0.4],
            if ring { 0.8 } else { glow },
        );
        (c, 0.85)
    } else if y < 16.0 {
        // A gauge bar: frame, green → red fill.
        let (u, v) = ((x - 32.0) / 32.0, y / 16.0);
        if !(0.06..=0.94).contains(&u) || !(0.2..=0.8).contains(&v) {
            return ([0.55, 0.58, 0.6], 1.0);
        }
        (
            mix(
                mix([0.2, 0.8, 0.2], [0.95, 0.85, 0.1], u * 2.0),
                [0.9, 0.15, 0.1],
                u * 2.0 - 1.0,
            ),
            1.0,
        )
    } else if x < 48.0 && y < 32.0 {
        // A bevelled button.
        let (u, v) = ((x - 32.0) / 16.0, (y - 16.0) / 16.0);
        (mul(STEEL, plate(u, v, 2)), 1.0)
    } else {
        ([0.0; 3], 0.0)
    }
}

/// The `size`×`size` picture of `look` from the material's noises.
pub(crate) fn paint(look: Look, size: u32, n: &Noises) -> Result<RgbaImage, TexmError> {
    let opaque = |c: Rgb| (c, 1.0);
    match look {
        Look::Primer => image(size, |s, t| {
            opaque(mul(
                [0.5, 0.5, 0.48],
                plate(s, t, 2) * (1.0 + 0.06 * n.c.at(s, t, 8.0)),
            ))
        }),
        Look::Steel(worn) => atlas(size, |r, s, t| opaque(steel_px(n, r, s, t, worn))),
        Look::Camo => atlas(size, |r, s, t| opaque(camo_px(n, r, s, t))),
        Look::ClanCamo(clan) => atlas(size, |r, s, t| {
            let c = camo_px(n, r, s, t);
            // Only the paint (quarter A) takes the clan's colour; tracks, grilles and
            // hubs stay as they are.
            let tint = if clan == 0 {
                [0.26, 0.36, 0.58]
            } else {
                [0.62, 0.30, 0.18]
            };
            opaque(if r == Region::A { mix(c, tint, 0.5) } else { c })
        }),
        Look::Concrete(worn) => atlas(size, |r, s, t| opaque(concrete_px(n, r, s, t, worn))),
        Look::Lava(k, frames) => {
            let phase = k as f32 / frames.max(1) as f32;
            atlas(size, |r, s, t| opaque(lava_px(n, r, s, t, phase)))
        }
        Look::Water(k, frames) => {
            let phase = k as f32 / frames.max(1) as f32;
            image(size, |s, t| opaque(water_px(n, s, t, phase)))
        }
        Look::Grass | Look::Rock | Look::Road => {
            image(size, |s, t| opaque(terrain_px(look, n, s, t)))
        }
        Look::Hud => image(size, hud_px),
        Look::Glass => atlas(size, |_, s, t| {
            let streak = fract((s - t) * 1.5 + 0.08 * n.a.at(s, t, 2.0));
            let shine =
                smooth(0.12, 0.0, (streak - 0.3).abs()) + smooth(0.05, 0.0, (streak - 0.45).abs());
            let c = mix([0.45, 0.62, 0.72], [0.92, 0.96, 1.0], 0.7 * shine);
            // Alpha 95..=150 along the diagonal plus noise, within 90..=160.
            let g = 95.0 + 55.0 * (s + t) / 2.0 + 10.0 * n.c.at(s, t, 12.0) + 25.0 * shine;
            (c, g.clamp(90.0, 160.0) / 255.0)
        }),
        Look::Grate => {
            let texels = size as f32;
            image(size, |s, t| {
                let (x, y) = ((s * texels) as u32, (t * texels) as u32);
                let (bx, by) = (x % GRATE_PERIOD, y % GRATE_PERIOD);
                let bar = bx < GRATE_BAR || by < GRATE_BAR;
                // Lit on the first texel of a bar, shaded on the second.
                let k = if bx == 0 || by == 0 { 1.25 } else { 0.8 };
                let mut c = mul([0.42, 0.45, 0.48], k * (1.0 + 0.15 * n.c.at(s, t, 16.0)));
                if n.a.at(s, t, 4.0) > 0.2 {
                    c = mix(c, rust(n, s, t), 0.6);
                }
                // Holes keep the bar colour so filtering does not bleed black.
                (c, if bar { 1.0 } else { 0.0 })
            })
        }
    }
}

/// A model lightmap: soft ambient occlusion of each atlas quarter (darker along its
/// border and towards its foot), `strength` in `0..1`; greyscale, no noise.
pub(crate) fn ambient_occlusion(size: u32, strength: f32) -> Result<RgbaImage, TexmError> {
    atlas(size, |_, s, t| {
        let edge = 1.0 - smooth(0.0, 0.3, border(s, t));
        let foot = smooth(0.35, 1.0, t);
        let top = 1.0 - smooth(0.0, 0.4, t);
        let v = 1.0 - strength * (0.35 * edge * edge + 0.4 * foot * foot) + 0.05 * top;
        ([v; 3], 1.0)
    })
}

/// A 256-entry RGBA palette (1024 bytes, alpha 255) ramping through `keys`.
pub(crate) fn ramp(keys: &[Rgb]) -> Vec<u8> {
    let mut out = Vec::with_capacity(1024);
    let last = keys.len().saturating_sub(1).max(1) as f32;
    for i in 0..256 {
        let x = i as f32 / 255.0 * last;
        let k = (x.floor() as usize).min(keys.len().saturating_sub(2));
        let c = match keys.len() {
            0 => [0.0; 3],
            1 => keys[0],
            _ => mix(keys[k], keys[k + 1], x - k as f32),
        };
        out.extend_from_slice(&[byte(c[0]), byte(c[1]), byte(c[2]), 255]);
    }
    out
}

/// The palettes of `Palettes.lib` by slot: camouflage, molten ore, steel.
pub(crate) fn palette(slot: &str) -> Vec<u8> {
    match slot {
        "A" => ramp(&[[0.05, 0.06, 0.03], FOREST, OLIVE, BROWN, [0.75, 0.70, 0.52]]),
        "B" => ramp(&[
            [0.0; 3],
            [0.10, 0.05, 0.04],
            [0.55, 0.08, 0.02],
            [1.0, 0.42, 0.05],
            [1.0, 0.95, 0.7],
        ]),
        _ => ramp(&[
            [0.04, 0.045, 0.05],
            mul(STEEL, 0.6),
            STEEL,
            [0.85, 0.88, 0.9],
        ]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::SeedableRng;

    fn noises(seed: u64) -> Noises {
        Noises::new(&mut ChaCha8Rng::seed_from_u64(seed))
    }

    #[test]
    fn pictures_are_deterministic_and_seeded() {
        let a = paint(Look::Camo, 32, &noises(1)).unwrap();
        assert_eq!(a, paint(Look::Camo, 32, &noises(1)).unwrap());
        assert_ne!(a, paint(Look::Camo, 32, &noises(2)).unwrap());
    }

    #[test]
    fn lava_phases_flow_only_in_their_molten_quarters() {
        let n = noises(3);
        let f0 = paint(Look::Lava(0, 4), 32, &n).unwrap();
        let f1 = paint(Look::Lava(1, 4), 32, &n).unwrap();
        let quarter = |img: &RgbaImage, r: Region| {
            let (x0, y0) = match r {
                Region::A => (0, 0),
                Region::B => (16, 0),
                Region::C => (0, 16),
                Region::D => (16, 16),
            };
            (0..16)
                .flat_map(|y| (0..16).map(move |x| (x0 + x, y0 + y)))
                .map(|(x, y)| img.pixel(x, y))
                .collect::<Vec<_>>()
        };
        assert_eq!(quarter(&f0, lava::GIRDER), quarter(&f1, lava::GIRDER));
        assert_ne!(quarter(&f0, lava::MOLTEN), quarter(&f1, lava::MOLTEN));
    }

    #[test]
    fn ambient_occlusion_is_soft_and_bright_in_the_middle() {
        let img = ambient_occlusion(32, 1.0).unwrap();
        let px = img.pixels();
        assert!(px.chunks(4).all(|p| p[0] == p[1] && p[1] == p[2]));
        let mid = img.pixel(8, 6).unwrap_or_default()[0];
        let corner = img.pixel(15, 15).unwrap_or_default()[0];
        assert!(mid > 220 && corner < 160, "{mid} {corner}");
    }

    #[test]
    fn palettes_are_full_opaque_ramps() {
        for slot in ["A", "B", "C0"] {
            let p = palette(slot);
            assert_eq!(p.len(), 1024);
            assert!(p.iter().skip(3).step_by(4).all(|&a| a == 255));
        }
    }
}
