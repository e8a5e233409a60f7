//! Matches between real `iron3d` processes on the loopback interface (127.0.0.1 only;
//! the server's port is the system's choice): `serve` and `join --bot` reach the same
//! final state hash at the same tick, and `join --inject-desync` makes every peer name
//! the desync's tick.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]
#![allow(
    clippy::disallowed_methods,
    reason = "a deadline on child processes, not simulation time"
)]

#[path = "common/peers.rs"]
mod peers;

use peers::{LIMIT, lines, match_over as over, wait_for};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn iron3d(args: &[&str], game: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_iron3d"))
        .args(args)
        .args(["--game-dir", game.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits for every child (killing them all past [`LIMIT`]); their full output.
fn finish(
    peers: Vec<(Child, mpsc::Receiver<String>, Vec<String>)>,
) -> Vec<(bool, Vec<String>, String)> {
    let began = Instant::now();
    let mut done = Vec::new();
    for (mut child, rx, mut seen) in peers {
        let status = loop {
            seen.extend(rx.try_iter());
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            if began.elapsed() > LIMIT {
                let _ = child.kill();
                let _ = child.wait();
                panic!("a peer ran past {LIMIT:?}: {seen:#?}");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        std::thread::sleep(Duration::from_millis(50));
        seen.extend(rx.try_iter());
        let mut err = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
        done.push((status.success() || status.code() == Some(4), seen, err));
    }
    done
}

/// `serve` on a free port; its address once it listens.
fn serve(game: &Path, extra: &[&str]) -> (Child, mpsc::Receiver<String>, Vec<String>, String) {
    let mut args = vec!["serve", "--port", "0", "--mission", "BATTLE"];
    if !extra.contains(&"--players") {
        args.extend_from_slice(&["--players", "2"]);
    }
    args.extend_from_slice(extra);
    let mut child = iron3d(&args, game);
    let rx = lines(&mut child);
    let mut seen = Vec::new();
    let began = Instant::now();
    while began.elapsed() < LIMIT {
        if let Ok(line) = rx.recv_timeout(Duration::from_millis(100)) {
            let at = line
                .strip_prefix("serve: listening on ")
                .and_then(|r| r.split_whitespace().next())
                .map(str::to_owned);
            seen.push(line);
            if let Some(at) = at {
                return (child, rx, seen, at);
            }
        }
        if let Some(s) = child.try_wait().unwrap() {
            let mut err = String::new();
            std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
            panic!("serve exited ({s}) before listening: {seen:#?}\n{err}");
        }
    }
    panic!("serve did not listen: {seen:#?}");
}

fn join(
    game: &Path,
    at: &str,
    name: &str,
    extra: &[&str],
) -> (Child, mpsc::Receiver<String>, Vec<String>) {
    let mut args = vec!["join", at, "--bot", "--name", name];
    args.extend_from_slice(extra);
    let mut child = iron3d(&args, game);
    let rx = lines(&mut child);
    (child, rx, Vec::new())
}

/// Every peer's end line, each peer having exited well (0, or 4 for a desync).
fn ended_well(done: &[(bool, Vec<String>, String)]) -> Vec<(u64, String, String)> {
    done.iter()
        .map(|(ok, out, err)| {
            assert!(*ok, "{out:#?}\n{err}");
            over(out)
        })
        .collect()
}

fn demo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    iron3d_demo::build(dir.path(), 1, iron3d_demo::Profile::Demo).unwrap();
    dir
}

/// A dedicated server and two bots, one of them drawn (`--offscreen`: the player's
/// `PlaySession` path with the match's ticks): every peer ends at the same tick with
/// the same state hash, no desync, each bot's orders in its own band.
#[test]
fn serve_and_two_bots_end_with_the_same_hash() {
    let game = demo();
    let (s, srx, sseen, at) = serve(game.path(), &["--ticks", "240"]);
    let a = join(game.path(), &at, "anna", &[]);
    let b = join(
        game.path(),
        &at,
        "bo",
        &["--offscreen", "--renderer", "capture"],
    );
    let done = finish(vec![(s, srx, sseen), a, b]);
    let ends = ended_well(&done);
    assert!(ends[0].0 >= 240, "{ends:?}");
    assert_eq!(ends[0].0 % 3, 0, "a turn's end");
    for e in &ends {
        assert_eq!(e, &ends[0], "every peer: {ends:?}");
        assert_eq!(e.2, "no");
    }
    let server = &done[0].1;
    assert!(
        server.iter().any(|l| l.contains("match started")),
        "{server:#?}"
    );
    assert!(
        done[1]
            .1
            .iter()
            .any(|l| l.contains("seat ") && l.contains("reserved: mission=BATTLE"))
    );
}

/// `join --inject-desync TICK` moves one object on that peer after TICK: every peer
/// reports the desync at the end of the turn holding TICK (the hash after it is taken
/// after the change), and exits with code 4.
#[test]
fn an_injected_desync_is_reported_by_every_peer() {
    let game = demo();
    let reports = tempfile::tempdir().unwrap();
    let dir = reports.path().to_str().unwrap();
    let (s, srx, sseen, at) = serve(game.path(), &["--ticks", "180", "--desync-dir", dir]);
    let a = join(
        game.path(),
        &at,
        "anna",
        &["--inject-desync", "60", "--desync-dir", dir],
    );
    let b = join(game.path(), &at, "bo", &["--desync-dir", dir]);
    let done = finish(vec![(s, srx, sseen), a, b]);
    let moved = done[1]
        .1
        .iter()
        .find_map(|l| l.split("injected a desync after tick 60: object ").nth(1))
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or_else(|| panic!("{:#?}", done[1].1))
        .to_owned();
    for (k, (_, out, err)) in done.iter().enumerate() {
        let line = out
            .iter()
            .find(|l| l.contains("DESYNC at tick "))
            .unwrap_or_else(|| panic!("peer {k} saw no desync: {out:#?}\n{err}"));
        let tick: u64 = line
            .split("DESYNC at tick ")
            .nth(1)
            .and_then(|r| r.split(':').next())
            .unwrap()
            .parse()
            .unwrap();
        assert!((60..=63).contains(&tick), "peer {k}: {line}");
        assert_eq!(over(out).2, "yes", "peer {k}");
        // Its report names the object that was moved and the field.
        let named = out
            .iter()
            .filter(|l| l.contains("desync report "))
            .any(|l| l.contains(&format!("object {moved} (queue 0); position")));
        assert!(named, "peer {k} did not name object {moved}: {out:#?}");
    }
    let files: Vec<_> = std::fs::read_dir(reports.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(files.len(), 3, "one report per peer: {files:?}");
    for f in &files {
        let text = std::fs::read_to_string(reports.path().join(f)).unwrap();
        assert!(text.contains("first differing tick: "), "{f}: {text}");
        assert!(
            text.contains("the records of the ticks up to it"),
            "{f}: {text}"
        );
        assert!(
            text.contains(&format!("object {moved} (queue 0)")),
            "{f}: {text}"
        );
    }
    assert!(
        done[1]
            .1
            .iter()
            .any(|l| l.contains("injected a desync after tick 60")),
        "{:#?}",
        done[1].1
    );
}

/// A disconnect mid-match and a rejoin (PD-NET-REJOIN): a bot's process is killed (no
/// goodbye); the server drops it after the silence timeout and the match goes on; a
/// new process takes the seat through the lobby, restores the server's snapshot and
/// plays to the end: every peer still in the match ends at the same tick with the
/// same state hash, no desync.
#[test]
fn a_killed_bot_is_dropped_and_a_new_one_rejoins_its_seat() {
    let game = demo();
    let (s, srx, mut sseen, at) = serve(game.path(), &["--ticks", "900"]);
    let a = join(game.path(), &at, "anna", &[]);
    let (mut b, _brx, _) = join(game.path(), &at, "bo", &[]);
    wait_for(&srx, &mut sseen, "match started");
    std::thread::sleep(Duration::from_secs(4));
    b.kill().unwrap();
    b.wait().unwrap();
    wait_for(&srx, &mut sseen, " left from tick ");
    let c = join(game.path(), &at, "cy", &[]);
    let done = finish(vec![(s, srx, sseen), a, c]);
    let ends = ended_well(&done);
    for e in &ends {
        assert_eq!(e, &ends[0], "every peer: {ends:?}");
        assert_eq!(e.2, "no");
    }
    let cy = &done[2].1;
    assert!(
        cy.iter()
            .any(|l| l.contains("rejoined: restored the host's snapshot after tick ")),
        "{cy:#?}"
    );
    let server = &done[0].1;
    assert!(
        server.iter().any(|l| l.contains("rejoined from tick ")),
        "{server:#?}"
    );
}

/// PD-NET-SERVE-IDLE: a dedicated server whose every player left ends the match then,
/// not after its `--ticks` (here far away), and exits well.
#[test]
fn a_server_whose_players_all_left_ends_the_match() {
    let game = demo();
    let (s, srx, mut sseen, at) = serve(game.path(), &["--players", "1", "--ticks", "100000"]);
    let (mut a, _arx, _) = join(game.path(), &at, "anna", &[]);
    wait_for(&srx, &mut sseen, "match started");
    std::thread::sleep(Duration::from_secs(2));
    a.kill().unwrap();
    a.wait().unwrap();
    let done = finish(vec![(s, srx, sseen)]);
    let (tick, _, desync) = ended_well(&done).remove(0);
    assert_eq!(desync, "no");
    assert!(tick < 100_000, "ended early: {tick}");
    let server = &done[0].1;
    let left = server.iter().position(|l| l.contains(" left from tick "));
    let idle = server
        .iter()
        .position(|l| l.contains("every player left: the server ends the match"));
    assert!(left.is_some() && idle > left, "{server:#?}");
}

/// Admission over real processes: a player whose AI plugin differs is refused with the
/// difference named on its side, the server says so and goes on, and a player who
/// matches then plays the match to its end.
#[test]
fn a_player_who_differs_is_refused_and_the_server_goes_on() {
    let game = demo();
    let registry = game.path().join("other-ai.ini");
    let ours = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../config/plugins.ini"),
    )
    .unwrap();
    let theirs: String = ours
        .lines()
        .map(|l| {
            if l.starts_with("ai ") {
                "ai iron3d_ai_wanderer wanderer".to_owned()
            } else {
                l.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(&registry, theirs).unwrap();
    let (s, srx, mut sseen, at) = serve(game.path(), &["--players", "1", "--ticks", "90"]);
    let (mut bad, brx, _) = join(
        game.path(),
        &at,
        "stranger",
        &["--registry", registry.to_str().unwrap()],
    );
    let status = bad.wait().unwrap();
    let mut err = String::new();
    std::io::Read::read_to_string(&mut bad.stderr.take().unwrap(), &mut err).unwrap();
    assert!(
        !status.success(),
        "{:#?}",
        brx.try_iter().collect::<Vec<_>>()
    );
    assert!(
        err.contains("refused by the host") && err.contains("plugin in slot ai: host iron3d-ai"),
        "{err}"
    );
    wait_for(&srx, &mut sseen, "refused a player: plugin in slot ai");
    let good = join(game.path(), &at, "anna", &[]);
    let done = finish(vec![(s, srx, sseen), good]);
    let ends = ended_well(&done);
    assert_eq!(ends[0], ends[1]);
}
