//! Which renderer draws: the renderers a player can pick (the three built-in ones and
//! any render plugin, a mod's included), their names on the command line and in the
//! settings, the order Tab cycles them, and the hint for a mod renderer that is not
//! enabled. `play` switches between them through the host's hot swap.

use std::path::Path;

/// A renderer plugin the user can pick: one of the first-party renderers by name, or any
/// library that provides the render service (a mod's included) by registry library name
/// or path, with an optional factory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Renderer {
    /// Vulkan (vulkano): swapchain presentation and offscreen.
    Vulkan,
    /// The deterministic CPU reference rasterizer.
    Soft,
    /// No pixels: the frame's command list as JSON.
    Capture,
    /// Another render plugin: `LIBRARY[:FACTORY]` (its frames are read back as pixels).
    Plugin {
        /// Registry library name or path.
        library: &'static str,
        /// Factory; `None`: the library's first render factory.
        factory: Option<&'static str>,
    },
}

impl Renderer {
    /// `(library, factory)` of the renderer's plugin (`None`: its first render factory).
    pub fn plugin(self) -> (&'static str, Option<&'static str>) {
        match self {
            Renderer::Vulkan => ("iron3d_render_vulkan", Some("render-vulkan")),
            Renderer::Soft => ("iron3d_render_soft", Some("render-soft")),
            Renderer::Capture => ("iron3d_render_capture", Some("render-capture")),
            Renderer::Plugin { library, factory } => (library, factory),
        }
    }

    /// Lower-case name (`vulkan`, `soft`, `capture`), or the plugin's library.
    pub fn as_str(self) -> &'static str {
        match self {
            Renderer::Vulkan => "vulkan",
            Renderer::Soft => "soft",
            Renderer::Capture => "capture",
            Renderer::Plugin { library, .. } => library,
        }
    }

    /// `vulkan`, `soft`, `capture`, or `LIBRARY[:FACTORY]` of any render plugin.
    pub fn from_name(s: &str) -> Option<Self> {
        if let Some(r) = [Renderer::Vulkan, Renderer::Soft, Renderer::Capture]
            .into_iter()
            .find(|r| r.as_str() == s)
        {
            return Some(r);
        }
        if s.is_empty() {
            return None;
        }
        // A first-party renderer named by its library (and factory) is that renderer.
        let (lib, factory) = s.rsplit_once(':').map_or((s, None), |(l, f)| (l, Some(f)));
        if let Some(r) = [Renderer::Vulkan, Renderer::Soft, Renderer::Capture]
            .into_iter()
            .find(|r| {
                let (l, f) = r.plugin();
                iron3d_registry::library_stem(lib) == l && factory.is_none_or(|x| Some(x) == f)
            })
        {
            return Some(r);
        }
        // Command-line values live for the whole run: keeping them is what lets the
        // choice stay a small `Copy` value.
        let leak = |t: &str| -> &'static str { Box::leak(t.to_owned().into_boxed_str()) };
        Some(
            match s
                .rsplit_once(':')
                .filter(|(l, f)| !l.is_empty() && !f.is_empty())
            {
                Some((library, factory)) => Renderer::Plugin {
                    library: leak(library),
                    factory: Some(leak(factory)),
                },
                None => Renderer::Plugin {
                    library: leak(s),
                    factory: None,
                },
            },
        )
    }

    /// The renderer the registry's render slot names, unless it is the null renderer.
    pub fn from_registry(registry: &iron3d_registry::Registry) -> Option<Self> {
        let entry = registry.entries().find(
            |e| matches!(&e.key, iron3d_registry::SlotKey::Slot(n) if n.as_str() == "render"),
        )?;
        if iron3d_registry::library_stem(&entry.library) == "iron3d_null" {
            return None;
        }
        Self::from_name(&format!("{}:{}", entry.library, entry.factory))
    }
}

/// `r` itself, or — when it names a renderer of an enabled mod (its factory or the mod's
/// id) — that mod's render plugin.
pub fn mod_renderer(mods: &crate::mods::ActiveMods, r: Renderer) -> Renderer {
    let Renderer::Plugin { library, factory } = r else {
        return r;
    };
    let name = factory.map_or(library.to_owned(), |f| format!("{library}:{f}"));
    match mods.renderer(&name).or_else(|| mods.renderer(library)) {
        Some((lib, fac)) => Renderer::Plugin {
            library: Box::leak(lib.into_boxed_str()),
            factory: Some(Box::leak(fac.into_boxed_str())),
        },
        None => r,
    }
}

/// Every renderer the player can switch to, in the order Tab cycles them: the three
/// built-in ones, then each enabled mod's renderer in load order (the settings screen
/// steps through the same set).
pub fn switchable_renderers(mods: &crate::mods::ActiveMods) -> Vec<Renderer> {
    let mut all = vec![Renderer::Soft, Renderer::Vulkan, Renderer::Capture];
    for (_, library, factory) in mods.renderers() {
        all.push(Renderer::Plugin {
            library: Box::leak(library.into_boxed_str()),
            factory: Some(Box::leak(factory.into_boxed_str())),
        });
    }
    all
}

/// The renderer after `current` in `all` (wrapping; the first when `current` is not in
/// it).
pub fn next_renderer(all: &[Renderer], current: Renderer) -> Option<Renderer> {
    let at = all.iter().position(|&r| r == current);
    let next = at.map_or(0, |i| (i + 1) % all.len().max(1));
    all.get(next).copied()
}

/// A hint for a renderer name that no enabled mod provides but an installed one does
/// (`renderer 'dots' is mod 'dots-map''s, which is not enabled for this run: add --mods
/// dots-map …, or `iron3d mods enable dots-map``). `None` when no installed mod of
/// `mods_root` declares a renderer of that factory or mod id.
pub fn disabled_mod_renderer_hint(mods_root: &Path, name: &str) -> Option<String> {
    let discovery = iron3d_mods::discover(mods_root);
    discovery.mods.iter().find_map(|m| {
        let provides = m.manifest.plugins.iter().any(|p| {
            matches!(
                p.target,
                iron3d_mods::PluginTarget::Slot(iron3d_mods::Slot::Render)
            ) && (p.factory == name || m.manifest.id == name)
        });
        provides.then(|| {
            format!(
                "renderer '{name}' is mod '{id}''s, which is not enabled for this run: add --mods {id} (and --mods-dir {dir} if that is not your mods folder), or `iron3d mods enable {id}`",
                id = m.manifest.id,
                dir = mods_root.display()
            )
        })
    })
}

/// Parses `--renderer` (see [`Renderer::from_name`]).
pub fn parse_renderer(s: &str) -> Result<Renderer, String> {
    Renderer::from_name(s).ok_or_else(|| {
        format!("unknown renderer '{s}' (vulkan, soft, capture, or LIBRARY[:FACTORY])")
    })
}

/// Parses `FRAME:RENDERER` (a renderer switch after presented frame FRAME).
pub fn parse_switch(s: &str) -> Result<(u64, Renderer), String> {
    let (f, r) = s
        .split_once(':')
        .ok_or_else(|| format!("expected FRAME:RENDERER, got '{s}'"))?;
    let frame = f
        .parse()
        .map_err(|e| format!("bad frame number '{f}': {e}"))?;
    Ok((frame, parse_renderer(r)?))
}
