//! The real `iron3d-bench` process: the figures it prints (moved with the driver from the
//! launcher's `iron3d bench` test).

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use std::process::Command;

#[test]
fn bench_reports_the_three_figures() {
    let out = Command::new(env!("CARGO_BIN_EXE_iron3d-bench"))
        .args(["--objects", "500", "--ticks", "20", "--no-archives"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = String::from_utf8(out.stdout).unwrap();
    for key in [
        "ticks_per_second=",
        "us_per_hash=",
        "bus_dispatch messages=",
        "bus_raw messages=",
        "bench demo_generate profile=stress",
        "bench demo_corpus profile=stress",
        "bench demo_mission_load profile=stress mission=STRESS objects=10000",
        "bench mods_check mods=100 loaded=100 refused=0",
        "bench mods_mission_load mission=BATTLE overlay_mods=100",
        "bench effects_particles particles=10000 frames=90",
        "bench effects_burst kills=64 instances=128",
        "bench save mission=battle",
        "bench save mission=stress objects=10000",
    ] {
        assert!(s.contains(key), "{key} missing in:\n{s}");
    }
}

#[test]
fn bad_options_exit_with_a_usage_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_iron3d-bench"))
        .args(["--objects", "many"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--objects"));
}
