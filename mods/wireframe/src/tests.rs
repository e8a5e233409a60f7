//! Pixel tests of the wireframe rasterizer on hand-built frames (the software reference's
//! `fixtures`), the plugin wrapper, and the mod's `mod.toml`.

use super::*;
use iron3d_abi::{OverlayQuad, RenderFrame, RenderPhase, StateBlob};
use iron3d_render_soft::fixtures::{
    OVERLAY_TARGET, floor_frame, frame_with, item, overlay, perspective, pixel_frame, quad, state,
    triangle_frame, tris,
};

/// The clear colour of the hand-built scenes (opaque dark blue).
const CLEAR: [u8; 4] = [10, 20, 30, 255];

fn draw(frame: &RenderFrame) -> WireRasterizer {
    let mut r = WireRasterizer::new();
    r.draw(frame);
    r
}

fn px(r: &WireRasterizer, x: u32, y: u32) -> [u8; 4] {
    let o = ((y * r.width() + x) * 4) as usize;
    r.pixels()[o..o + 4].try_into().expect("4 bytes")
}

/// Pixels of an image that are not the clear colour.
fn lit(pixels: &[u8], clear: [u8; 4]) -> usize {
    pixels.chunks_exact(4).filter(|p| *p != clear).count()
}

/// A 32×32 frame cleared to [`CLEAR`] with one right triangle (2, 2), (28, 2), (2, 28)
/// at depth 0.5, vertex positions in pixels.
fn big_triangle() -> RenderFrame {
    let mut f = pixel_frame(
        32,
        32,
        vec![tris(&[[2.0, 2.0, 0.5], [28.0, 2.0, 0.5], [2.0, 28.0, 0.5]])],
        vec![],
        vec![item(0, 3, state())],
    );
    f.target.clear = CLEAR;
    f
}

fn plugin() -> iron3d_abi::RendererPlugin<WireframeRender> {
    iron3d_abi::RendererPlugin::new(WireframeRender::new(), STATE_FORMAT)
}

// ---------------------------------------------------------------- edges

#[test]
fn edges_are_lines_and_the_interior_keeps_the_clear_colour() {
    let f = big_triangle();
    let r = draw(&f);
    let colour = item_colour(&f.items[0], CLEAR);
    assert!(PALETTE.contains(&colour));
    // The top row, the left column and the hypotenuse x + y = 30, corners shared.
    let on_edge = |x: u32, y: u32| {
        let inside = (2..=28).contains(&x) && (2..=28).contains(&y);
        inside && (y == 2 || x == 2 || x + y == 30)
    };
    let mut count = 0;
    for y in 0..32 {
        for x in 0..32 {
            let want = if on_edge(x, y) { colour } else { CLEAR };
            assert_eq!(px(&r, x, y), want, "pixel {x},{y}");
            count += usize::from(on_edge(x, y));
        }
    }
    assert_eq!(count, 3 * 27 - 3);
    assert_eq!(lit(r.pixels(), CLEAR), count);
    // Concrete spots: edges coloured, the interior and the outside clear.
    assert_eq!(px(&r, 10, 2), colour);
    assert_eq!(px(&r, 2, 17), colour);
    assert_eq!(px(&r, 15, 15), colour);
    assert_eq!(px(&r, 8, 8), CLEAR, "interior");
    assert_eq!(px(&r, 14, 14), CLEAR, "interior next to the hypotenuse");
    assert_eq!(px(&r, 25, 25), CLEAR, "outside");
    // Only edges write depth.
    assert_eq!(r.depth()[(2 * 32 + 10) as usize], 0.5);
    assert_eq!(r.depth()[(8 * 32 + 8) as usize], 1.0);
    let c = r.counters();
    assert_eq!(
        (c.items_drawn, c.triangles, c.edges, c.rejected),
        (1, 1, 3, 0)
    );
    assert_eq!(c.skipped(), 0);
}

#[test]
fn nearer_lines_win_where_edges_cross_and_hidden_lines_still_show() {
    let mut near = item(0, 6, state());
    near.material = 1;
    let mut far = item(1, 6, state());
    far.material = 2;
    far.insertion = 1;
    let (cn, cf) = (item_colour(&near, CLEAR), item_colour(&far, CLEAR));
    assert_ne!(cn, cf, "two materials, two colours");
    let meshes = || {
        vec![
            quad(4.0, 4.0, 20.0, 20.0, 0.2),
            quad(12.0, 12.0, 28.0, 28.0, 0.8),
        ]
    };
    for items in [vec![near, far], vec![far, near]] {
        let mut f = pixel_frame(32, 32, meshes(), vec![], items);
        f.target.clear = CLEAR;
        let r = draw(&f);
        // The near quad's bottom edge crosses the far quad's left edge at (12, 20).
        assert_eq!(px(&r, 12, 20), cn, "the nearer line wins in either order");
        assert_eq!(r.depth()[(20 * 32 + 12) as usize], 0.2);
        // The far quad's corner lies on the near quad's diagonal.
        assert_eq!(px(&r, 12, 12), cn);
        // Behind the near quad, where no near edge runs, the far edge is still drawn.
        assert_eq!(px(&r, 12, 14), cf, "hidden line drawn");
        assert_eq!(px(&r, 16, 12), cf, "hidden line drawn");
        // Each quad's own edges, and its interior left clear.
        assert_eq!(px(&r, 4, 10), cn);
        assert_eq!(px(&r, 27, 28), cf);
        assert_eq!(px(&r, 7, 14), CLEAR);
        assert_eq!(px(&r, 24, 18), CLEAR);
    }
}

#[test]
fn the_image_differs_from_the_software_reference() {
    for f in [big_triangle(), triangle_frame(), floor_frame(64, 48)] {
        let ours = draw(&f);
        let soft = iron3d_render_soft::fixtures::draw(&f);
        assert_eq!(ours.pixels().len(), soft.pixels().len());
        assert_ne!(ours.pixels(), soft.pixels());
        let clear = f.target.clear;
        assert!(lit(ours.pixels(), clear) > 0, "edges drawn");
        assert!(
            lit(ours.pixels(), clear) < lit(soft.pixels(), clear),
            "edges cover less than filled triangles"
        );
    }
    // The reference fills the big triangle's interior; the wireframe leaves it clear.
    let f = big_triangle();
    let soft = iron3d_render_soft::fixtures::draw(&f);
    let o = ((8 * 32 + 8) * 4) as usize;
    assert_ne!(&soft.pixels()[o..o + 4], CLEAR.as_slice());
    assert_eq!(px(&draw(&f), 8, 8), CLEAR);
}

#[test]
fn perspective_edges_are_clipped_to_the_view_volume() {
    // The floor fixture: every edge in front of the camera.
    let f = floor_frame(64, 48);
    let r = draw(&f);
    let c = r.counters();
    assert_eq!((c.triangles, c.edges, c.rejected), (2, 6, 0));
    assert!(r.depth().iter().all(|d| (0.0..=1.0).contains(d)));
    // A triangle reaching behind the eye (view z = −5) and one wholly behind it.
    let m = tris(&[
        [-1.0, -1.0, -5.0],
        [1.0, -1.0, 10.0],
        [-1.0, -1.0, 10.0],
        [-1.0, -1.0, -5.0],
        [1.0, -1.0, -5.0],
        [0.0, 1.0, -6.0],
    ]);
    let mut f = frame_with(
        64,
        48,
        perspective(64, 48),
        vec![m],
        vec![],
        vec![item(0, 6, state())],
    );
    f.target.clear = CLEAR;
    let r = draw(&f);
    let c = r.counters();
    assert_eq!(c.triangles, 2);
    assert_eq!(
        c.edges, 3,
        "the first triangle's edges, clipped at the near plane"
    );
    assert_eq!(c.rejected, 3, "the second triangle is behind the eye");
    assert!(lit(r.pixels(), CLEAR) > 0);
    // Deterministic: the same frame twice gives the same bytes.
    assert_eq!(draw(&f).pixels(), r.pixels());
}

#[test]
fn huge_coordinates_cost_no_more_than_the_target() {
    let (w, h) = (40u32, 30u32);
    let mut f = pixel_frame(
        w,
        h,
        vec![tris(&[
            // One corner inside, two far outside: two edges clipped to the border.
            [10.0, 10.0, 0.5],
            [1e30, 10.0, 0.5],
            [10.0, 1e30, 0.5],
            // Wholly outside, though it spans the target's rows and columns.
            [-1e30, -1e30, 0.5],
            [1e30, 5.0, 0.5],
            [7.0, 1e30, 0.5],
        ])],
        vec![],
        vec![item(0, 6, state())],
    );
    f.target.clear = CLEAR;
    let r = draw(&f);
    let c = r.counters();
    assert_eq!((c.triangles, c.edges, c.rejected), (2, 2, 4), "{c:?}");
    assert!(c.pixels <= 2 * u64::from(w + h + 1), "{c:?}");
    let colour = item_colour(&f.items[0], CLEAR);
    for x in 10..w {
        assert_eq!(px(&r, x, 10), colour, "row 10 to the right border, {x}");
    }
    for y in 10..h {
        assert_eq!(px(&r, 10, y), colour, "column 10 to the bottom border, {y}");
    }
    assert_eq!(lit(r.pixels(), CLEAR), (w - 10 + h - 10 - 1) as usize);
}

#[test]
fn palette_colours_are_stable_and_never_the_clear_colour() {
    let mut it = item(0, 3, state());
    it.material = 0x0003_0007;
    let c = item_colour(&it, CLEAR);
    assert_eq!(c, item_colour(&it, CLEAR));
    assert!(PALETTE.contains(&c));
    assert_eq!(c[3], 255);
    // A clear colour with the same RGB (any alpha) moves the edges to another colour.
    let clear = [c[0], c[1], c[2], 0];
    let other = item_colour(&it, clear);
    assert_ne!(other[..3], clear[..3]);
    assert!(PALETTE.contains(&other));
    // Terrain has its own colour, and the same fallback.
    it.phase = RenderPhase::OpaqueTerrain;
    assert_eq!(item_colour(&it, CLEAR), TERRAIN_COLOUR);
    assert_eq!(item_colour(&it, TERRAIN_COLOUR), PALETTE[0]);
    assert!(!PALETTE.contains(&TERRAIN_COLOUR));
}

// ---------------------------------------------------------------- bad frames

#[test]
fn malformed_frames_are_counted_not_fatal() {
    let good = tris(&[[0.0, 0.0, 0.5], [4.0, 0.0, 0.5], [0.0, 4.0, 0.5]]);
    let mut bad_index = good.clone();
    bad_index.indices = vec![0u16, 1, 7, 0, 1, 2].into();
    let mut nan = good.clone();
    nan.positions[1] = [f32::NAN, 0.0, 0.5];
    let mut huge_base = item(0, 3, state());
    huge_base.base_vertex = u32::MAX;
    let mut infinite_world = item(0, 3, state());
    infinite_world.world.cols[0] = f32::INFINITY;
    let f = pixel_frame(
        8,
        8,
        vec![good, bad_index, nan],
        vec![],
        vec![
            item(7, 3, state()), // no such mesh
            item(1, 6, state()), // first triangle has index 7 > 2 vertices
            item(0, 6, state()), // one triangle, then past the index buffer
            huge_base,           // vertex u32::MAX + index
            item(2, 3, state()), // a NaN vertex: two edges dropped
            infinite_world,      // an infinite matrix: the edges are dropped
            item(0, 4, state()), // fine (the trailing index is ignored)
        ],
    );
    let mut r = WireRasterizer::new();
    let stats = r.draw(&f);
    let c = r.counters();
    assert_eq!(c.skipped_items, 1, "{c:?}");
    assert_eq!(c.skipped_triangles, 3, "{c:?}");
    assert_eq!(c.skipped(), 4);
    assert_eq!(stats.draw_items, 6);
    assert_eq!(c.triangles, 5, "{c:?}");
    assert!(c.rejected >= 2 + 3, "{c:?}");
    assert_ne!(px(&r, 1, 0), [0; 4], "the good triangle is drawn");

    // Huge index start and count: one bounded step, no overflow.
    let mut it = item(0, u32::MAX, state());
    it.index_start = u32::MAX;
    let f = pixel_frame(4, 4, vec![tris(&[[0.0; 3]; 3])], vec![], vec![it]);
    let mut r = WireRasterizer::new();
    r.draw(&f);
    assert_eq!(r.counters().skipped_triangles, u32::MAX / 3);
    assert_eq!(r.counters().triangles, 0);

    // A zero-sized target: cleared (nothing), no panic.
    let f = pixel_frame(0, 5, vec![], vec![], vec![item(0, 3, state())]);
    let mut r = WireRasterizer::new();
    assert_eq!(r.draw(&f).draw_items, 0);
    assert!(r.pixels().is_empty());
}

#[test]
fn targets_past_the_limit_draw_nothing_and_the_plugin_refuses_them() {
    let mut big = big_triangle();
    big.target.width = MAX_TARGET_DIM + 1;
    let r = draw(&big);
    assert_eq!((r.width(), r.height()), (0, 0));
    assert_eq!(r.counters().skipped_items, 1);

    let mut p = plugin();
    let f = big_triangle();
    p.draw(&f).expect("draws");
    assert!(p.draw(&big).is_err());
    assert!(p.draw_with_overlay(&big, &overlay(1)).is_err());
    // The last good image stays for capture.
    let img = p.capture().expect("image");
    assert_eq!(img.pixels.as_slice(), draw(&f).pixels());
}

// ---------------------------------------------------------------- overlay (2.4)

#[test]
fn the_overlay_is_composited_over_the_wireframe() {
    // The HUD-like fixture overlay: exactly `composite` of the wireframe image.
    let (w, h) = OVERLAY_TARGET;
    let f = floor_frame(w, h);
    let o = overlay(1);
    let mut want = draw(&f).pixels().to_vec();
    assert_eq!(iron3d_abi::overlay::composite(&o, w, h, &mut want), 2);
    let mut p = plugin();
    let stats = p.draw_with_overlay(&f, &o).expect("draws");
    assert_eq!(
        stats,
        p.draw(&f).expect("draws"),
        "the overlay adds no items"
    );
    p.draw_with_overlay(&f, &o).expect("draws");
    let img = p.capture().expect("image");
    assert_eq!((img.width, img.height), (w, h));
    assert_eq!(img.pixels.as_slice(), want.as_slice());
    let mut r = draw(&f);
    assert_eq!(r.composite_overlay(&o), 2);
    assert_eq!(r.pixels(), want.as_slice());

    // Concrete pixels: an opaque panel over an edge, a translucent one over an edge and
    // over the clear colour; the target's alpha is the frame's.
    let f = big_triangle();
    let colour = item_colour(&f.items[0], CLEAR);
    let o = Overlay {
        textures_id: 2,
        quads: vec![
            OverlayQuad::solid([0.0, 0.0, 8.0, 4.0], [200, 10, 10, 255]),
            OverlayQuad::solid([0.0, 10.0, 4.0, 14.0], [0, 0, 0, 128]),
        ]
        .into(),
        ..Overlay::default()
    };
    let mut p = plugin();
    p.draw_with_overlay(&f, &o).expect("draws");
    let img = p.capture().expect("image");
    let at = |x: u32, y: u32| -> [u8; 4] {
        let k = ((y * 32 + x) * 4) as usize;
        img.pixels[k..k + 4].try_into().expect("4 bytes")
    };
    let half = |d: u8| ((u32::from(d) * 127 + 127) / 255) as u8;
    assert_eq!(at(5, 2), [200, 10, 10, 255], "the panel hides the edge");
    assert_eq!(at(10, 2), colour, "the edge beyond the panel");
    assert_eq!(
        at(2, 11),
        [half(colour[0]), half(colour[1]), half(colour[2]), 255],
        "half black over the edge"
    );
    assert_eq!(
        at(3, 11),
        [half(CLEAR[0]), half(CLEAR[1]), half(CLEAR[2]), 255],
        "half black over the clear colour"
    );
    assert_eq!(at(8, 8), CLEAR, "outside the overlay, inside the triangle");
    // Before any frame there is nothing to composite on, and no panic.
    // (the missing and the malformed texture are still counted).
    assert_eq!(WireRasterizer::new().composite_overlay(&overlay(1)), 2);
}

// ---------------------------------------------------------------- plugin

#[test]
fn plugin_describes_one_render_factory() {
    let d = describe();
    assert_eq!(d.name.as_str(), PLUGIN_NAME);
    assert_eq!(d.factories.len(), 1);
    assert_eq!(d.factories[0].name.as_str(), FACTORY);
    assert_eq!(d.factories[0].slot, SlotKind::Render);
    assert_eq!(d.abi_major, iron3d_abi::ABI_MAJOR);
    let mut p = create(FACTORY).expect("the wireframe factory");
    assert!(p.renderer().is_some());
    assert!(create("render-soft").is_err());
}

#[test]
fn plugin_draws_captures_and_has_no_state() {
    let mut p = plugin();
    assert!(p.capture().is_err(), "nothing drawn yet");
    let f = floor_frame(32, 16);
    let stats = p.draw(&f).expect("draws");
    assert_eq!(stats.draw_items, 1);
    let img = p.capture().expect("image");
    assert_eq!((img.width, img.height), (32, 16));
    assert_eq!(img.pixels.as_slice(), draw(&f).pixels());
    assert_eq!(p.rasterizer().width(), 32);
    assert!(
        p.capture_commands().is_err(),
        "not supported, as in render-soft"
    );
    let blob = p.save_state().expect("state");
    assert_eq!(
        (blob.format.as_str(), blob.version, blob.bytes.len()),
        (STATE_FORMAT, STATE_VERSION, 0)
    );
    assert!(p.restore_state(&blob).is_ok());
    // Any renderer's state is taken over: a switch hands nothing over.
    assert!(p.restore_state(&StateBlob::empty("render-soft", 1)).is_ok());
    assert!(p.renderer().is_some());
}

// ---------------------------------------------------------------- mod.toml

#[test]
fn mod_toml_declares_the_wireframe_render_plugin() {
    use iron3d_mods::manifest::{PluginTarget, Slot};
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("mod.toml");
    let text = std::fs::read_to_string(&path).expect("mod.toml");
    let m = iron3d_mods::Manifest::parse(&text, std::path::Path::new("mods/wireframe/mod.toml"))
        .expect("a valid manifest");
    assert_eq!(m.id, "wireframe");
    assert_eq!(m.version.to_string(), "1.0.0");
    assert_eq!(m.interface, Some(iron3d_abi::ABI_MAJOR));
    assert!(!m.simulation, "a renderer does not change the simulation");
    assert!(m.engine.matches(&"0.1.0".parse().expect("version")));
    assert_eq!(m.plugins.len(), 1);
    let p = &m.plugins[0];
    assert_eq!(p.target, PluginTarget::Slot(Slot::Render));
    assert_eq!(p.factory, FACTORY);
    assert_eq!(p.build.as_deref(), Some(env!("CARGO_CRATE_NAME")));
    assert!(p.libraries.is_empty(), "built from source");
    assert!(m.overlays.is_empty());
}
