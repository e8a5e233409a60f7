//! The main menu's game-directory check: `iron3d corpus` (every reader on every file,
//! the missions' graphs) run on a worker thread, so the menu stays live and shows how
//! far it came. Dropping a [`DirCheck`] cancels it at the next file.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, TryRecvError, channel};

/// What a finished check found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirSummary {
    /// Files read.
    pub files: u64,
    /// Missions the directory offers (`MISSIONS/…/data.tma`,
    /// [`crate::missions_of`]).
    pub missions: usize,
    /// Every problem the readers found, in the report's order (empty: clean).
    pub problems: Vec<String>,
}

impl DirSummary {
    /// Whether the directory can be played: it has a mission. (A directory with
    /// problems plays what loads; the problems are shown.)
    pub fn playable(&self) -> bool {
        self.missions > 0
    }
}

/// Where a check stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CheckState {
    /// Reading: `done` of `total` files.
    Running {
        /// Files read.
        done: u64,
        /// Files in all (0 until they are listed).
        total: u64,
    },
    /// Finished (`Err`: the directory could not be checked, and why).
    Done(Result<DirSummary, String>),
}

enum Msg {
    Progress(u64, u64),
    Done(Result<DirSummary, String>),
}

/// A check running on its own thread.
pub struct DirCheck {
    dir: PathBuf,
    rx: Receiver<Msg>,
    cancel: Arc<AtomicBool>,
    state: CheckState,
}

impl DirCheck {
    /// Starts checking `dir`.
    pub fn start(dir: &Path) -> Self {
        let (tx, rx) = channel();
        let cancel = Arc::new(AtomicBool::new(false));
        let stop = cancel.clone();
        let path = dir.to_path_buf();
        let spawned = std::thread::Builder::new()
            .name("dir-check".into())
            .spawn(move || {
                let progress_tx = tx.clone();
                let report = iron3d_tools::corpus::report_with(&path, false, &mut |done, total| {
                    // A closed channel (the menu went) stops the check as well.
                    progress_tx.send(Msg::Progress(done, total)).is_ok()
                        && !stop.load(Ordering::Relaxed)
                });
                let result = report
                    .map(|v| DirSummary {
                        files: v["files"].as_u64().unwrap_or(0),
                        missions: crate::missions_of(&path).len(),
                        problems: iron3d_tools::corpus::problems(&v),
                    })
                    .map_err(|e| format!("{e:#}"));
                let _ = tx.send(Msg::Done(result));
            });
        let state = match spawned {
            Ok(_) => CheckState::Running { done: 0, total: 0 },
            Err(e) => CheckState::Done(Err(format!("the check could not start: {e}"))),
        };
        Self {
            dir: dir.to_path_buf(),
            rx,
            cancel,
            state,
        }
    }

    /// The directory checked.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the check stands now.
    pub fn state(&self) -> &CheckState {
        &self.state
    }

    /// Takes what the worker said since the last call; `true` when the state changed.
    pub fn poll(&mut self) -> bool {
        let before = self.state.clone();
        loop {
            match self.rx.try_recv() {
                Ok(Msg::Progress(done, total)) => {
                    if matches!(self.state, CheckState::Running { .. }) {
                        self.state = CheckState::Running { done, total };
                    }
                }
                Ok(Msg::Done(r)) => self.state = CheckState::Done(r),
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    if matches!(self.state, CheckState::Running { .. }) {
                        self.state =
                            CheckState::Done(Err("the check stopped without a result".into()));
                    }
                    break;
                }
            }
        }
        self.state != before
    }

    /// Waits for the result (tests and tools; the menu polls).
    pub fn wait(mut self) -> Result<DirSummary, String> {
        loop {
            self.poll();
            if let CheckState::Done(r) = &self.state {
                return r.clone();
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }
}

impl Drop for DirCheck {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]
    use super::*;

    #[test]
    fn a_directory_with_a_mission_is_playable_and_its_problems_are_listed() {
        let d = tempfile::tempdir().unwrap();
        let m = d.path().join("MISSIONS/ONE");
        std::fs::create_dir_all(&m).unwrap();
        std::fs::write(m.join("data.tma"), b"not a mission").unwrap();
        let s = DirCheck::start(d.path()).wait().unwrap();
        assert_eq!((s.files, s.missions), (1, 1));
        assert!(s.playable());
        assert!(
            s.problems.iter().any(|p| p.contains("data.tma")),
            "{:?}",
            s.problems
        );
        let empty = tempfile::tempdir().unwrap();
        let s = DirCheck::start(empty.path()).wait().unwrap();
        assert!(!s.playable());
        assert!(s.problems.is_empty());
        let gone = DirCheck::start(&empty.path().join("nothing")).wait();
        assert!(gone.unwrap_err().contains("not a directory"));
    }
}
