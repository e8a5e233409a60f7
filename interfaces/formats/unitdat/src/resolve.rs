//! Prototype resolution (FORMATS §4.3, tome III "Разрешение прототипа") as a pure
//! algorithm over caller-supplied sources: recursive parents through `objects.rlb` with
//! cycle detection and limits, merged references with provenance, the model choice, and
//! the non-geometric / broken-reference distinction.
//!
//! ```text
//! resolve(key)
//!  expand(key)                       depth-first, parents inlined at their record
//!   payload(key)?  ── None ─────────> PrototypeMissing (broken reference)
//!   for record in payload:
//!     archive == objects.rlb  ─────> cycle? depth? then expand(resource)
//!     otherwise               ─────> effective ref (prototype, record)
//!  explicit .msh refs, in order:     first Present wins;
//!                                    some but none Present ──> ModelMissing (broken)
//!  else .bas refs, in order:         <stem>.msh in the same archive, first Present wins
//!  else                              NonGeometric (valid: sun, system objects)
//! ```

use crate::error::{KeyChain, Presence, SourceError, UnitDatError};
use crate::name::{ends_with_ignore_case, names_equal};
use crate::objref::{ObjectRef, iter_object_refs};
use std::borrow::Cow;

/// The most parent links one expansion may follow (the requested prototype is depth 0,
/// its parent depth 1, …; depth 33 is refused).
///
/// 32 is FParkan's limit (FORMATS §4.3, from fparkan source); the tome asks for *a* limit
/// without a value. The corpus needs 1 (fortification → parent), so 32 leaves ample room
/// while bounding recursion to 33 frames.
pub const MAX_PROTOTYPE_DEPTH: usize = 32;

/// The most `ObjectRef64` records one expansion may read, counting every visit of a
/// prototype reached twice through different parents (not a cycle). Bounds time and
/// memory against a registry whose diamonds multiply 2^32-fold within the depth limit.
/// Corpus prototypes hold a handful of records; our choice, not a format rule.
pub const MAX_EXPANDED_RECORDS: usize = 65_536;

/// Resource suffix of a model, compared ignoring ASCII case.
pub const MSH_SUFFIX: &[u8] = b".msh";
/// Resource suffix of a structure BASE payload, compared ignoring ASCII case.
pub const BAS_SUFFIX: &[u8] = b".bas";

/// The prototype registry (`objects.rlb`) as the algorithm sees it.
pub trait PrototypeSource {
    /// The payload (`ObjectRef64[]`, unchecked) of the entry named `key`, found ignoring
    /// ASCII case (FORMATS §1.5), or `None` when there is no such entry. `key` is passed
    /// as spelled (no trimming). Answers must depend only on the source's contents.
    fn payload(&self, key: &[u8]) -> Result<Option<Cow<'_, [u8]>>, SourceError>;
}

impl<T: PrototypeSource + ?Sized> PrototypeSource for &T {
    fn payload(&self, key: &[u8]) -> Result<Option<Cow<'_, [u8]>>, SourceError> {
        (**self).payload(key)
    }
}

/// Existence of resources in archives, checked independently (archive missing vs entry
/// missing). Any name variants (FParkan also tries the stem, or `name + .msh`) are the
/// implementation's choice; the algorithm asks for the exact value.
pub trait ResourceProbe {
    /// Whether `archive` exists and holds `resource` (both compared ignoring ASCII case).
    fn probe(&self, archive: &[u8], resource: &[u8]) -> Result<Presence, SourceError>;
}

impl<T: ResourceProbe + ?Sized> ResourceProbe for &T {
    fn probe(&self, archive: &[u8], resource: &[u8]) -> Result<Presence, SourceError> {
        (**self).probe(archive, resource)
    }
}

/// Where an effective reference (or a parent link) was stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RefOrigin {
    /// Index into [`Expansion::prototypes`].
    pub prototype: usize,
    /// Record index inside that prototype's payload.
    pub record: usize,
}

/// One visit of a prototype during an expansion.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PrototypeVisit {
    /// The key as spelled in the request or the parent reference.
    pub key: Vec<u8>,
    /// Parent links from the requested prototype (0 for it).
    pub depth: usize,
    /// The parent reference that led here (`None` for the requested prototype).
    pub via: Option<RefOrigin>,
    /// Number of records in its payload.
    pub record_count: usize,
}

/// A non-parent reference of the effective prototype with its provenance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EffectiveRef {
    /// The reference, tails included.
    pub object_ref: ObjectRef,
    /// Which prototype and record it came from.
    pub origin: RefOrigin,
}

/// The effective references of a prototype: parents' references inlined at the position
/// of their parent record, depth first, in stored order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Expansion {
    /// Every prototype visited, in visit order; index 0 is the requested one.
    pub prototypes: Vec<PrototypeVisit>,
    /// The merged non-parent references, in order.
    pub refs: Vec<EffectiveRef>,
}

impl Expansion {
    /// The requested key as given.
    pub fn key(&self) -> &[u8] {
        self.prototypes.first().map_or(&[], |p| p.key.as_slice())
    }

    /// The keys from the requested prototype to visit `prototype` (empty if out of range).
    pub fn chain(&self, prototype: usize) -> KeyChain {
        let mut keys = Vec::new();
        let mut at = Some(prototype);
        while let Some(i) = at {
            let Some(visit) = self.prototypes.get(i) else {
                break;
            };
            keys.push(visit.key.clone());
            // `via.prototype < i` always holds, so the walk ends.
            at = visit.via.map(|o| o.prototype).filter(|&p| p < i);
        }
        keys.reverse();
        KeyChain(keys)
    }

    /// Indices into [`Expansion::refs`] of the references whose resource ends in `suffix`
    /// (ASCII case ignored), in order.
    pub fn with_suffix<'a>(&'a self, suffix: &'a [u8]) -> impl Iterator<Item = usize> + 'a {
        self.refs
            .iter()
            .enumerate()
            .filter(move |(_, r)| ends_with_ignore_case(r.object_ref.resource(), suffix))
            .map(|(i, _)| i)
    }
}

/// How the model was chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ModelVia {
    /// The first present explicit `.msh` reference (index into [`Expansion::refs`]).
    Explicit {
        /// The reference.
        reference: usize,
    },
    /// No explicit `.msh`: `<stem>.msh` beside this `.bas` reference (project decision 4).
    BaseStem {
        /// The `.bas` reference.
        base: usize,
    },
}

/// The model a prototype resolved to.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ModelRef {
    /// Archive value.
    pub archive: Vec<u8>,
    /// Model name in that archive (the reference's value, or `<stem>.msh`).
    pub name: Vec<u8>,
    /// How it was chosen.
    pub via: ModelVia,
}

/// A candidate model that the probe did not find.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MissingRef {
    /// The reference it comes from (index into [`Expansion::refs`]).
    pub reference: usize,
    /// Archive probed.
    pub archive: Vec<u8>,
    /// Name probed.
    pub name: Vec<u8>,
    /// What the probe answered.
    pub presence: Presence,
}

/// The geometry outcome of a successful resolution.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Geometry {
    /// A model to load.
    Mesh(ModelRef),
    /// No `.msh` reference and no `.bas` whose `<stem>.msh` exists: valid for system and
    /// sun objects, and distinct from a broken reference (which is an error).
    NonGeometric {
        /// The `<stem>.msh` candidates tried for `.bas` references, none present.
        base_attempts: Vec<MissingRef>,
    },
}

/// A resolved prototype.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Resolution {
    /// Visits and merged references with provenance.
    pub expansion: Expansion,
    /// The model, or non-geometric.
    pub geometry: Geometry,
    /// The `.bas` references (indices into [`Expansion::refs`]): BASE payloads for the
    /// structure subsystem, never geometry.
    pub bases: Vec<usize>,
    /// Explicit `.msh` references before the chosen one that the probe did not find.
    pub skipped_models: Vec<MissingRef>,
}

impl Resolution {
    /// The model, if the prototype is geometric.
    pub fn model(&self) -> Option<&ModelRef> {
        match &self.geometry {
            Geometry::Mesh(m) => Some(m),
            Geometry::NonGeometric { .. } => None,
        }
    }

    /// Whether the prototype has a model.
    pub fn is_geometric(&self) -> bool {
        self.model().is_some()
    }
}

/// Expands `key` through `source` (steps 1–3 of FORMATS §4.3). A pure function of the
/// source's answers: the same source and key give the same result.
pub fn expand<S: PrototypeSource + ?Sized>(
    source: &S,
    key: &[u8],
) -> Result<Expansion, UnitDatError> {
    let mut expander = Expander {
        source: &|k: &[u8]| source.payload(k),
        out: Expansion {
            prototypes: Vec::new(),
            refs: Vec::new(),
        },
        stack: vec![key.to_vec()],
        records: 0,
    };
    expander.visit(None)?;
    Ok(expander.out)
}

/// Resolves `key`: [`expand`], then chooses the model through `probe` (steps 4–6 of
/// FORMATS §4.3 with project decision 4).
pub fn resolve<S, P>(source: &S, probe: &P, key: &[u8]) -> Result<Resolution, UnitDatError>
where
    S: PrototypeSource + ?Sized,
    P: ResourceProbe + ?Sized,
{
    let expansion = expand(source, key)?;
    choose_model(expansion, &|a: &[u8], r: &[u8]| probe.probe(a, r))
}

type PayloadFn<'s> = dyn Fn(&[u8]) -> Result<Option<Cow<'s, [u8]>>, SourceError> + 's;
type ProbeFn<'p> = dyn Fn(&[u8], &[u8]) -> Result<Presence, SourceError> + 'p;

/// Depth-first expansion state; `stack` holds the keys from the request to the current
/// prototype.
struct Expander<'s, 'f> {
    source: &'f PayloadFn<'s>,
    out: Expansion,
    stack: Vec<Vec<u8>>,
    records: usize,
}

impl Expander<'_, '_> {
    fn chain(&self) -> KeyChain {
        KeyChain(self.stack.clone())
    }

    /// Visits the prototype on top of `stack` (already checked for cycle and depth).
    fn visit(&mut self, via: Option<RefOrigin>) -> Result<(), UnitDatError> {
        let key = self.stack.last().cloned().unwrap_or_default();
        let payload = (self.source)(&key)
            .map_err(|source| UnitDatError::Source {
                chain: self.chain(),
                source,
            })?
            .ok_or_else(|| UnitDatError::PrototypeMissing {
                chain: self.chain(),
            })?;
        let refs = iter_object_refs(&payload).map_err(|e| UnitDatError::InPrototype {
            chain: self.chain(),
            source: Box::new(e),
        })?;
        self.records = self
            .records
            .checked_add(refs.len())
            .filter(|&n| n <= MAX_EXPANDED_RECORDS)
            .ok_or_else(|| UnitDatError::ExpansionTooLarge {
                chain: self.chain(),
                limit: MAX_EXPANDED_RECORDS,
            })?;
        let prototype = self.out.prototypes.len();
        self.out.prototypes.push(PrototypeVisit {
            key,
            depth: self.stack.len() - 1,
            via,
            record_count: refs.len(),
        });
        for (record, object_ref) in refs.enumerate() {
            let origin = RefOrigin { prototype, record };
            if !object_ref.is_parent() {
                self.out.refs.push(EffectiveRef { object_ref, origin });
                continue;
            }
            let parent = object_ref.resource();
            let repeats = self.stack.iter().any(|k| names_equal(k, parent));
            self.stack.push(parent.to_vec());
            if repeats {
                return Err(UnitDatError::Cycle {
                    chain: self.chain(),
                });
            }
            if self.stack.len() - 1 > MAX_PROTOTYPE_DEPTH {
                return Err(UnitDatError::DepthLimit {
                    chain: self.chain(),
                    limit: MAX_PROTOTYPE_DEPTH,
                });
            }
            self.visit(Some(origin))?;
            self.stack.pop();
        }
        Ok(())
    }
}

/// Steps 4–6: first present explicit `.msh`; failing that with explicit ones present, a
/// broken reference; with none, the `.bas` stems; else non-geometric.
fn choose_model(expansion: Expansion, probe: &ProbeFn<'_>) -> Result<Resolution, UnitDatError> {
    let explicit: Vec<usize> = expansion.with_suffix(MSH_SUFFIX).collect();
    let bases: Vec<usize> = expansion.with_suffix(BAS_SUFFIX).collect();
    let ask = |reference: usize, archive: &[u8], name: &[u8]| {
        let origin = expansion
            .refs
            .get(reference)
            .map_or(0, |r| r.origin.prototype);
        probe(archive, name).map_err(|source| UnitDatError::Source {
            chain: expansion.chain(origin),
            source,
        })
    };

    let mut skipped_models = Vec::new();
    let mut chosen = None;
    for &reference in &explicit {
        let Some(r) = expansion.refs.get(reference) else {
            continue;
        };
        let (archive, name) = (r.object_ref.archive(), r.object_ref.resource());
        match ask(reference, archive, name)? {
            Presence::Present => {
                chosen = Some(ModelRef {
                    archive: archive.to_vec(),
                    name: name.to_vec(),
                    via: ModelVia::Explicit { reference },
                });
                break;
            }
            presence => skipped_models.push(MissingRef {
                reference,
                archive: archive.to_vec(),
                name: name.to_vec(),
                presence,
            }),
        }
    }
    if chosen.is_none()
        && let Some(first) = skipped_models.first()
    {
        let origin = expansion
            .refs
            .get(first.reference)
            .map_or(0, |r| r.origin.prototype);
        return Err(UnitDatError::ModelMissing {
            chain: expansion.chain(origin),
            archive: first.archive.clone(),
            resource: first.name.clone(),
            presence: first.presence,
            explicit: explicit.len(),
        });
    }

    let mut base_attempts = Vec::new();
    if chosen.is_none() {
        for &base in &bases {
            let Some(r) = expansion.refs.get(base) else {
                continue;
            };
            let (archive, resource) = (r.object_ref.archive(), r.object_ref.resource());
            let stem = &resource[..resource.len().saturating_sub(BAS_SUFFIX.len())];
            let name = [stem, MSH_SUFFIX].concat();
            match ask(base, archive, &name)? {
                Presence::Present => {
                    chosen = Some(ModelRef {
                        archive: archive.to_vec(),
                        name,
                        via: ModelVia::BaseStem { base },
                    });
                    break;
                }
                presence => base_attempts.push(MissingRef {
                    reference: base,
                    archive: archive.to_vec(),
                    name,
                    presence,
                }),
            }
        }
    }

    let geometry = match chosen {
        Some(model) => Geometry::Mesh(model),
        None => Geometry::NonGeometric { base_attempts },
    };
    Ok(Resolution {
        expansion,
        geometry,
        bases,
        skipped_models,
    })
}
