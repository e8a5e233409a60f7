//! Resolution: which of the enabled mods load, in which order, and why the others don't.
//!
//! [`resolve`] never fails as a whole. Each mod that cannot load becomes a [`Refusal`]
//! with a sentence saying what to do; every mod that requires a refused mod is refused
//! too (naming the one it needed); the rest loads. Checks, in this order:
//!
//! 1. every enabled id is installed ([`RefusalReason::NotFound`]);
//! 2. each enabled mod on its own: the engine version is in its `engine` requirement
//!    (pre-release/build tags of the engine version are ignored for this),
//!    its plugins are built for this plugin-interface major (only mods with plugins),
//!    each plugin has a library for this platform, and every required dependency is
//!    installed in an accepted version *and enabled* — an installed dependency the user
//!    did not enable is never switched on behind their back;
//! 3. conflicts between enabled mods: the later one in the user's order is refused,
//!    naming the mod that declared the conflict;
//! 4. dependency cycles: every member is refused, the cycle shown from its smallest id.
//!
//! Refusals are listed in the order they are found, so a "was refused (see above)" always
//! follows the refusal it points to.
//!
//! **Load order** (first = lowest priority, last wins) is a topological order of the
//! loaded mods: required and enabled optional dependencies load before the mods that use
//! them; `load_after`/`load_before` hints are honoured unless they contradict the
//! dependencies or an earlier hint (then they are dropped with a warning); every remaining
//! choice follows the user's order (Kahn's algorithm always taking the ready mod that
//! comes first in the mod list). The result depends only on the inputs.

use crate::discover::ModDir;
use crate::refusal::{Refusal, RefusalReason};
use semver::{BuildMetadata, Prerelease, Version};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// What the mods are resolved against: this engine and this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Environment {
    /// The engine version (`engine` requirements are checked against it).
    pub engine: Version,
    /// The plugin-interface major of this engine (mods with plugins must match it).
    pub interface_major: u32,
    /// The plugin-interface minor of this engine (shown in messages).
    pub interface_minor: u32,
    /// This platform's key, `<os>-<arch>` (see [`current_platform`]).
    pub platform: String,
}

/// This machine's platform key: `std::env::consts::OS` `-` `std::env::consts::ARCH`
/// (`linux-x86_64`, `windows-x86_64`, `macos-aarch64`, …).
#[must_use]
pub fn current_platform() -> String {
    format!("{}-{}", std::env::consts::OS, std::env::consts::ARCH)
}

impl Environment {
    /// The environment of this build on this machine for the given engine version and
    /// plugin-interface version.
    #[must_use]
    pub fn current(engine: Version, interface_major: u32, interface_minor: u32) -> Environment {
        Environment {
            engine,
            interface_major,
            interface_minor,
            platform: current_platform(),
        }
    }
}

/// The outcome of [`resolve`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resolution {
    /// Indices into `available` of the mods that load, in load order: first = lowest
    /// priority, last wins. Every dependency of a mod comes before it.
    pub order: Vec<usize>,
    /// Mods that do not load, in the order the reasons were found.
    pub refused: Vec<Refusal>,
    /// Things the user may want to know that did not refuse anything (ignored hints,
    /// duplicate list entries, optional dependencies in an unexpected version).
    pub warnings: Vec<String>,
}

impl Resolution {
    /// The loaded mods, in load order.
    pub fn loaded<'a>(&'a self, available: &'a [ModDir]) -> impl Iterator<Item = &'a ModDir> + 'a {
        self.order.iter().filter_map(|&i| available.get(i))
    }

    /// The ids of the loaded mods, in load order.
    #[must_use]
    pub fn ids<'a>(&self, available: &'a [ModDir]) -> Vec<&'a str> {
        self.order
            .iter()
            .filter_map(|&i| available.get(i).map(|m| m.manifest.id.as_str()))
            .collect()
    }
}

/// The working state of one resolution.
struct Resolver<'a> {
    available: &'a [ModDir],
    /// id → index into `available` (the first mod with that id).
    by_id: BTreeMap<&'a str, usize>,
    /// Enabled and installed mods (indices into `available`), in the user's order.
    enabled: Vec<usize>,
    /// Index into `available` → position in `enabled`.
    position: BTreeMap<usize, usize>,
    /// Indexed like `available`: enabled and not (yet) refused.
    alive: Vec<bool>,
    refused: Vec<Refusal>,
    warnings: Vec<String>,
}

impl<'a> Resolver<'a> {
    fn id(&self, i: usize) -> &'a str {
        self.available.get(i).map_or("", |m| m.manifest.id.as_str())
    }

    fn refuse(&mut self, i: usize, reason: RefusalReason) {
        if let Some(a) = self.alive.get_mut(i) {
            *a = false;
        }
        self.refused.push(Refusal::new(self.id(i), reason));
    }

    /// The enabled mod with id `id`, if any.
    fn enabled_index(&self, id: &str) -> Option<usize> {
        self.by_id
            .get(id)
            .copied()
            .filter(|i| self.position.contains_key(i))
    }

    fn is_alive(&self, i: usize) -> bool {
        self.alive.get(i).copied().unwrap_or(false)
    }

    /// Required dependencies of `i` that are enabled, as indices (sorted by id).
    fn required(&self, i: usize) -> Vec<usize> {
        self.available[i]
            .manifest
            .dependencies
            .keys()
            .filter_map(|d| self.enabled_index(d))
            .collect()
    }

    /// Step 2: each mod on its own. Every problem of a mod is reported.
    fn check_each(&mut self, env: &Environment) {
        let engine = Version {
            pre: Prerelease::EMPTY,
            build: BuildMetadata::EMPTY,
            ..env.engine.clone()
        };
        for k in 0..self.enabled.len() {
            let i = self.enabled[k];
            let m = &self.available[i].manifest;
            let mut reasons = Vec::new();
            if !m.engine.matches(&engine) {
                reasons.push(RefusalReason::EngineVersion {
                    required: m.engine.clone(),
                    engine: env.engine.clone(),
                });
            }
            if m.has_plugins() {
                if let Some(built_for) = m.interface.filter(|&v| v != env.interface_major) {
                    reasons.push(RefusalReason::InterfaceMajor {
                        built_for,
                        major: env.interface_major,
                        minor: env.interface_minor,
                    });
                }
                if let Some(p) = m.plugins.iter().find(|p| !p.serves(&env.platform)) {
                    reasons.push(RefusalReason::NoLibrary {
                        platform: env.platform.clone(),
                        provided: p.libraries.keys().cloned().collect(),
                    });
                }
            }
            for (dep, req) in &m.dependencies {
                let reason = match self.by_id.get(dep.as_str()) {
                    None => Some(RefusalReason::MissingDependency {
                        dependency: dep.clone(),
                        req: req.clone(),
                        installed: None,
                    }),
                    Some(&j) => {
                        let found = &self.available[j].manifest.version;
                        if !req.matches(found) {
                            Some(RefusalReason::DependencyVersion {
                                dependency: dep.clone(),
                                req: req.clone(),
                                found: found.clone(),
                            })
                        } else if !self.position.contains_key(&j) {
                            Some(RefusalReason::MissingDependency {
                                dependency: dep.clone(),
                                req: req.clone(),
                                installed: Some(found.clone()),
                            })
                        } else {
                            None
                        }
                    }
                };
                reasons.extend(reason);
            }
            for reason in reasons {
                self.refuse(i, reason);
            }
        }
    }

    /// Refuses, until nothing changes, every live mod that requires a refused one.
    fn propagate(&mut self) {
        loop {
            let mut changed = false;
            for k in 0..self.enabled.len() {
                let i = self.enabled[k];
                if !self.is_alive(i) {
                    continue;
                }
                let dead = self.available[i]
                    .manifest
                    .dependencies
                    .keys()
                    .find(|d| !self.enabled_index(d).is_some_and(|j| self.is_alive(j)));
                if let Some(dep) = dead {
                    let dependency = dep.clone();
                    self.refuse(i, RefusalReason::DependencyRefused { dependency });
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
    }

    /// Step 3: of two conflicting live mods, the later in the user's order is refused.
    fn check_conflicts(&mut self) {
        for a_k in 0..self.enabled.len() {
            let a = self.enabled[a_k];
            if !self.is_alive(a) {
                continue;
            }
            for b_k in a_k + 1..self.enabled.len() {
                let b = self.enabled[b_k];
                if !self.is_alive(b) {
                    continue;
                }
                let (ma, mb) = (&self.available[a].manifest, &self.available[b].manifest);
                let declared = ma
                    .conflicts
                    .get(&mb.id)
                    .filter(|c| c.versions.matches(&mb.version))
                    .map(|c| (&ma.id, &c.reason))
                    .or_else(|| {
                        mb.conflicts
                            .get(&ma.id)
                            .filter(|c| c.versions.matches(&ma.version))
                            .map(|c| (&mb.id, &c.reason))
                    });
                if let Some((declared_by, reason)) = declared {
                    let reason = RefusalReason::Conflict {
                        other: ma.id.clone(),
                        declared_by: declared_by.clone(),
                        reason: reason.clone(),
                    };
                    self.refuse(b, reason);
                }
            }
        }
    }

    /// Live mods reachable from `from` over `edges` (including `from`).
    fn reachable(edges: &BTreeMap<usize, BTreeSet<usize>>, from: usize) -> BTreeSet<usize> {
        let mut seen = BTreeSet::from([from]);
        let mut stack = vec![from];
        while let Some(n) = stack.pop() {
            for &m in edges.get(&n).into_iter().flatten() {
                if seen.insert(m) {
                    stack.push(m);
                }
            }
        }
        seen
    }

    /// Step 4: every member of a cycle of required dependencies among live mods is
    /// refused.
    fn check_cycles(&mut self) {
        // mod → the live mods it requires.
        let live: Vec<usize> = self
            .enabled
            .iter()
            .copied()
            .filter(|&i| self.is_alive(i))
            .collect();
        let needs: BTreeMap<usize, BTreeSet<usize>> = live
            .iter()
            .map(|&i| {
                (
                    i,
                    self.required(i)
                        .into_iter()
                        .filter(|&j| self.is_alive(j))
                        .collect(),
                )
            })
            .collect();
        let reach: BTreeMap<usize, BTreeSet<usize>> = live
            .iter()
            .map(|&i| (i, Self::reachable(&needs, i)))
            .collect();
        let mut done = BTreeSet::new();
        for &i in &live {
            if done.contains(&i) {
                continue;
            }
            let mut members: Vec<usize> = live
                .iter()
                .copied()
                .filter(|&j| j != i && reach[&i].contains(&j) && reach[&j].contains(&i))
                .collect();
            if members.is_empty() {
                continue;
            }
            members.push(i);
            members.sort_by_key(|&j| self.id(j));
            done.extend(members.iter().copied());
            let path = self.cycle_path(&needs, &members);
            let names: Vec<String> = members.iter().map(|&j| self.id(j).to_owned()).collect();
            for &j in &members {
                let reason = RefusalReason::Cycle {
                    members: names.clone(),
                    path: path.clone(),
                };
                self.refuse(j, reason);
            }
        }
    }

    /// The shortest cycle from the smallest member back to it, following required
    /// dependencies inside `members` (sorted by id), preferring smaller ids.
    fn cycle_path(
        &self,
        needs: &BTreeMap<usize, BTreeSet<usize>>,
        members: &[usize],
    ) -> Vec<String> {
        let Some(&start) = members.first() else {
            return Vec::new();
        };
        let in_cycle: BTreeSet<usize> = members.iter().copied().collect();
        let sorted_needs = |n: usize| {
            let mut v: Vec<usize> = needs
                .get(&n)
                .into_iter()
                .flatten()
                .copied()
                .filter(|m| in_cycle.contains(m))
                .collect();
            v.sort_by_key(|&m| self.id(m));
            v
        };
        let mut parent: BTreeMap<usize, usize> = BTreeMap::new();
        let mut queue = VecDeque::from([start]);
        let mut last = None;
        'bfs: while let Some(n) = queue.pop_front() {
            for m in sorted_needs(n) {
                if m == start {
                    last = Some(n);
                    break 'bfs;
                }
                if let std::collections::btree_map::Entry::Vacant(e) = parent.entry(m) {
                    e.insert(n);
                    queue.push_back(m);
                }
            }
        }
        let mut path = vec![self.id(start).to_owned()];
        let mut n = last;
        while let Some(cur) = n.filter(|&c| c != start) {
            path.push(self.id(cur).to_owned());
            n = parent.get(&cur).copied();
        }
        path.push(self.id(start).to_owned());
        // Built backwards from the end: start, x_k, …, x_1, start → reverse the middle.
        let len = path.len();
        if len > 2 {
            path[1..len - 1].reverse();
        }
        path
    }

    /// The load order of the live mods.
    fn order(&mut self) -> Vec<usize> {
        let live: Vec<usize> = self
            .enabled
            .iter()
            .copied()
            .filter(|&i| self.is_alive(i))
            .collect();
        // before → after.
        let mut edges: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
        for &i in &live {
            for j in self.required(i) {
                edges.entry(j).or_default().insert(i);
            }
        }
        let live_id = |s: &Self, id: &str| s.enabled_index(id).filter(|&j| s.is_alive(j));
        for &i in &live {
            let m = &self.available[i].manifest;
            let id = m.id.as_str();
            for (x, req) in &m.optional {
                let Some(j) = live_id(self, x) else { continue };
                let found = &self.available[j].manifest.version;
                if !req.matches(found) {
                    self.warnings.push(format!(
                        "mod \"{id}\" optionally uses \"{x}\" {req} but {found} is enabled; they may not work together"
                    ));
                }
                if !self.add_soft_edge(&mut edges, j, i) {
                    self.warnings.push(format!(
                        "mod \"{id}\" wants to load after its optional dependency \"{x}\", but \"{x}\" has to load after \"{id}\"; that preference is ignored"
                    ));
                }
            }
            for x in &m.load_after {
                let Some(j) = live_id(self, x) else { continue };
                if !self.add_soft_edge(&mut edges, j, i) {
                    self.warnings.push(format!(
                        "mod \"{id}\" asks to load after \"{x}\", but \"{x}\" has to load after \"{id}\" (a dependency or an earlier hint says so); the hint is ignored"
                    ));
                }
            }
            for y in &m.load_before {
                let Some(j) = live_id(self, y) else { continue };
                if !self.add_soft_edge(&mut edges, i, j) {
                    self.warnings.push(format!(
                        "mod \"{id}\" asks to load before \"{y}\", but \"{y}\" has to load before \"{id}\" (a dependency or an earlier hint says so); the hint is ignored"
                    ));
                }
            }
        }
        // Kahn's algorithm, the ready mod earliest in the user's order first.
        let mut indegree: BTreeMap<usize, usize> = live.iter().map(|&i| (i, 0)).collect();
        for after in edges.values().flatten() {
            if let Some(d) = indegree.get_mut(after) {
                *d += 1;
            }
        }
        let pos = |i: usize| self.position.get(&i).copied().unwrap_or(usize::MAX);
        let mut ready: BTreeSet<(usize, usize)> = indegree
            .iter()
            .filter(|&(_, &d)| d == 0)
            .map(|(&i, _)| (pos(i), i))
            .collect();
        let mut order = Vec::with_capacity(live.len());
        while let Some((_, i)) = ready.pop_first() {
            order.push(i);
            for &after in edges.get(&i).into_iter().flatten() {
                if let Some(d) = indegree.get_mut(&after) {
                    *d -= 1;
                    if *d == 0 {
                        ready.insert((pos(after), after));
                    }
                }
            }
        }
        if order.len() != live.len() {
            // Unreachable: cycles were refused and soft edges never close one. Still, never
            // lose a mod: append the rest in the user's order.
            self.warnings.push(
                "internal: the load order could not be completed; the rest follows the mod list"
                    .to_owned(),
            );
            for &i in &live {
                if !order.contains(&i) {
                    order.push(i);
                }
            }
        }
        order
    }

    /// Adds `before → after` unless it would close a cycle; returns whether the order
    /// now satisfies it.
    fn add_soft_edge(
        &self,
        edges: &mut BTreeMap<usize, BTreeSet<usize>>,
        before: usize,
        after: usize,
    ) -> bool {
        if edges.get(&before).is_some_and(|s| s.contains(&after)) {
            return true;
        }
        if Self::reachable(edges, after).contains(&before) {
            return false;
        }
        edges.entry(before).or_default().insert(after);
        true
    }
}

/// Resolves the user's enabled mods (`requested`, in the user's order) against the
/// installed ones (`available`, e.g. [`crate::Discovery::mods`]) for `env`.
///
/// Never fails and never panics: every problem becomes a [`Refusal`] of the mods it
/// concerns (see the [module documentation](self) for the checks and the order). The
/// same inputs always give the same result.
#[must_use]
pub fn resolve(available: &[ModDir], requested: &[String], env: &Environment) -> Resolution {
    let mut r = Resolver {
        available,
        by_id: BTreeMap::new(),
        enabled: Vec::new(),
        position: BTreeMap::new(),
        alive: vec![false; available.len()],
        refused: Vec::new(),
        warnings: Vec::new(),
    };
    for (i, m) in available.iter().enumerate() {
        let id = m.manifest.id.as_str();
        if r.by_id.contains_key(id) {
            r.warnings.push(format!(
                "mod \"{id}\" is installed twice ({} and {}); using the first",
                available[r.by_id[id]].root.display(),
                m.root.display()
            ));
        } else {
            r.by_id.insert(id, i);
        }
    }
    let mut seen = BTreeSet::new();
    for id in requested {
        if !seen.insert(id.as_str()) {
            r.warnings.push(format!(
                "mod \"{id}\" is listed twice in the mod list; the first entry counts"
            ));
            continue;
        }
        match r.by_id.get(id.as_str()) {
            None => r
                .refused
                .push(Refusal::new(id.clone(), RefusalReason::NotFound)),
            Some(&i) => {
                r.position.insert(i, r.enabled.len());
                r.enabled.push(i);
                r.alive[i] = true;
            }
        }
    }
    r.check_each(env);
    r.propagate();
    r.check_conflicts();
    r.propagate();
    r.check_cycles();
    r.propagate();
    let order = r.order();
    Resolution {
        order,
        refused: r.refused,
        warnings: r.warnings,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "tests")]
mod tests {
    use super::*;
    use crate::manifest::Manifest;
    use std::path::{Path, PathBuf};

    const SHA: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    fn env() -> Environment {
        Environment {
            engine: Version::new(0, 1, 0),
            interface_major: 2,
            interface_minor: 4,
            platform: "linux-x86_64".to_owned(),
        }
    }

    /// A mod `id` at `version`; `extra` is appended to a minimal manifest.
    fn m(id: &str, version: &str, extra: &str) -> ModDir {
        let text = format!(
            "id = \"{id}\"\nversion = \"{version}\"\nname = \"{id}\"\nengine = \"*\"\n{extra}"
        );
        ModDir {
            root: PathBuf::from(format!("/game/mods/{id}")),
            manifest: Manifest::parse(&text, Path::new("mod.toml")).unwrap(),
        }
    }

    fn deps(list: &[(&str, &str)]) -> String {
        let mut s = String::from("[dependencies]\n");
        for (d, r) in list {
            s.push_str(&format!("{d} = \"{r}\"\n"));
        }
        s
    }

    fn req(ids: &[&str]) -> Vec<String> {
        ids.iter().map(|s| (*s).to_owned()).collect()
    }

    fn run(available: &[ModDir], requested: &[&str]) -> (Vec<String>, Vec<String>, Vec<String>) {
        let r = resolve(available, &req(requested), &env());
        (
            r.ids(available).into_iter().map(str::to_owned).collect(),
            r.refused.iter().map(ToString::to_string).collect(),
            r.warnings,
        )
    }

    #[test]
    fn user_order_is_kept_without_constraints() {
        let mods = [
            m("a", "1.0.0", ""),
            m("b", "1.0.0", ""),
            m("c", "1.0.0", ""),
        ];
        let (order, refused, warnings) = run(&mods, &["c", "a", "b"]);
        assert_eq!(order, ["c", "a", "b"]);
        assert!(refused.is_empty() && warnings.is_empty());
    }

    #[test]
    fn dependency_chain_loads_dependencies_first() {
        let mods = [
            m("a", "1.0.0", ""),
            m("b", "1.5.0", &deps(&[("a", "^1.0")])),
            m("c", "1.0.0", &deps(&[("b", ">=1.2, <2")])),
            m("z", "1.0.0", ""),
        ];
        let (order, refused, _) = run(&mods, &["c", "z", "b", "a"]);
        assert!(refused.is_empty(), "{refused:?}");
        // z is ready from the start, before c in the user's order it isn't, but c waits.
        assert_eq!(order, ["z", "a", "b", "c"]);
        let (order, _, _) = run(&mods, &["a", "b", "c", "z"]);
        assert_eq!(order, ["a", "b", "c", "z"]);
    }

    #[test]
    fn order_is_independent_of_the_available_order() {
        let mut mods = vec![
            m("a", "1.0.0", ""),
            m("b", "1.0.0", &deps(&[("a", "*")])),
            m("c", "1.0.0", "load_before = [\"a\"]\n"),
            m("d", "1.0.0", ""),
        ];
        let (first, _, _) = run(&mods, &["d", "b", "a", "c"]);
        mods.reverse();
        let (second, _, _) = run(&mods, &["d", "b", "a", "c"]);
        assert_eq!(first, second);
        assert_eq!(first, ["d", "c", "a", "b"]);
    }

    #[test]
    fn not_found_message() {
        let (order, refused, _) = run(&[m("a", "1.0.0", "")], &["x", "a"]);
        assert_eq!(order, ["a"]);
        assert_eq!(
            refused,
            [
                "mod \"x\" is enabled but not installed: no mods/x/mod.toml; install it or run `iron3d mods disable x`"
            ]
        );
    }

    #[test]
    fn missing_dependency_messages() {
        let mods = [
            m("a", "1.0.0", &deps(&[("b", "^1.0")])),
            m("c", "1.0.0", ""),
        ];
        let (order, refused, _) = run(&mods, &["a", "c"]);
        assert_eq!(order, ["c"]);
        assert_eq!(
            refused,
            [
                "mod \"a\" needs \"b\" (^1.0), which is not installed; install a version of \"b\" matching ^1.0"
            ]
        );

        let mods = [
            m("a", "1.0.0", &deps(&[("b", "^1.0")])),
            m("b", "1.2.0", ""),
        ];
        let (order, refused, _) = run(&mods, &["a"]);
        assert!(order.is_empty());
        assert_eq!(
            refused,
            [
                "mod \"a\" needs \"b\" (^1.0), which is installed (1.2.0) but not enabled; run `iron3d mods enable b`"
            ]
        );
    }

    #[test]
    fn dependency_version_and_transitive_refusal() {
        let mods = [
            m("a", "1.0.0", &deps(&[("b", "^2.0")])),
            m("b", "1.2.0", ""),
            m("top", "1.0.0", &deps(&[("a", "*")])),
            m("topper", "1.0.0", &deps(&[("top", "*")])),
        ];
        let (order, refused, _) = run(&mods, &["topper", "top", "a", "b"]);
        assert_eq!(order, ["b"]);
        assert_eq!(
            refused,
            [
                "mod \"a\" needs \"b\" ^2.0 but 1.2.0 is installed; install a version of \"b\" matching ^2.0",
                "mod \"top\" needs \"a\", which was refused (see above)",
                "mod \"topper\" needs \"top\", which was refused (see above)",
            ]
        );
        let r = resolve(&mods, &req(&["topper", "top", "a", "b"]), &env());
        assert_eq!(
            r.refused[2].reason,
            RefusalReason::DependencyRefused {
                dependency: "top".into()
            }
        );
    }

    #[test]
    fn version_ranges() {
        let b = |v: &str| m("b", v, "");
        let a = |r: &str| m("a", "1.0.0", &deps(&[("b", r)]));
        for (have, want, ok) in [
            ("1.2.0", "^1.0", true),
            ("2.0.0", "^1.0", false),
            ("1.2.0", ">=1.0, <1.2", false),
            ("1.1.9", ">=1.0, <1.2", true),
            ("0.3.1", "~0.3", true),
            ("0.4.0", "^0.3", false),
            ("5.0.0", "*", true),
            ("1.0.0-beta", "^1.0", false),
        ] {
            let (order, refused, _) = run(&[a(want), b(have)], &["a", "b"]);
            assert_eq!(refused.is_empty(), ok, "{have} vs {want}: {refused:?}");
            assert_eq!(order.len(), if ok { 2 } else { 1 });
        }
    }

    #[test]
    fn optional_dependencies() {
        let opt = "[optional]\nx = \">=1\"\n";
        // Present: ordered before, even when later in the user's list.
        let mods = [m("a", "1.0.0", opt), m("x", "1.0.0", "")];
        let (order, refused, warnings) = run(&mods, &["a", "x"]);
        assert_eq!(order, ["x", "a"]);
        assert!(refused.is_empty() && warnings.is_empty());
        // Installed but not enabled: not required, not enabled.
        let (order, refused, _) = run(&mods, &["a"]);
        assert_eq!(order, ["a"]);
        assert!(refused.is_empty());
        // Not installed at all.
        let (order, refused, _) = run(&mods[..1], &["a"]);
        assert_eq!(order, ["a"]);
        assert!(refused.is_empty());
        // Present in a version outside the range: a warning, still ordered before.
        let mods = [m("a", "1.0.0", opt), m("x", "0.5.0", "")];
        let (order, refused, warnings) = run(&mods, &["a", "x"]);
        assert_eq!(order, ["x", "a"]);
        assert!(refused.is_empty());
        assert_eq!(
            warnings,
            [
                "mod \"a\" optionally uses \"x\" >=1 but 0.5.0 is enabled; they may not work together"
            ]
        );
        // Refused optional dependency: a still loads.
        let mods = [
            m("a", "1.0.0", opt),
            m("x", "1.0.0", &deps(&[("gone", "*")])),
        ];
        let (order, refused, _) = run(&mods, &["a", "x"]);
        assert_eq!(order, ["a"]);
        assert_eq!(refused.len(), 1);
    }

    #[test]
    fn optional_dependency_against_a_requirement_is_a_warning() {
        let mods = [
            m("a", "1.0.0", "[optional]\nb = \"*\"\n"),
            m("b", "1.0.0", &deps(&[("a", "*")])),
        ];
        let (order, refused, warnings) = run(&mods, &["a", "b"]);
        assert_eq!(order, ["a", "b"]);
        assert!(refused.is_empty());
        assert_eq!(
            warnings,
            [
                "mod \"a\" wants to load after its optional dependency \"b\", but \"b\" has to load after \"a\"; that preference is ignored"
            ]
        );
    }

    #[test]
    fn conflicts_refuse_the_later_mod() {
        let c = "[conflicts]\nb = { versions = \"<2\", reason = \"both replace the AI\" }\n";
        let mods = [m("a", "1.0.0", c), m("b", "1.0.0", ""), m("z", "1.0.0", "")];
        let (order, refused, _) = run(&mods, &["a", "b", "z"]);
        assert_eq!(order, ["a", "z"]);
        assert_eq!(
            refused,
            [
                "mod \"b\" conflicts with \"a\" (declared by \"a\": both replace the AI); disable one of them"
            ]
        );
        // The later one is refused whoever declared it.
        let (order, refused, _) = run(&mods, &["b", "a"]);
        assert_eq!(order, ["b"]);
        assert_eq!(
            refused,
            [
                "mod \"a\" conflicts with \"b\" (declared by \"a\": both replace the AI); disable one of them"
            ]
        );
        // Outside the declared versions: no conflict.
        let mods = [m("a", "1.0.0", c), m("b", "2.0.0", "")];
        let (order, refused, _) = run(&mods, &["a", "b"]);
        assert_eq!(order, ["a", "b"]);
        assert!(refused.is_empty());
        // Not enabled: no conflict.
        let (order, _, _) = run(&mods, &["a"]);
        assert_eq!(order, ["a"]);
    }

    #[test]
    fn conflict_refusal_propagates_and_refused_mods_do_not_conflict() {
        let c = "[conflicts]\nb = { reason = \"same files\" }\n";
        let mods = [
            m("a", "1.0.0", c),
            m("b", "1.0.0", ""),
            m("needs-b", "1.0.0", &deps(&[("b", "*")])),
            m(
                "gone",
                "1.0.0",
                &format!("{c}{}", deps(&[("missing", "*")])),
            ),
        ];
        let (order, refused, _) = run(&mods, &["gone", "a", "b", "needs-b"]);
        assert_eq!(order, ["a"]);
        assert_eq!(
            refused,
            [
                "mod \"gone\" needs \"missing\" (*), which is not installed; install a version of \"missing\" matching *",
                "mod \"b\" conflicts with \"a\" (declared by \"a\": same files); disable one of them",
                "mod \"needs-b\" needs \"b\", which was refused (see above)",
            ]
        );
    }

    #[test]
    fn cycles_are_refused_with_a_stable_description() {
        let mods = [
            m("c", "1.0.0", &deps(&[("a", "*")])),
            m("b", "1.0.0", &deps(&[("c", "*")])),
            m("a", "1.0.0", &deps(&[("b", "*")])),
            m("d", "1.0.0", &deps(&[("c", "*")])),
            m("e", "1.0.0", ""),
        ];
        let expected = "mods \"a\", \"b\", \"c\" depend on each other in a cycle (a -> b -> c -> a); remove one of these dependencies";
        for requested in [["e", "d", "c", "b", "a"], ["a", "b", "c", "d", "e"]] {
            let r = resolve(&mods, &req(&requested), &env());
            assert_eq!(r.ids(&mods), ["e"]);
            let ids: Vec<&str> = r.refused.iter().map(|f| f.id.as_str()).collect();
            assert_eq!(ids, ["a", "b", "c", "d"]);
            for f in &r.refused[..3] {
                assert_eq!(f.to_string(), expected);
            }
            assert_eq!(
                r.refused[3].to_string(),
                "mod \"d\" needs \"c\", which was refused (see above)"
            );
        }
    }

    #[test]
    fn cycle_path_is_the_shortest_from_the_smallest_id() {
        // a -> c -> a and a -> b -> c: one strongly connected component {a, b, c}.
        let mods = [
            m("a", "1.0.0", &deps(&[("b", "*"), ("c", "*")])),
            m("b", "1.0.0", &deps(&[("c", "*")])),
            m("c", "1.0.0", &deps(&[("a", "*")])),
        ];
        let (_, refused, _) = run(&mods, &["c", "b", "a"]);
        assert_eq!(refused.len(), 3);
        assert_eq!(
            refused[0],
            "mods \"a\", \"b\", \"c\" depend on each other in a cycle (a -> c -> a); remove one of these dependencies"
        );
        // A two-mod cycle.
        let mods = [
            m("x", "1.0.0", &deps(&[("y", "*")])),
            m("y", "1.0.0", &deps(&[("x", "*")])),
        ];
        let (_, refused, _) = run(&mods, &["y", "x"]);
        assert_eq!(
            refused,
            ["mods \"x\", \"y\" depend on each other in a cycle (x -> y -> x); remove one of these dependencies";
                2]
        );
    }

    #[test]
    fn a_500_mod_cycle_is_named_compactly() {
        let n = 500;
        let id = |i: usize| format!("m{i:03}");
        let mods: Vec<ModDir> = (0..n)
            .map(|i| m(&id(i), "1.0.0", &deps(&[(&id((i + 1) % n), "*")])))
            .collect();
        let requested: Vec<String> = (0..n).map(id).collect();
        let r = resolve(&mods, &requested, &env());
        assert!(r.order.is_empty());
        assert_eq!(r.refused.len(), n);
        let text = r.refused[0].to_string();
        assert_eq!(
            text,
            "mods \"m000\", \"m001\", \"m002\", \"m003\", \"m004\", … and 495 more depend on each other in a cycle (m000 -> m001 -> m002 -> m003 -> m004 -> … -> m000; 500 steps); remove one of these dependencies"
        );
        // Every member's refusal is the same bounded sentence.
        assert!(r.refused.iter().all(|f| f.to_string() == text));
    }

    #[test]
    fn hints_follow_dependencies_and_override_user_order() {
        let mods = [
            m("a", "1.0.0", "load_after = [\"b\"]\n"),
            m("b", "1.0.0", ""),
            m("c", "1.0.0", "load_before = [\"a\"]\n"),
            m("absent", "1.0.0", "load_after = [\"nobody\"]\n"),
        ];
        let (order, refused, warnings) = run(&mods, &["a", "b", "c", "absent"]);
        assert!(refused.is_empty() && warnings.is_empty());
        assert_eq!(order, ["b", "c", "a", "absent"]);
    }

    #[test]
    fn contradicting_hint_is_a_warning() {
        let mods = [
            m("a", "1.0.0", &deps(&[("b", "*")])),
            m("b", "1.0.0", "load_after = [\"a\"]\n"),
        ];
        let (order, refused, warnings) = run(&mods, &["a", "b"]);
        assert_eq!(order, ["b", "a"]);
        assert!(refused.is_empty());
        assert_eq!(
            warnings,
            [
                "mod \"b\" asks to load after \"a\", but \"a\" has to load after \"b\" (a dependency or an earlier hint says so); the hint is ignored"
            ]
        );
        let mods = [
            m("a", "1.0.0", &deps(&[("b", "*")])),
            m("b", "1.0.0", ""),
            m(
                "c",
                "1.0.0",
                "load_before = [\"b\"]\nload_after = [\"a\"]\n",
            ),
        ];
        let (order, _, warnings) = run(&mods, &["a", "b", "c"]);
        assert_eq!(order, ["b", "a", "c"]);
        assert_eq!(
            warnings,
            [
                "mod \"c\" asks to load before \"b\", but \"b\" has to load before \"c\" (a dependency or an earlier hint says so); the hint is ignored"
            ]
        );
    }

    fn plugin_mod(id: &str, interface: u32, platforms: &[&str]) -> ModDir {
        let mut s =
            format!("interface = {interface}\n[[plugin]]\nslot = \"ai\"\nfactory = \"ai\"\n");
        for p in platforms {
            s.push_str(&format!(
                "[plugin.library.{p}]\npath = \"lib/{p}.bin\"\nsha256 = \"{SHA}\"\n"
            ));
        }
        m(id, "1.0.0", &s)
    }

    #[test]
    fn interface_major_mismatch() {
        let mods = [
            plugin_mod("a", 1, &["linux-x86_64"]),
            plugin_mod("ok", 2, &["linux-x86_64"]),
            m("data-only", "1.0.0", "interface = 1\n"),
        ];
        let (order, refused, _) = run(&mods, &["a", "ok", "data-only"]);
        assert_eq!(order, ["ok", "data-only"]);
        assert_eq!(
            refused,
            [
                "mod \"a\" was built for plugin interface 1, this engine provides 2.4; rebuild it against iron3d-abi 2"
            ]
        );
    }

    #[test]
    fn no_library_for_this_platform() {
        let mods = [plugin_mod("a", 2, &["windows-x86_64"])];
        let (order, refused, _) = run(&mods, &["a"]);
        assert!(order.is_empty());
        assert_eq!(
            refused,
            [
                "mod \"a\" has no plugin library for linux-x86_64 (it provides: windows-x86_64); ask its author for a linux-x86_64 build"
            ]
        );
    }

    #[test]
    fn engine_version_and_several_problems_of_one_mod() {
        // The helper writes engine = "*"; build this one by hand.
        let text = "id = \"a\"\nversion = \"1.0.0\"\nname = \"a\"\nengine = \">=0.2\"\n[dependencies]\nb = \"*\"\n";
        let a = ModDir {
            root: PathBuf::from("/game/mods/a"),
            manifest: Manifest::parse(text, Path::new("mod.toml")).unwrap(),
        };
        let (order, refused, _) = run(&[a], &["a"]);
        assert!(order.is_empty());
        assert_eq!(
            refused,
            [
                "mod \"a\" needs engine >=0.2 but this is 0.1.0; update the engine or use a version of \"a\" made for 0.1.0",
                "mod \"a\" needs \"b\" (*), which is not installed; install a version of \"b\" matching *",
            ]
        );
    }

    #[test]
    fn engine_pre_release_is_matched_as_its_release() {
        let text = "id = \"a\"\nversion = \"1.0.0\"\nname = \"a\"\nengine = \">=0.2, <0.3\"\n";
        let a = ModDir {
            root: PathBuf::from("/game/mods/a"),
            manifest: Manifest::parse(text, Path::new("mod.toml")).unwrap(),
        };
        let mut e = env();
        e.engine = Version::parse("0.2.0-dev.3").unwrap();
        let r = resolve(std::slice::from_ref(&a), &req(&["a"]), &e);
        assert_eq!(r.order, [0]);
    }

    #[test]
    fn duplicates_warn() {
        let mods = [m("a", "1.0.0", ""), m("a", "2.0.0", "")];
        let r = resolve(&mods, &req(&["a", "a"]), &env());
        assert_eq!(r.order, [0]);
        assert_eq!(r.warnings.len(), 2, "{:?}", r.warnings);
        assert!(r.warnings[1].contains("listed twice"));
        assert_eq!(r.loaded(&mods).count(), 1);
    }

    #[test]
    fn every_refusal_sentence_word_for_word() {
        let cases = [
            (
                RefusalReason::HashMismatch {
                    library: "lib/libx.so".into(),
                    expected: "aa".into(),
                    found: "bb".into(),
                },
                "mod \"a\" plugin lib/libx.so has sha256 bb, its manifest says aa; reinstall the mod",
            ),
            (
                RefusalReason::BrokenManifest {
                    dir: "mods/x".into(),
                    error: "mods/x/mod.toml:1:1: bad".into(),
                },
                "mod in mods/x is broken: mods/x/mod.toml:1:1: bad",
            ),
            (
                RefusalReason::IdMismatch {
                    dir: "mods/x".into(),
                    declared: "y".into(),
                },
                "mod in mods/x declares id \"y\"; rename the folder to y",
            ),
            (
                RefusalReason::EngineVersion {
                    required: ">=0.2".parse().unwrap(),
                    engine: Version::new(0, 1, 0),
                },
                "mod \"a\" needs engine >=0.2 but this is 0.1.0; update the engine or use a version of \"a\" made for 0.1.0",
            ),
        ];
        for (reason, text) in cases {
            assert_eq!(Refusal::new("a", reason).to_string(), text);
        }
    }

    #[test]
    fn current_platform_looks_like_a_platform_key() {
        let p = current_platform();
        assert!(p.contains('-'), "{p}");
        assert_eq!(
            Environment::current(Version::new(0, 1, 0), 2, 0).platform,
            p
        );
    }
}
