//! Helpers for the end-to-end tests: run the launcher in-process and read its output.

use std::process::ExitCode;

/// Runs `iron3d` with `args` in-process; returns the exit code and standard output.
pub fn iron3d(args: &[&str]) -> (ExitCode, String) {
    let mut out = Vec::new();
    let argv = std::iter::once("iron3d").chain(args.iter().copied());
    let code = iron3d_launcher::main_with_args(argv, &mut out);
    (code, String::from_utf8_lossy(&out).into_owned())
}

/// The hex digits of the mandatory last line `state_hash=<64 hex>`; panics when it is missing.
pub fn last_state_hash(stdout: &str) -> String {
    let last = stdout.lines().last().unwrap_or_default();
    let hex = last
        .strip_prefix("state_hash=")
        .unwrap_or_else(|| panic!("last line is not state_hash=: {last:?}"));
    assert_eq!(hex.len(), 64, "{last}");
    assert!(
        hex.bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()),
        "{last}"
    );
    hex.to_owned()
}

/// The `message` lines of the JSON Lines trace `trace` whose `name` is `name`, parsed.
pub fn messages(trace: &std::path::Path, name: &str) -> Vec<serde_json::Value> {
    std::fs::read_to_string(trace)
        .unwrap_or_else(|e| panic!("trace {}: {e}", trace.display()))
        .lines()
        .filter(|l| l.contains(&format!("\"name\":\"{name}\"")))
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap_or_else(|e| panic!("{e}: {l}"))
        })
        .filter(|v| v["type"] == "message")
        .collect()
}

/// `iron3d ARGS`, asserting exit 0; returns the output.
pub fn run_ok(args: &[&str]) -> String {
    let (code, out) = iron3d(args);
    assert_eq!(code, ExitCode::SUCCESS, "iron3d {args:?} failed:\n{out}");
    out
}

/// `iron3d run --headless --trace FILE EXTRA…` (asserting exit 0): the output, the trace's
/// lines parsed as JSON, and its bytes.
pub fn traced(extra: &[&str], file: &std::path::Path) -> (String, Vec<serde_json::Value>, Vec<u8>) {
    let mut args = vec![
        "run",
        "--headless",
        "--trace",
        file.to_str().expect("utf-8 path"),
    ];
    args.extend_from_slice(extra);
    let out = run_ok(&args);
    let bytes = std::fs::read(file).expect("the trace file");
    let lines = std::str::from_utf8(&bytes)
        .expect("a UTF-8 trace")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    (out, lines, bytes)
}

/// Plugin-host fixtures: locating the built plugin libraries and building a host + kernel.
pub mod plugins {
    use iron3d_kernel::{
        Kernel, KernelConfig, ManualTimeSource, ObjectDesc, ObjectHandle, OriginalObjectId,
    };
    use iron3d_plugin_host::{HostConfig, MissionSetup, PluginHost, SearchPaths};
    use iron3d_registry::{Dialect, Registry};
    use std::path::{Path, PathBuf};
    use std::time::Duration;

    /// The directory holding this build's plugin libraries (`target/<profile>/deps`).
    pub fn library_dir() -> PathBuf {
        let exe = std::env::current_exe().expect("test executable path");
        let deps = exe.parent().expect("deps directory").to_path_buf();
        if deps.ends_with("deps") {
            deps
        } else {
            deps.join("deps")
        }
    }

    /// Path of the built library `name` (e.g. `iron3d_test_counter`); panics with advice when absent.
    pub fn library(name: &str) -> PathBuf {
        let file = format!(
            "{}{name}.{}",
            std::env::consts::DLL_PREFIX,
            std::env::consts::DLL_EXTENSION
        );
        for dir in [library_dir(), library_dir().join("..")] {
            let p = dir.join(&file);
            if p.is_file() {
                return p;
            }
        }
        panic!(
            "{file} not found next to the tests; run `cargo build --workspace` (tools/test.sh does)"
        );
    }

    /// Writes `dir/<name>`: a registry of the real terrain and control plugins, the
    /// registry line `ai` in the AI slot and null plugins elsewhere; returns its path.
    pub fn registry_file(dir: &Path, name: &str, ai: &str) -> String {
        let path = dir.join(name);
        std::fs::write(
            &path,
            format!(
                "terrain iron3d_terrain terrain\n{ai}\ncontrol iron3d_control control\n\
                 effects iron3d_null null-effects\naudio iron3d_null null-audio\n\
                 render iron3d_null null-render\nnet iron3d_null null-net\ninput iron3d_null null-input\n"
            ),
        )
        .expect("registry file");
        path.to_str().expect("utf-8 path").to_owned()
    }

    /// A host searching the build directories, shadow copies under `shadow`.
    pub fn host(shadow: &Path, seed: u64) -> PluginHost {
        PluginHost::new(HostConfig {
            search_paths: SearchPaths::new(vec![library_dir(), library_dir().join("..")]),
            shadow_dir: shadow.to_path_buf(),
            mission: MissionSetup {
                name: "test".into(),
                seed,
                tick_hz: 30,
                files: None,
                parameters: Default::default(),
            },
            debounce: Duration::from_millis(50),
        })
    }

    /// A kernel (manual clock, `seed`) with the host's slot systems from `registry` and
    /// `objects` objects; returns the kernel and the object handles in queue order.
    pub fn kernel(
        host: &mut PluginHost,
        registry: &str,
        objects: u32,
        seed: u64,
    ) -> (Kernel, Vec<ObjectHandle>) {
        let reg = Registry::parse(registry.as_bytes(), "test-plugins.ini", Dialect::PluginsIni)
            .expect("registry parses");
        let mut k = Kernel::new(
            KernelConfig {
                seed,
                ..KernelConfig::default()
            },
            Box::new(ManualTimeSource::new()),
        )
        .expect("kernel");
        for s in host.systems_from_registry(&reg) {
            k.add_system(s).expect("slot system added");
        }
        let mut handles = Vec::new();
        for i in 0..objects {
            let w = k.world_mut().expect("world");
            let h = w
                .create(ObjectDesc {
                    id: Some(OriginalObjectId(100 + i)),
                    velocity: glam::Vec3::new(1.0, 0.5, 0.0),
                    ..ObjectDesc::default()
                })
                .expect("create");
            w.add_to_game(h).expect("register");
            handles.push(h);
        }
        (k, handles)
    }
}

/// A small game directory written by our own writers (NRes archives, unit DAT,
/// objects.rlb prototypes with inheritance, TMA missions), for mission tests.
pub mod gamedir {
    use iron3d_material::{Mat0, Mat0Metadata, Phase, RowSpec, Wear};
    use iron3d_nres::{NewEntry, NresWriter};
    use iron3d_tma::{Clan, ClanBody, LpString, Path as TmaPath, PlacedObject, StandardMode, Tma};
    use iron3d_unitdat::{ObjectRefList, UnitDat, UnitRecord};
    use std::path::Path;

    /// An NRes archive whose entries carry their family's tag (FORMATS §1.7).
    fn nres(entries: &[(&str, Vec<u8>)]) -> Vec<u8> {
        let mut w = NresWriter::new();
        for (name, data) in entries {
            w.push(NewEntry::tagged(name.as_bytes(), data.clone()).expect("entry"));
        }
        w.finish().expect("archive")
    }

    fn typed_nres(entries: &[(&str, u32, u32, Vec<u8>)]) -> Vec<u8> {
        let mut w = NresWriter::new();
        for (name, type_id, attr2, data) in entries {
            w.push(
                NewEntry::new(name.as_bytes(), *type_id, data.clone())
                    .expect("entry")
                    .with_attrs(0, *attr2, 0),
            );
        }
        w.finish().expect("archive")
    }

    fn wear(materials: &[&str], lightmaps: &[&str]) -> Vec<u8> {
        let rows: Vec<RowSpec<'_>> = materials
            .iter()
            .map(|m| RowSpec {
                legacy_id: b"1",
                name: m.as_bytes(),
            })
            .collect();
        let lms: Vec<RowSpec<'_>> = lightmaps
            .iter()
            .map(|m| RowSpec {
                legacy_id: b"0",
                name: m.as_bytes(),
            })
            .collect();
        Wear::author(&rows, (!lms.is_empty()).then_some(lms.as_slice()))
            .expect("wear")
            .to_bytes()
    }

    fn mat0(textures: &[&str]) -> Vec<u8> {
        let phases = textures
            .iter()
            .map(|t| Phase::new([0; 18], t.as_bytes()).expect("phase"))
            .collect();
        Mat0::new(6, Mat0Metadata::DEFAULT, phases, Vec::new())
            .expect("mat0")
            .to_bytes(6)
            .expect("bytes")
    }

    fn refs(list: &[(&str, &str)]) -> Vec<u8> {
        let mut l = ObjectRefList::new();
        for &(a, r) in list {
            if a == "parent" {
                l.push_parent(r.as_bytes()).expect("parent ref");
            } else {
                l.push(a.as_bytes(), r.as_bytes()).expect("ref");
            }
        }
        l.to_bytes()
    }

    fn lp(s: &str) -> LpString {
        LpString::from_text(s).expect("cp1251 text")
    }

    fn mission(objects: &[(&str, [f32; 3])]) -> Vec<u8> {
        let mut t = Tma::new().with_land_path(lp("MISSIONS\\M1\\Land"));
        t.paths
            .push(TmaPath::new(7, [[0.0, 0.0, 0.0], [10.0, 5.0, 0.0]]));
        t.clans.push(
            Clan::new(
                lp("Игрок"),
                ClanBody::standard(StandardMode::One, lp(""), lp("")),
            )
            .with_relation(lp("Враг"), -1),
        );
        for &(res, pos) in objects {
            t.objects.push(
                PlacedObject::new(lp(res), pos)
                    .with_property(lp("Life state"), [0, 5, 0, 0])
                    .with_property(lp("ClanID"), [0, 1, 0, 0])
                    .with_property(lp("Life state"), [0, 9, 0, 0]),
            );
        }
        t.to_bytes().expect("mission bytes")
    }

    /// A 16×16-cell terrain (cell 4 units, gentle slope z = 0.1·x) and a 4×4 areal map of
    /// walkable squares over it, linked along shared edges.
    pub fn terrain() -> (Vec<u8>, Vec<u8>) {
        let streams = iron3d_landmsh::from_grid(16, 16, 4.0, |x, _| 0.1 * x).expect("grid");
        let msh = iron3d_landmsh::LandMsh::from_streams(streams)
            .expect("land.msh")
            .to_bytes()
            .expect("bytes");
        let mut b = iron3d_landmap::MapBuilder::new();
        for j in 0..4 {
            for i in 0..4 {
                let (x0, y0) = (i as f32 * 16.0, j as f32 * 16.0);
                let polygon = vec![
                    [x0, y0, 0.0],
                    [x0 + 16.0, y0, 0.0],
                    [x0 + 16.0, y0 + 16.0, 0.0],
                    [x0, y0 + 16.0, 0.0],
                ];
                b.add_area(&iron3d_landmap::AreaSpec {
                    polygon,
                    walkable: true,
                    class_id: 0,
                })
                .expect("area");
            }
        }
        b.link_shared_edges();
        let map = b
            .build(
                8,
                8,
                iron3d_landmap::Bounds {
                    min: [0.0, 0.0],
                    max: [64.0, 64.0],
                },
            )
            .expect("map");
        (msh, map.to_file_bytes(b"Land.map").expect("bytes"))
    }

    /// Writes the game directory under `root`: missions `M1` (valid, 4 objects), `M2`
    /// (one object whose prototype's model entry is missing) and `M3` (one object whose
    /// model's material names a texture missing from Textures.lib).
    pub fn write(root: &Path) {
        let w = |rel: &str, bytes: Vec<u8>| {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("dirs");
            std::fs::write(p, bytes).expect("write");
        };
        w(
            "objects.rlb",
            nres(&[
                ("vehicle_base", refs(&[("models.rlb", "chassis.msh")])),
                (
                    "tank_proto",
                    refs(&[("parent", "vehicle_base"), ("models.rlb", "tank.msh")]),
                ),
                ("tower", refs(&[("models.rlb", "tower.msh")])),
                ("sun", refs(&[("system.rlb", "sun.bas")])),
                ("ghost", refs(&[("models.rlb", "ghost.msh")])),
                ("pale", refs(&[("models.rlb", "pale.msh")])),
            ]),
        );
        w(
            "models.rlb",
            nres(&[
                ("chassis.msh", b"MSH chassis".to_vec()),
                ("chassis.wea", wear(&["STEEL", "GLASS"], &["LM_CHASSIS"])),
                ("tank.msh", b"MSH tank".to_vec()),
                ("tank.wea", wear(&["STEEL"], &[])),
                ("tower.msh", b"MSH tower".to_vec()),
                (
                    "tower.wea",
                    wear(&["CONCRETE"], &["LM_TOWER", "LM_MISSING"]),
                ),
                ("pale.msh", b"MSH pale".to_vec()),
                ("pale.wea", wear(&["PAINT"], &[])),
            ]),
        );
        const MAT0: u32 = 0x3054_414D;
        w(
            "Material.lib",
            typed_nres(&[
                ("DEFAULT", MAT0, 6, mat0(&["DEFTEX"])),
                ("STEEL", MAT0, 6, mat0(&["STEEL0", "STEEL1"])),
                ("GLASS", MAT0, 6, mat0(&[""])),
                ("CONCRETE", MAT0, 6, mat0(&["CONC"])),
                ("PAINT", MAT0, 6, mat0(&["NOSUCHTEX"])),
            ]),
        );
        w(
            "Textures.lib",
            nres(&[
                ("DEFTEX", b"Texm".to_vec()),
                ("STEEL0", b"Texm".to_vec()),
                ("STEEL1", b"Texm".to_vec()),
                ("CONC", b"Texm".to_vec()),
            ]),
        );
        w(
            "LightMap.lib",
            nres(&[
                ("LM_CHASSIS", b"Texm".to_vec()),
                ("LM_TOWER", b"Texm".to_vec()),
            ]),
        );
        w("system.rlb", nres(&[("sun.bas", b"BASE".to_vec())]));
        let mut dat = UnitDat::new();
        dat.records
            .push(UnitRecord::new(b"tank_proto", 0, b"Tank with its tower").expect("record"));
        dat.records.push(
            UnitRecord::new(b"tower", 0, b"12345678901234567890123456789012").expect("record"),
        );
        w("UNITS/Tank.dat", dat.to_bytes());
        w(
            "BuildDat.lst",
            b"Hangar 1\r\n\"UNITS\\Tank.dat\"\r\n".to_vec(),
        );
        let (land_msh, land_map) = terrain();
        for m in ["M1", "M2", "M3"] {
            w(&format!("MISSIONS/{m}/Land.msh"), land_msh.clone());
            w(&format!("MISSIONS/{m}/Land.map"), land_map.clone());
        }
        w(
            "MISSIONS/M1/data.tma",
            mission(&[
                ("UNITS\\TANK.DAT", [0.0, 0.0, 0.0]),
                ("units/tank.dat", [10.0, 0.0, 0.0]),
                ("tower", [5.0, 5.0, 0.0]),
                ("sun", [0.0, 0.0, 100.0]),
            ]),
        );
        w(
            "MISSIONS/M2/data.tma",
            mission(&[("tower", [1.0, 1.0, 0.0]), ("ghost", [2.0, 2.0, 0.0])]),
        );
        w(
            "MISSIONS/M3/data.tma",
            mission(&[("tower", [1.0, 1.0, 0.0]), ("pale", [3.0, 3.0, 0.0])]),
        );
    }
}

/// A fresh, empty folder `iron3d-e2e-<tag>-<pid>` in the system's temporary folder for
/// what a test binary shares between its tests for the whole process (statics are
/// never dropped, so such a folder outlives the process). Folders of the same tag left
/// by processes that are gone (no `/proc/<pid>`) are removed first, so at most one per
/// tag stays behind after the last run.
///
/// # Panics
/// When the folder cannot be made.
pub fn process_dir(tag: &str) -> std::path::PathBuf {
    let tmp = std::env::temp_dir();
    let prefix = format!("iron3d-e2e-{tag}-");
    if let Ok(entries) = std::fs::read_dir(&tmp) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let Some(pid) = name.strip_prefix(&prefix) else {
                continue;
            };
            if pid.parse::<u32>().is_ok() && !std::path::Path::new("/proc").join(pid).exists() {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
    let dir = tmp.join(format!("{prefix}{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("the process's shared folder");
    dir
}

/// Rendering fixtures shared by `render.rs` and `render_vulkan.rs`: the demo directory,
/// `iron3d play --offscreen` runs, PNG decoding, capture JSON and the scene cameras.
pub mod render {
    use crate::iron3d;
    use std::path::{Path, PathBuf};
    use std::process::ExitCode;
    use std::sync::OnceLock;

    /// Golden size (small, so committed PNGs stay a few tens of KB).
    pub const W: u32 = 160;
    /// Golden size.
    pub const H: u32 = 120;
    /// The overview camera, far enough out to hold every phase the demo uses.
    pub const OVERVIEW: &str = "180,150,60,0.6,-0.35";
    /// The terrain scene's camera.
    pub const TERRAIN_CAMERA: &str = "120,60,90,1.2,-0.7";

    /// The demo directory (seed 1), built once per test binary in
    /// [`crate::process_dir`] (a static is never dropped, so a `TempDir` here would be
    /// left behind by every run).
    pub fn demo() -> &'static Path {
        static DIR: OnceLock<PathBuf> = OnceLock::new();
        DIR.get_or_init(|| {
            let dir = crate::process_dir("render-demo");
            iron3d_demo::build(&dir, 1, iron3d_demo::Profile::Demo).expect("demo");
            dir
        })
    }

    /// The registry the render tests play with: `config/plugins.ini` with the sample
    /// wanderer in the AI slot, so the goldens show rendering, not the AI's tuning (the
    /// AI plugin has its own tests).
    pub fn registry() -> &'static Path {
        static FILE: OnceLock<PathBuf> = OnceLock::new();
        FILE.get_or_init(|| {
            let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("../config/plugins.ini");
            let text = std::fs::read_to_string(config).expect("config/plugins.ini");
            let text: String = text
                .lines()
                .map(|l| {
                    if l.starts_with("ai ") {
                        "ai       iron3d_ai_wanderer   wanderer\n".to_owned()
                    } else {
                        format!("{l}\n")
                    }
                })
                .collect();
            let path = demo().join("render-plugins.ini");
            std::fs::write(&path, text).expect("render registry");
            path
        })
    }

    /// `iron3d play --game-dir <demo> --mission DEMO1 --offscreen --no-hud --registry
    /// <registry()> <extra>` (the 3D frame alone); asserts exit 0.
    pub fn play(extra: &[&str]) -> String {
        let game = demo().to_str().expect("utf-8 path").to_owned();
        let reg = registry().to_str().expect("utf-8 path").to_owned();
        let mut args = vec![
            "play",
            "--game-dir",
            &game,
            "--mission",
            "DEMO1",
            "--offscreen",
            "--no-hud",
            "--registry",
            &reg,
        ];
        args.extend_from_slice(extra);
        let (code, out) = iron3d(&args);
        assert_eq!(code, ExitCode::SUCCESS, "{out}");
        out
    }

    /// Plays `frames` frames at the golden size through `camera` with `renderer` and
    /// writes the screenshot to `shot`; returns the launcher's output.
    pub fn shoot(renderer: &str, camera: &str, frames: u32, shot: &Path) -> String {
        let (w, h, f) = (W.to_string(), H.to_string(), frames.to_string());
        play(&[
            "--renderer",
            renderer,
            "--frames",
            &f,
            "--width",
            &w,
            "--height",
            &h,
            "--camera",
            camera,
            "--screenshot",
            shot.to_str().expect("utf-8 path"),
        ])
    }

    /// `(width, height, RGBA8 pixels)` of a PNG file.
    pub fn decode(path: &Path) -> (u32, u32, Vec<u8>) {
        let file = std::fs::File::open(path).expect("png file");
        let dec = png::Decoder::new(std::io::BufReader::new(file));
        let mut r = dec.read_info().expect("png header");
        let mut buf = vec![0; r.output_buffer_size()];
        let info = r.next_frame(&mut buf).expect("png frame");
        buf.truncate(info.buffer_size());
        (info.width, info.height, buf)
    }

    /// The committed goldens (`tests/goldens/`).
    pub fn goldens() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("goldens")
    }

    /// A frame rendered for comparison with `goldens/<name>.png`.
    pub struct GoldenShot {
        /// The launcher's output.
        pub out: String,
        /// Image width (equal for both images; asserted).
        pub width: u32,
        /// Image height.
        pub height: u32,
        /// The rendered RGBA8 pixels.
        pub got: Vec<u8>,
        /// The golden's RGBA8 pixels.
        pub want: Vec<u8>,
        /// The golden's path.
        pub want_path: PathBuf,
    }

    /// Renders `camera` after `frames` frames with `renderer` and loads `goldens/<name>.png`
    /// beside it (asserting equal sizes). With `update`, the shot first replaces the golden.
    pub fn shoot_golden(
        renderer: &str,
        name: &str,
        camera: &str,
        frames: u32,
        update: bool,
    ) -> GoldenShot {
        let tmp = tempfile::tempdir().expect("tempdir");
        let shot = tmp.path().join("shot.png");
        let out = shoot(renderer, camera, frames, &shot);
        let want_path = goldens().join(format!("{name}.png"));
        if update {
            std::fs::copy(&shot, &want_path).expect("golden updated");
        }
        let (width, height, got) = decode(&shot);
        let (ww, wh, want) = decode(&want_path);
        assert_eq!((width, height), (ww, wh), "{name}: size");
        GoldenShot {
            out,
            width,
            height,
            got,
            want,
            want_path,
        }
    }

    /// The capture JSON of one frame seen through `camera` after `frames` frames.
    pub fn capture(camera: &str, frames: u32) -> String {
        let tmp = tempfile::tempdir().expect("tempdir");
        let shot = tmp.path().join("frame.json");
        shoot("capture", camera, frames, &shot);
        std::fs::read_to_string(shot).expect("capture json")
    }

    fn capture_overview() -> &'static str {
        static JSON: OnceLock<String> = OnceLock::new();
        JSON.get_or_init(|| capture(OVERVIEW, 2))
    }

    /// A camera 14 units south-west of and 9 above the first object item of `phase` in the
    /// overview frame, looking at it (`X,Y,Z,YAW,PITCH`).
    pub fn camera_near(phase: &str) -> String {
        let json: serde_json::Value =
            serde_json::from_str(capture_overview()).expect("capture json parses");
        let item = json["items"]
            .as_array()
            .expect("items")
            .iter()
            .find(|i| i["phase"] == phase && i["object"] != 0)
            .unwrap_or_else(|| panic!("no {phase} item in the overview frame"));
        let w: Vec<f32> = item["world"]
            .as_array()
            .expect("world matrix")
            .iter()
            .map(|v| v.as_f64().expect("number") as f32)
            .collect();
        let target = glam::Vec3::new(w[12], w[13], w[14]);
        let eye = target + glam::Vec3::new(-14.0, -14.0, 9.0);
        let d = target - eye;
        let yaw = d.y.atan2(d.x);
        let pitch = d.z.atan2(d.truncate().length());
        format!("{},{},{},{yaw},{pitch}", eye.x, eye.y, eye.z)
    }
}

/// The demo's BATTLE as the seat tests play it: a session with the real terrain, AI,
/// control and input plugins on `clock`, seeded `seed`, with the mission `parameters`.
pub mod battle {
    use iron3d_kernel::ManualTimeSource;
    use iron3d_plugin_host::SearchPaths;
    use iron3d_registry::{Dialect, Registry};
    use iron3d_session::{MissionSpec, Session, SessionSpec};
    use iron3d_vfs::ReadMode;
    use std::collections::BTreeMap;
    use std::path::Path;
    use std::time::Duration;

    /// The registry: terrain, AI, control and the player's input.
    pub const REGISTRY: &str = "terrain iron3d_terrain terrain\nai iron3d_ai ai\n\
control iron3d_control control\ninput iron3d_player_input player\n";

    /// Opens the session (panics with the reason when it cannot).
    pub fn session(
        shadow: &Path,
        clock: &ManualTimeSource,
        seed: u64,
        publish_snapshots: bool,
        parameters: BTreeMap<String, String>,
    ) -> Session {
        let dir = crate::plugins::library_dir();
        let spec = SessionSpec {
            seed,
            tick_hz: 30,
            publish_snapshots,
            registry: Registry::parse(REGISTRY.as_bytes(), "battle.ini", Dialect::PluginsIni)
                .expect("the battle registry"),
            search_paths: SearchPaths::new(vec![dir.clone(), dir.join("..")]),
            shadow_dir: shadow.to_owned(),
            debounce: Duration::from_millis(50),
            services: Vec::new(),
            strict_plugins: true,
        };
        Session::open(
            &spec,
            MissionSpec::Game {
                game_dir: crate::render::demo().to_owned(),
                mission: iron3d_demo::BATTLE.to_owned(),
                mode: ReadMode::Strict,
                relax_mesh_tag: false,
                parameters,
                overlays: Vec::new(),
            },
            Box::new(clock.clone()),
        )
        .unwrap_or_else(|e| panic!("the battle session: {e}"))
    }
}
