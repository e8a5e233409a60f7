//! Small helpers shared by the modules: positions in text, hex, safe relative paths,
//! text made safe to print, and atomic writes.

use crate::ModError;
use std::borrow::Cow;
use std::fmt;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Longest name (in characters) echoed from an archive or a mod folder; longer ones are
/// cut and end with `…`.
pub const MAX_SHOWN_NAME: usize = 200;

/// Whether `c` is printed as `\u{…}` by [`escaped`]: control characters (C0, DEL, C1:
/// a terminal may act on them) and the bidirectional-text controls (they reorder what
/// is shown).
fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

/// `text` safe to print on a terminal: every control character (escape codes included)
/// and bidirectional-text control written as `\u{1b}` and the like; everything else,
/// backslashes included, as it is (so escaping twice changes nothing).
#[must_use]
pub fn escaped(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut s = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if needs_escape(c) {
            s.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            s.push(c);
        }
    }
    Cow::Owned(s)
}

/// A name from an archive or a mod folder as error messages echo it: [`escaped`] and cut
/// to [`MAX_SHOWN_NAME`] characters (then ending with `…`).
#[must_use]
pub fn shown_name(name: &str) -> String {
    let mut cut: String = name.chars().take(MAX_SHOWN_NAME).collect();
    if cut.len() < name.len() {
        cut.push('…');
    }
    escaped(&cut).into_owned()
}

/// A path as error messages show it: lossy UTF-8, [`escaped`].
pub(crate) struct Shown<'a>(pub(crate) &'a Path);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&escaped(&self.0.display().to_string()))
    }
}

/// 1-based line and column (in characters) of byte `offset` in `text`; an offset past
/// the end or inside a character is clamped to the nearest character boundary before it.
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while offset > 0 && !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

/// Lowercase hex of `bytes`.
pub(crate) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(char::from(DIGITS[usize::from(b >> 4)]));
        s.push(char::from(DIGITS[usize::from(b & 0xf)]));
    }
    s
}

/// Whether `s` is exactly 64 lowercase hex digits (a SHA-256 as written in manifests).
pub(crate) fn is_sha256_hex(s: &str) -> bool {
    s.len() == 64
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Checks a relative path written in a manifest or archive (`/`-separated): not empty,
/// not absolute, no `..`, `.` or empty components, no backslashes, drive letters or NULs.
/// Returns why it is refused (a verb phrase: "is absolute", "contains \"..\"", …).
pub(crate) fn check_relative(path: &str) -> Result<(), &'static str> {
    if path.is_empty() {
        return Err("is empty");
    }
    if path.starts_with('/') {
        return Err("is absolute");
    }
    if path.contains('\\') {
        return Err("contains a backslash");
    }
    if path.contains(':') {
        return Err("contains ':' (a drive letter or stream name)");
    }
    if path.contains('\0') {
        return Err("contains a NUL character");
    }
    if path.chars().any(needs_escape) {
        return Err("contains a control character");
    }
    for part in path.split('/') {
        match part {
            ".." => return Err("contains \"..\""),
            "." => return Err("contains a \".\" component"),
            "" => return Err("contains an empty component (\"//\" or a trailing /)"),
            _ => {}
        }
    }
    Ok(())
}

/// `root` joined with the `/`-separated relative `path` (already checked).
pub(crate) fn join_relative(root: &Path, path: &str) -> PathBuf {
    let mut p = root.to_path_buf();
    for part in path.split('/') {
        p.push(part);
    }
    p
}

/// A name for a temporary sibling of a file or folder that no other process of ours uses.
pub(crate) fn temp_name(prefix: &str) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    // Random per call (std's hash keys), so two processes racing get different names.
    let noise = {
        use std::hash::{BuildHasher, Hasher};
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(n);
        h.finish() & 0xffff_ffff
    };
    format!("{prefix}{:x}-{n:x}-{noise:08x}", std::process::id())
}

/// Writes `path` atomically: the bytes go to a temporary file in the same folder, which
/// is flushed to disk and renamed over `path`; on failure the temporary file is removed
/// and `path` is untouched. The parent folder is created if needed. `write` gets the
/// open temporary file and its path (for error messages).
pub(crate) fn write_atomic(
    path: &Path,
    write: impl FnOnce(&mut fs::File, &Path) -> Result<(), ModError>,
) -> Result<(), ModError> {
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&parent).map_err(|e| ModError::io(&parent, "create the folder", e))?;
    let name = path
        .file_name()
        .map_or_else(|| "file".into(), |n| n.to_string_lossy().into_owned());
    let tmp = parent.join(temp_name(&format!(".{name}.tmp-")));
    let result = (|| {
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(|e| ModError::io(&tmp, "create", e))?;
        write(&mut file, &tmp)?;
        file.flush()
            .and_then(|()| file.sync_all())
            .map_err(|e| ModError::io(&tmp, "write", e))?;
        drop(file);
        fs::rename(&tmp, path).map_err(|e| ModError::io(path, "replace", e))
    })();
    if result.is_err() {
        // Best effort: the temporary file is ours and useless now.
        let _ = fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "tests")]
mod tests {
    use super::*;
    use std::io;

    #[test]
    fn line_column_counts_characters_from_one() {
        let t = "ab\ncdé\nf";
        assert_eq!(line_column(t, 0), (1, 1));
        assert_eq!(line_column(t, 3), (2, 1));
        assert_eq!(line_column(t, 5), (2, 3));
        // 'é' is two bytes; offset 7 is after it.
        assert_eq!(line_column(t, 7), (2, 4));
        // Inside the character: clamped back.
        assert_eq!(line_column(t, 6), (2, 3));
        assert_eq!(line_column(t, 1000), (3, 2));
    }

    #[test]
    fn hex_and_sha_shape() {
        assert_eq!(hex(&[0x00, 0xab, 0xff]), "00abff");
        assert!(is_sha256_hex(&"a".repeat(64)));
        assert!(!is_sha256_hex(&"A".repeat(64)));
        assert!(!is_sha256_hex(&"a".repeat(63)));
        assert!(!is_sha256_hex(&"g".repeat(64)));
    }

    #[test]
    fn escaping_for_terminals() {
        assert_eq!(escaped("plain/path ü"), "plain/path ü");
        assert_eq!(
            escaped("a\u{1b}[31mb\u{7}\n\u{9b}"),
            "a\\u{1b}[31mb\\u{7}\\u{a}\\u{9b}"
        );
        assert_eq!(escaped("x\u{202e}y"), "x\\u{202e}y");
        // Idempotent: backslashes stay.
        let once = escaped("\u{1b}").into_owned();
        assert_eq!(escaped(&once), once);
        let long = "é".repeat(300);
        let shown = shown_name(&long);
        assert_eq!(shown.chars().count(), MAX_SHOWN_NAME + 1);
        assert!(shown.ends_with('…'));
        assert_eq!(shown_name("short"), "short");
    }

    #[test]
    fn relative_paths() {
        assert!(check_relative("lib/libx.so").is_ok());
        assert!(check_relative("data").is_ok());
        for bad in [
            "", "/abs", "a/../b", "..", "./a", "a//b", "a/", "a\\b", "c:/x", "a\0", "a\u{1b}b",
        ] {
            assert!(check_relative(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sub/f.txt");
        let put = |bytes: &'static [u8]| {
            move |f: &mut fs::File, tmp: &Path| {
                f.write_all(bytes)
                    .map_err(|e| ModError::io(tmp, "write", e))
            }
        };
        write_atomic(&p, put(b"one")).unwrap();
        write_atomic(&p, put(b"two")).unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"two");
        let failed = write_atomic(&p, |_, tmp| {
            Err(ModError::io(tmp, "write", io::Error::other("boom")))
        });
        assert!(failed.is_err());
        assert_eq!(fs::read(&p).unwrap(), b"two");
        let names: Vec<_> = fs::read_dir(dir.path().join("sub"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("f.txt")]);
    }
}
