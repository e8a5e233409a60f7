//! The gust rule and the wire contract of the `wind` service.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use super::*;

fn request(tick: u64) -> Vec<u8> {
    let mut b = Vec::new();
    for v in [12.5f32, -3.0, 0.25] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    b.extend_from_slice(&tick.to_le_bytes());
    b
}

fn answer(bytes: &[u8]) -> [f32; 3] {
    assert_eq!(bytes.len(), 12);
    let f = |i: usize| f32::from_le_bytes(bytes[i * 4..i * 4 + 4].try_into().unwrap());
    [f(0), f(1), f(2)]
}

#[test]
fn a_gust_holds_for_its_period_and_changes_with_the_next() {
    let mut w = GustyWind::with_seed(77);
    let first = answer(&w.call(METHOD_AT, &request(0)).unwrap());
    assert_eq!(
        answer(&w.call(METHOD_AT, &request(GUST_TICKS - 1)).unwrap()),
        first
    );
    let next = answer(&w.call(METHOD_AT, &request(GUST_TICKS)).unwrap());
    assert_ne!(next, first);
    // Strength within bounds, horizontal, for many periods.
    for p in 0..200 {
        let [x, y, z] = w.wind(p * GUST_TICKS);
        let s = (x * x + y * y).sqrt();
        assert!(s < MAX_STRENGTH + 1e-4 && z == 0.0, "period {p}: {s}");
    }
}

#[test]
fn the_answer_depends_on_seed_and_tick_only() {
    let a = GustyWind::with_seed(5);
    let b = GustyWind::with_seed(5);
    let c = GustyWind::with_seed(6);
    // Asked in another order, or more often: the same winds.
    let forward: Vec<_> = (0..10).map(|p| a.wind(p * GUST_TICKS + 3)).collect();
    let backward: Vec<_> = (0..10).rev().map(|p| b.wind(p * GUST_TICKS + 3)).collect();
    assert_eq!(forward, backward.into_iter().rev().collect::<Vec<_>>());
    assert_ne!(
        forward,
        (0..10)
            .map(|p| c.wind(p * GUST_TICKS + 3))
            .collect::<Vec<_>>()
    );
}

#[test]
fn bad_requests_are_refused_with_their_reason() {
    let mut w = GustyWind::with_seed(1);
    let e = w.call("speed", &request(0)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::UNSUPPORTED);
    assert_eq!(
        e.message.as_str(),
        "the wind service has no method \"speed\" (it has \"at\")"
    );
    let e = w.call(METHOD_AT, &[0; 19]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::INVALID);
    assert!(e.message.as_str().contains("not 19"), "{}", e.message);
}

#[test]
fn the_state_is_the_seed_and_round_trips() {
    let w = GustyWind::with_seed(0xDEAD_BEEF);
    let blob = w.save_state().unwrap();
    let mut back = GustyWind::with_seed(0);
    back.restore_state(&blob).unwrap();
    assert_eq!(back.wind(1234), w.wind(1234));
    let short = StateBlob::new(STATE_FORMAT, STATE_VERSION, vec![1, 2, 3]);
    assert_eq!(
        back.restore_state(&short).unwrap_err().kind,
        ErrorKind::BAD_STATE
    );
}

#[test]
fn the_manifest_declares_the_wind_service_built_from_this_crate() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = dir.join("mod.toml");
    let m = iron3d_mods::Manifest::parse(&std::fs::read_to_string(&path).unwrap(), &path)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.id, "gusty-wind");
    assert!(m.simulation, "the wind moves units");
    assert_eq!(m.interface, Some(iron3d_abi::ABI_MAJOR));
    assert_eq!(m.plugins.len(), 1);
    let p = &m.plugins[0];
    assert_eq!(p.target, iron3d_mods::PluginTarget::Service("wind".into()));
    assert_eq!(p.factory, FACTORY);
    assert_eq!(p.build.as_deref(), Some("iron3d_mod_gusty_wind"));
    assert!(
        m.engine
            .matches(&semver::Version::parse(env!("CARGO_PKG_VERSION")).unwrap())
    );
}
