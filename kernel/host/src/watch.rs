//! Debounced watching of plugin library files with notify.
//!
//! The watch is on each library's directory (a watch on the file itself dies when cargo
//! replaces it); events for other files are ignored. A path is reported once no event
//! arrived for it during the debounce interval.

use crate::error::HostError;
use crossbeam_channel::Receiver;
use notify::{EventKind, RecursiveMode, Watcher};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Watches library files and reports settled changes.
pub struct LibraryWatcher {
    watcher: notify::RecommendedWatcher,
    rx: Receiver<notify::Result<notify::Event>>,
    files: BTreeSet<PathBuf>,
    dirs: BTreeSet<PathBuf>,
    pending: BTreeMap<PathBuf, (Instant, Instant)>,
    debounce: Duration,
}

impl LibraryWatcher {
    /// A watcher that reports a path `debounce` after its last event.
    pub fn new(debounce: Duration) -> Result<Self, HostError> {
        let (tx, rx) = crossbeam_channel::unbounded();
        let watcher = notify::recommended_watcher(move |ev| {
            let _ = tx.send(ev);
        })
        .map_err(|e| HostError::Watch(e.to_string()))?;
        Ok(Self {
            watcher,
            rx,
            files: BTreeSet::new(),
            dirs: BTreeSet::new(),
            pending: BTreeMap::new(),
            debounce,
        })
    }

    /// Adds `file` (its directory is watched).
    pub fn watch_file(&mut self, file: &Path) -> Result<(), HostError> {
        let file = file.canonicalize().map_err(|e| HostError::Io {
            path: file.to_owned(),
            source: e,
        })?;
        let dir = file
            .parent()
            .map(Path::to_path_buf)
            .ok_or_else(|| HostError::Watch(format!("{} has no directory", file.display())))?;
        if self.dirs.insert(dir.clone()) {
            self.watcher
                .watch(&dir, RecursiveMode::NonRecursive)
                .map_err(|e| HostError::Watch(format!("{}: {e}", dir.display())))?;
        }
        self.files.insert(file);
        Ok(())
    }

    /// Paths whose last event is at least the debounce interval before `now`, each with
    /// the time of its first event (the start of the swap latency).
    pub fn settled(&mut self, now: Instant) -> Vec<(PathBuf, Instant)> {
        while let Ok(ev) = self.rx.try_recv() {
            let Ok(ev) = ev else { continue };
            if !matches!(ev.kind, EventKind::Create(_) | EventKind::Modify(_)) {
                continue;
            }
            for p in ev.paths {
                let p = p.canonicalize().unwrap_or(p);
                if self.files.contains(&p) {
                    let entry = self.pending.entry(p).or_insert((now, now));
                    entry.1 = now;
                }
            }
        }
        let ready: Vec<PathBuf> = self
            .pending
            .iter()
            .filter(|(_, (_, last))| now.duration_since(*last) >= self.debounce)
            .map(|(p, _)| p.clone())
            .collect();
        ready
            .into_iter()
            .filter_map(|p| self.pending.remove(&p).map(|(first, _)| (p, first)))
            .collect()
    }
}
