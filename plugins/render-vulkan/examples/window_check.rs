//! Window-mode self-check of the Vulkan renderer: opens an X11 window with winit 0.30,
//! draws a small frame into it through `NativeWindow` (Xlib handles, as the launcher
//! fills them), resizes the window half way, and finally reads the window's pixels back
//! from the X server (`XGetImage`) and compares them with `capture()`.
//!
//! Run it under Xvfb: `xvfb-run -a cargo run -p iron3d-render-vulkan --example window_check`.
//! Exits 0 when the presented pixels equal the captured ones, 1 otherwise, 2 without a
//! display.

#![allow(clippy::unwrap_used, reason = "a self-check program fails loudly")]

use abi_stable::std_types::ROption;
use glam::Mat4;
use iron3d_abi::{NativeWindow, RenderFrame, TextureOp};
use iron3d_render_soft::fixtures::{frame_with, item, mesh, select, texture};
use iron3d_render_vulkan::VulkanRenderer;
use std::process::ExitCode;
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::raw_window_handle::{
    HasDisplayHandle, HasWindowHandle, RawDisplayHandle, RawWindowHandle,
};
use winit::window::{Window, WindowId};

/// Frames drawn before the resize, and in all.
const RESIZE_AT: u32 = 20;
const FRAMES: u32 = 50;

/// A triangle and a textured quad given directly in clip space (identity matrices), built
/// with the software reference's shared test fixtures.
fn frame() -> RenderFrame {
    // Item `index_start..+index_count` of the one mesh, stage 0 `op` on texture 0 (uv × 2).
    let part = |index_start, index_count, op| {
        let mut state = select(0);
        state.stages[0].op = op;
        state.stages[0].uv_scale = [2.0, 2.0];
        let mut it = item(0, index_count, state);
        it.index_start = index_start;
        it.insertion = index_start;
        it
    };
    let mut rgba = Vec::new();
    for ty in 0..8u8 {
        for tx in 0..8u8 {
            rgba.extend([tx * 32, ty * 32, 128, 255]);
        }
    }
    let positions = [
        [-0.9, -0.9, 0.3],
        [0.9, -0.9, 0.3],
        [0.0, 0.9, 0.3],
        [-0.6, -0.6, 0.5],
        [0.6, -0.6, 0.5],
        [0.6, 0.6, 0.5],
        [-0.6, 0.6, 0.5],
    ];
    let uvs = [
        [0.0, 0.0],
        [0.0, 0.0],
        [0.0, 0.0],
        [0.0, 1.0],
        [1.0, 1.0],
        [1.0, 0.0],
        [0.0, 0.0],
    ];
    let mut f = frame_with(
        1,
        1,
        Mat4::IDENTITY,
        vec![mesh(&positions, &uvs, &[0, 1, 2, 3, 4, 5, 3, 5, 6])],
        vec![texture(8, 8, rgba)],
        vec![
            part(0, 3, TextureOp::Disable),
            part(3, 6, TextureOp::SelectTexture),
        ],
    );
    f.lighting.sun_colour = [0.2, 0.1, 0.0];
    f.lighting.ambient = [0.3, 0.5, 0.2];
    f.target.clear = [20, 30, 60, 255];
    f
}

/// The Xlib handles of `window` as the launcher passes them.
fn native(window: &Window) -> NativeWindow {
    match (
        window.window_handle().unwrap().as_raw(),
        window.display_handle().unwrap().as_raw(),
    ) {
        (RawWindowHandle::Xlib(w), RawDisplayHandle::Xlib(d)) => NativeWindow {
            kind: 0,
            display: d.display.map_or(0, |p| p.as_ptr() as u64),
            window: w.window,
            screen: d.screen,
        },
        other => panic!("not an Xlib window: {other:?}"),
    }
}

/// Reads the window's pixels from the X server as RGBA (`XGetImage`, 24-bit TrueColor).
fn x_pixels(n: &NativeWindow, w: u32, h: u32) -> Vec<u8> {
    let xlib = x11_dl::xlib::Xlib::open().unwrap();
    let display = n.display as usize as *mut x11_dl::xlib::Display;
    // SAFETY: live display and window of this process; the image is read and leaked.
    unsafe {
        (xlib.XSync)(display, 0);
        let img = (xlib.XGetImage)(display, n.window, 0, 0, w, h, !0, x11_dl::xlib::ZPixmap);
        assert!(!img.is_null(), "XGetImage failed");
        let img = &*img;
        assert_eq!(img.bits_per_pixel, 32, "expects a 32-bit ZPixmap");
        let mut out = Vec::with_capacity((w * h * 4) as usize);
        for y in 0..h as usize {
            let row = img.data.add(y * img.bytes_per_line as usize) as *const u8;
            for x in 0..w as usize {
                let p = std::slice::from_raw_parts(row.add(x * 4), 4);
                out.extend([p[2], p[1], p[0], 255]);
            }
        }
        out
    }
}

struct App {
    renderer: VulkanRenderer,
    frame: RenderFrame,
    window: Option<Window>,
    drawn: u32,
    sizes: Vec<(u32, u32)>,
    result: Option<Result<String, String>>,
}

impl App {
    fn step(&mut self, el: &ActiveEventLoop) {
        let Some(window) = &self.window else { return };
        let size = window.inner_size();
        let n = native(window);
        self.frame.target.width = size.width.max(1);
        self.frame.target.height = size.height.max(1);
        self.frame.target.window = ROption::RSome(n);
        if let Err(e) = self.renderer.draw(&self.frame) {
            self.result = Some(Err(format!("draw {}: {e}", self.drawn)));
            return el.exit();
        }
        self.drawn += 1;
        let dims = (self.frame.target.width, self.frame.target.height);
        if self.sizes.last() != Some(&dims) {
            self.sizes.push(dims);
        }
        if self.drawn == RESIZE_AT {
            let _ = window.request_inner_size(PhysicalSize::new(320u32, 200u32));
        }
        if self.drawn >= FRAMES {
            let img = self.renderer.image().unwrap().unwrap();
            let (w, h) = (img.width, img.height);
            let shown = x_pixels(&n, w, h);
            let differing = shown
                .chunks(4)
                .zip(img.pixels.chunks(4))
                .filter(|(a, b)| a[..3] != b[..3])
                .count();
            let colours: std::collections::BTreeSet<&[u8]> = img.pixels.chunks(4).collect();
            self.result = Some(if differing == 0 && colours.len() > 8 {
                Ok(format!(
                    "{} frames presented, sizes {:?}, {w}x{h} window pixels == capture ({} colours), device {}",
                    self.drawn,
                    self.sizes,
                    colours.len(),
                    self.renderer.device_name()
                ))
            } else {
                Err(format!(
                    "{differing} of {} window pixels differ from the capture ({} colours)",
                    w * h,
                    colours.len()
                ))
            });
            return el.exit();
        }
        window.request_redraw();
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, el: &ActiveEventLoop) {
        if self.window.is_none() {
            let attrs = Window::default_attributes()
                .with_title("render-vulkan window check")
                .with_inner_size(PhysicalSize::new(200u32, 150u32));
            match el.create_window(attrs) {
                Ok(w) => {
                    w.request_redraw();
                    self.window = Some(w);
                }
                Err(e) => {
                    self.result = Some(Err(format!("window: {e}")));
                    el.exit();
                }
            }
        }
    }

    fn window_event(&mut self, el: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        match event {
            WindowEvent::RedrawRequested => self.step(el),
            WindowEvent::CloseRequested => el.exit(),
            _ => {}
        }
    }
}

fn main() -> ExitCode {
    let event_loop = match EventLoop::new() {
        Ok(l) => l,
        Err(e) => {
            eprintln!("no display ({e}); run under xvfb-run -a");
            return ExitCode::from(2);
        }
    };
    let mut app = App {
        renderer: VulkanRenderer::new().unwrap(),
        frame: frame(),
        window: None,
        drawn: 0,
        sizes: Vec::new(),
        result: None,
    };
    event_loop.run_app(&mut app).unwrap();
    match app.result {
        Some(Ok(msg)) => {
            println!("window check ok: {msg}");
            ExitCode::SUCCESS
        }
        Some(Err(msg)) => {
            eprintln!("window check FAILED: {msg}");
            ExitCode::from(1)
        }
        None => {
            eprintln!("window check FAILED: the event loop ended early");
            ExitCode::from(1)
        }
    }
}
