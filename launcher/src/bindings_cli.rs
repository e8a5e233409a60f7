//! `iron3d bindings list`: the bindings in effect — the shipped `config/bindings.ini`
//! (found like the plugin registry) with the user's file laid over it — every action
//! with its inputs and where each binding was written, then the input names.

use crate::plugins;
use anyhow::Context;
use iron3d_config::bindings::{self, ALL, ActionKind, BOTH, Bindings, Device, MENU, OVERVIEW};
use std::io::Write;
use std::path::{Path, PathBuf};

pub use iron3d_config::bindings::{BINDINGS_FILE, user_file};

/// Reads a bindings file: a regular file of at most 1 MiB (PD-CONFIG-FILE; a FIFO, a
/// device or a directory is refused by name before it is opened).
fn read(path: &Path) -> anyhow::Result<Bindings> {
    let bytes = iron3d_config::file::read_regular(path, iron3d_config::file::MAX_FILE_BYTES)
        .context("bindings file")?;
    Ok(Bindings::parse(&bytes, &path.display().to_string())?)
}

/// The bindings in effect: `defaults` (else `config/bindings.ini`) with `user` (else
/// [`user_file`] when something is there: a FIFO or a directory there is refused, not
/// skipped) laid over them; the files used.
pub fn load(
    defaults: Option<&Path>,
    user: Option<&Path>,
) -> anyhow::Result<(Bindings, PathBuf, Option<PathBuf>)> {
    let base = plugins::locate_config(defaults, BINDINGS_FILE)?;
    let mut b = read(&base)?;
    let user = match user {
        Some(p) => Some(p.to_owned()),
        None => user_file().filter(|p| p.exists()),
    };
    if let Some(u) = &user {
        b.overlay(read(u)?)?;
    }
    Ok((b, base, user))
}

/// Prints the bindings in effect.
pub fn list(
    defaults: Option<&Path>,
    user: Option<&Path>,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let (b, base, user) = load(defaults, user)?;
    writeln!(out, "bindings={}", base.display())?;
    match &user {
        Some(u) => writeln!(out, "user={}", u.display())?,
        None => writeln!(
            out,
            "user=none ({})",
            user_file().map_or("no XDG_CONFIG_HOME or HOME".to_owned(), |p| format!(
                "{} absent",
                p.display()
            ))
        )?,
    }
    for a in bindings::ACTIONS {
        let modes = match a.modes {
            ALL => "all",
            BOTH => "both",
            OVERVIEW => "overview",
            MENU => "menus",
            _ => "possessed",
        };
        let (inputs, place) = match b.get(a.name) {
            Some(bd) => (
                bd.inputs
                    .iter()
                    .map(|(i, _)| i.to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
                format!("{}:{}", bd.place.origin, bd.place.line),
            ),
            None => (String::new(), "not in any file".to_owned()),
        };
        let inputs = if inputs.is_empty() {
            "-".to_owned()
        } else {
            inputs
        };
        writeln!(
            out,
            "{:<20} {:<6} {:<9} {:<40} {place}  ; {}",
            a.name,
            a.kind.name(),
            modes,
            inputs,
            a.doc
        )?;
    }
    for d in [
        Device::Key,
        Device::Mouse,
        Device::Pad,
        Device::PadAxis,
        Device::MouseAxis,
    ] {
        let kind = if d.kind() == ActionKind::Button {
            "buttons"
        } else {
            "axes"
        };
        writeln!(
            out,
            "inputs {}: ({kind}) {}",
            d.prefix(),
            d.names().join(" ")
        )?;
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn shipped() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../config/bindings.ini")
    }

    #[test]
    fn the_list_shows_every_action_with_where_it_was_bound() {
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().join("bindings.ini");
        std::fs::write(&user, "order.stop = Key:Z\n").unwrap();
        let mut out = Vec::new();
        list(Some(&shipped()), Some(&user), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text.lines()
                .filter(|l| l.starts_with("camera.")
                    || l.starts_with("unit.")
                    || l.starts_with("order.")
                    || l.starts_with("select")
                    || l.starts_with("game.")
                    || l.starts_with("menu."))
                .count(),
            bindings::ACTIONS.len()
        );
        let accept = text
            .lines()
            .find(|l| l.starts_with("menu.accept "))
            .unwrap();
        assert!(
            accept.contains("menus") && accept.contains("Pad:South"),
            "{accept}"
        );
        let stop = text.lines().find(|l| l.starts_with("order.stop ")).unwrap();
        assert!(
            stop.contains("Key:Z") && stop.contains(&format!("{}:1", user.display())),
            "{stop}"
        );
        assert!(
            text.lines()
                .any(|l| l.starts_with("unit.forward ") && l.contains("possessed"))
        );
        assert!(text.contains("inputs PadAxis: (axes) LeftStickX"));
        // A user file that takes an input another action keeps: the error names both.
        std::fs::write(&user, "order.stop = Key:P\n").unwrap();
        let e = list(Some(&shipped()), Some(&user), &mut Vec::new()).unwrap_err();
        let e = format!("{e:#}");
        assert!(
            e.contains(":1:14: Key:P is already bound to order.patrol"),
            "{e}"
        );
        // A missing file says which.
        let e = list(Some(&dir.path().join("nope.ini")), None, &mut Vec::new()).unwrap_err();
        assert!(format!("{e:#}").contains("nope.ini"), "{e:#}");
        // Neither file is read unless it is a regular file of bounded size.
        let e = list(Some(dir.path()), None, &mut Vec::new()).unwrap_err();
        assert!(
            format!("{e:#}").contains(&format!(
                "bindings file: {}: not a regular file (a directory)",
                dir.path().display()
            )),
            "{e:#}"
        );
        let zero = dir.path().join("zero.ini");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        let e = list(Some(&shipped()), Some(&zero), &mut Vec::new()).unwrap_err();
        assert!(
            format!("{e:#}").contains("zero.ini: not a regular file (a character device)"),
            "{e:#}"
        );
    }
}
