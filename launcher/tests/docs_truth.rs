//! The first screen of help and the docs' claims are true: every subcommand's one-line
//! help promises nothing that is "for now" or "not yet"; every `iron3d …` command line the
//! README, ARCHITECTURE, the plugin guide and the modder's guide show names a real
//! subcommand and real options; the README's key claims for the player's seat match the
//! bindings in effect.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

use clap::CommandFactory;
use std::path::{Path, PathBuf};

fn checkout() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every subcommand with its path (`mods new`), depth first.
fn subcommands(c: &clap::Command, path: &str, out: &mut Vec<(String, clap::Command)>) {
    for s in c.get_subcommands() {
        let p = if path.is_empty() {
            s.get_name().to_owned()
        } else {
            format!("{path} {}", s.get_name())
        };
        out.push((p.clone(), s.clone()));
        subcommands(s, &p, out);
    }
}

#[test]
fn no_subcommand_help_says_for_now_or_not_yet() {
    let mut all = Vec::new();
    subcommands(&iron3d_launcher::Cli::command(), "", &mut all);
    assert!(all.len() > 20, "{}", all.len());
    for (path, c) in &all {
        let about = c.get_about().map(|a| a.to_string()).unwrap_or_default();
        let lower = about.to_lowercase();
        for stale in ["for now", "not yet", "future", "todo", "kernel throughput"] {
            assert!(
                !lower.contains(stale),
                "`iron3d {path}`'s help says \"{stale}\": {about}"
            );
        }
    }
    let root = iron3d_launcher::Cli::command();
    let about = |name: &str| {
        root.find_subcommand(name)
            .and_then(|c| c.get_about())
            .map(|a| a.to_string())
            .unwrap()
    };
    assert!(about("run").contains("mission"), "{}", about("run"));
    assert!(about("bench").contains("render"), "{}", about("bench"));
}

/// `iron3d …` command lines in `text`: code spans and code-block lines, from the word
/// `iron3d` to the end of the span or line.
fn command_lines(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut in_block = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
            continue;
        }
        let pieces: Vec<&str> = if in_block {
            vec![line]
        } else {
            line.split('`').skip(1).step_by(2).collect()
        };
        for piece in pieces {
            let piece = piece.split('#').next().unwrap_or("");
            // The command is the first word after any `VAR=value` assignments.
            let mut words = piece
                .split_whitespace()
                .skip_while(|w| w.contains('=') && !w.starts_with('-'));
            if words
                .next()
                .is_some_and(|w| w == "iron3d" || w.ends_with("/iron3d"))
            {
                found.push(words.collect::<Vec<_>>().join(" "));
            }
        }
    }
    found
}

/// Checks one command line against the CLI: the subcommand path exists and each
/// `--option` is one of the reached command's (or a global one).
fn check(line: &str, root: &clap::Command) -> Result<(), String> {
    let mut cmd = root.clone();
    let mut words = line.split_whitespace().peekable();
    let mut path = Vec::new();
    // The commands on the path: their global options apply below them.
    let mut above = vec![root.clone()];
    while let Some(w) = words.peek() {
        match cmd.find_subcommand(w) {
            Some(s) => {
                path.push(w.to_string());
                above.push(cmd.clone());
                cmd = s.clone();
                words.next();
            }
            None => break,
        }
    }
    if path.is_empty() {
        let first = words.peek().copied().unwrap_or("");
        // Prose like "`iron3d` with no arguments" or an option of the root.
        if first.is_empty() || first.starts_with("--") || first.starts_with('-') {
        } else {
            return Err(format!("no subcommand '{first}'"));
        }
    }
    for w in words {
        let Some(flag) = w.strip_prefix("--") else {
            continue;
        };
        let flag = flag.split('=').next().unwrap_or(flag);
        let flag = flag.trim_end_matches([',', ')', '.', ';', ':']);
        if flag.is_empty() || flag.contains('…') {
            continue;
        }
        let known = cmd
            .get_arguments()
            .chain(
                above
                    .iter()
                    .flat_map(|c| c.get_arguments().filter(|a| a.is_global_set())),
            )
            .chain(root.get_arguments())
            .any(|a| {
                a.get_long() == Some(flag)
                    || a.get_all_aliases().is_some_and(|al| al.contains(&flag))
            });
        if !known && flag != "help" {
            return Err(format!(
                "`iron3d {}` has no option --{flag}",
                path.join(" ")
            ));
        }
    }
    Ok(())
}

#[test]
fn every_command_line_in_the_docs_names_real_subcommands_and_options() {
    let root = iron3d_launcher::Cli::command();
    let mut checked = 0;
    let mut wrong = Vec::new();
    for doc in [
        "README.md",
        "ARCHITECTURE.md",
        "plugins/AUTHORS.md",
        "mods/README.md",
        "tools/play.sh",
    ] {
        let text = std::fs::read_to_string(checkout().join(doc)).unwrap();
        for line in command_lines(&text) {
            checked += 1;
            if let Err(e) = check(&line, &root) {
                wrong.push(format!("{doc}: `iron3d {line}`: {e}"));
            }
        }
    }
    assert!(checked > 40, "command lines found: {checked}");
    assert!(
        wrong.is_empty(),
        "docs name what the CLI lacks:\n{}",
        wrong.join("\n")
    );
    // The checker finds what is wrong.
    assert!(check("run --headless --no-such-flag", &root).is_err());
    assert!(check("fly --headless", &root).is_err());
    assert!(check("mods new x --plugin ai --mods-dir D", &root).is_ok());
}

/// The bindings in effect with no user file: action → its inputs.
fn bindings() -> Vec<(String, Vec<String>)> {
    let empty = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_iron3d"))
        .current_dir(checkout())
        .env("XDG_CONFIG_HOME", empty.path())
        .args(["bindings", "list"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    text.lines()
        .filter(|l| {
            !l.starts_with("bindings=") && !l.starts_with("user=") && !l.starts_with("inputs ")
        })
        .filter_map(|l| {
            let mut cols = l.split_whitespace();
            let action = cols.next()?.to_owned();
            let _kind = cols.next()?;
            let _mode = cols.next()?;
            let rest: Vec<&str> = cols.collect();
            let end = rest.iter().position(|w| w.contains("bindings.ini:"))?;
            let inputs = rest[..end]
                .join(" ")
                .split(',')
                .map(|i| i.trim().to_owned())
                .collect();
            Some((action, inputs))
        })
        .collect()
}

#[test]
fn the_readmes_seat_keys_are_the_bindings() {
    let readme = std::fs::read_to_string(checkout().join("README.md")).unwrap();
    let readme = readme.split_whitespace().collect::<Vec<_>>().join(" ");
    let bindings = bindings();
    // (what the README says, the action, the input it names)
    let claims = [
        ("I infrared", "camera.infrared", "Key:I"),
        ("left click selects", "select", "Mouse:Left"),
        ("Left Shift adds", "select.add", "Key:LeftShift"),
        (
            "right click orders the selection there",
            "order.move",
            "Mouse:Right",
        ),
        ("T attacks", "order.attack", "Key:T"),
        ("P patrols", "order.patrol", "Key:P"),
        ("H sends trucks to harvest", "order.harvest", "Key:H"),
        ("X cancels the orders", "order.stop", "Key:X"),
        (
            "the middle button held turns the view",
            "camera.drag",
            "Mouse:Middle",
        ),
        ("Enter possesses", "unit.possess", "Key:Enter"),
        ("Space fires", "unit.fire", "Key:Space"),
        ("Pause, F3 or Esc pause", "game.pause", "Key:F3"),
        ("Pause, F3 or Esc pause", "game.pause", "Key:Pause"),
        ("Pause, F3 or Esc pause", "game.menu", "Key:Escape"),
    ];
    for (said, action, input) in claims {
        assert!(
            readme.contains(said),
            "the README no longer says \"{said}\""
        );
        let inputs = bindings
            .iter()
            .find(|(a, _)| a == action)
            .map(|(_, i)| i.clone())
            .unwrap_or_else(|| panic!("no binding {action}: {bindings:?}"));
        assert!(
            inputs.iter().any(|i| i == input),
            "README: \"{said}\", but {action} is bound to {inputs:?}"
        );
    }
}
