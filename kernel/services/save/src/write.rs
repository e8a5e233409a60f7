//! Atomic writes with a backup (PD-SAVE-ATOMIC) and bounded reads.

use crate::container::SaveFile;
use crate::error::SaveError;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The largest save file [`read`] accepts (1 GiB: the 10,000-object stress mission
/// saves to a few megabytes).
pub const MAX_FILE_LEN: u64 = 1 << 30;

fn io<'p>(op: &'static str, path: &'p Path) -> impl FnOnce(std::io::Error) -> SaveError + 'p {
    move |source| SaveError::Io {
        op,
        path: path.to_path_buf(),
        source,
    }
}

/// Where [`write_atomic`] keeps the previous file: `<path>.bak`.
pub fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".bak");
    path.with_file_name(name)
}

fn folder(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// A save written and synced to a temporary file beside its target, not yet in place.
/// [`Staged::commit`] puts it there; dropping it instead removes the temporary file and
/// leaves the target as it was (what a process killed before the rename leaves, less
/// the stray temporary file).
pub struct Staged {
    temp: tempfile::NamedTempFile,
    target: PathBuf,
}

/// Stages `bytes` as `name` in the save folder `dir`, made when missing (the slot list
/// and the campaign progress live there).
pub(crate) fn stage_in_folder(dir: &Path, name: &str, bytes: &[u8]) -> Result<Staged, SaveError> {
    std::fs::create_dir_all(dir).map_err(io("create the save folder", dir))?;
    stage(&dir.join(name), bytes)
}

/// Writes `bytes` to a temporary file `.<name>.*.tmp` in `path`'s folder, flushed and
/// synced to disk, ready for [`Staged::commit`].
pub fn stage(path: &Path, bytes: &[u8]) -> Result<Staged, SaveError> {
    let dir = folder(path);
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let mut temp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".tmp")
        .tempfile_in(&dir)
        .map_err(io("create a temporary file in", &dir))?;
    temp.write_all(bytes).map_err(io("write", temp.path()))?;
    temp.as_file().sync_all().map_err(io("sync", temp.path()))?;
    Ok(Staged {
        temp,
        target: path.to_path_buf(),
    })
}

impl Staged {
    /// Keeps the target's previous file as its backup (a hard link, or a synced copy
    /// where links are not supported), renames the temporary file over the target and
    /// syncs the folder.
    pub fn commit(self) -> Result<(), SaveError> {
        self.commit_with(true)
    }

    /// Renames the temporary file over the target and syncs the folder, keeping no
    /// backup (for small files a backup would not help, such as the slot list).
    pub fn commit_without_backup(self) -> Result<(), SaveError> {
        self.commit_with(false)
    }

    fn commit_with(self, backup: bool) -> Result<(), SaveError> {
        let target = self.target;
        if backup && target.exists() {
            let backup = backup_path(&target);
            if backup.exists() {
                std::fs::remove_file(&backup).map_err(io("remove the old backup", &backup))?;
            }
            if std::fs::hard_link(&target, &backup).is_err() {
                std::fs::copy(&target, &backup).map_err(io("back up", &target))?;
                std::fs::File::open(&backup)
                    .and_then(|f| f.sync_all())
                    .map_err(io("sync", &backup))?;
            }
        }
        self.temp.persist(&target).map_err(|e| SaveError::Io {
            op: "rename the temporary file over",
            path: target.clone(),
            source: e.error,
        })?;
        let dir = folder(&target);
        // A folder cannot be opened for syncing on every platform; where it can, the
        // rename is made durable.
        if let Ok(d) = std::fs::File::open(&dir) {
            d.sync_all().map_err(io("sync the folder", &dir))?;
        }
        Ok(())
    }
}

/// Writes `save` to `path` atomically, keeping the previous file as [`backup_path`]
/// (PD-SAVE-ATOMIC).
pub fn write_atomic(path: &Path, save: &SaveFile) -> Result<(), SaveError> {
    let bytes = save.to_bytes()?;
    stage(path, &bytes)?.commit()
}

/// Reads and checks the save at `path` (at most [`MAX_FILE_LEN`] bytes).
pub fn read(path: &Path) -> Result<SaveFile, SaveError> {
    let len = std::fs::metadata(path).map_err(io("read", path))?.len();
    if len > MAX_FILE_LEN {
        return Err(SaveError::TooLarge {
            path: path.to_path_buf(),
            len,
            max: MAX_FILE_LEN,
        });
    }
    let data = std::fs::read(path).map_err(io("read", path))?;
    SaveFile::parse(&data)
}
