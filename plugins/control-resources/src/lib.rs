//! The Control resource model of Iron3D (Parkan: Iron Strategy, `Control.dll`), after
//! FORMATS §13.14 "Control", with the record format of §11.6 and the provider rows of
//! §11.2. Pure, deterministic CPU code: no I/O, no other project crate; every
//! operation returns a [`Result`] instead of panicking, and every mutating operation
//! leaves its state unchanged on error.
//!
//! ```text
//! CTLD typed records --DeviceRecord::read--> DeviceRecord
//!   --DeviceTable::merge (root / INTO / EXTO)--> DeviceTable (Device slots)
//! NDP rows (caller-decoded NdpRow) --ProviderTable::push_component--> ProviderTable
//! queries:  resource_getter (0x300), aggregate_getter_1/2, aggregate_setter_1
//! changes:  apply_delta (direct path) | distribute | propagate (stages, subtree)
//! time:     ResourceClock::frame / force_step, apply_contact (class 4)
//! ```
//!
//! # Modules
//!
//! * [`device`] — typed device records (strict reader, writer) and the runtime
//!   [`Device`] with the initial factory values (§11.6).
//! * [`merge`] — the device table merge, EXTO key remap, INTO local index rule, global
//!   MSH node numbering (§13.14 "Device table merge").
//! * [`provider`] — provider rows from NDP (§13.14 "Provider rows", §11.2).
//! * [`getters`] — getter 0x300 with x87 rounding, aggregate getters/setter of tag 19.
//! * [`amount`] — the direct amount change (Control `+0x10F30`).
//! * [`distribute`](mod@distribute) — distribution of one change over rows.
//! * [`stage`] — the stage formula and one-row stage update.
//! * [`propagate`](mod@propagate) — stage propagation through the row tree, transactional.
//! * [`clock`] — the resource clock and the class-4 contact path.
//! * [`x87`] — 24-bit mantissa rounding with an unlimited exponent.
//! * [`error`] — [`ControlError`] (one enum, source chains kept) and [`LoadContext`].
//!
//! # From the spec
//!
//! Everything above follows FORMATS §13.14 (and §11.2/§11.6) and the Russian tome
//! 06-behavior-extended (the Control paragraphs), including all numeric examples,
//! which are tests: the record ending at +0xBF; `min_l_n1.dat` with 10 devices, 4 INTO
//! overrides and 1 EXTO record with key 22 → 11 devices; 22 + 4 NDP rows → 25; the
//! initial factory values; getter 0x300's order and rounding; the tag-19 aggregates;
//! max 100 / 40 + 20 → 60 / 0.6; `[2^24, 2]` − 1 → −2; `[30,60,50]`/`[10,20,0]` + 22 →
//! `[14,28,10]`; count 3 stages `[2,1,1,0,3]`; the order 1 → 3 → 4 → 2; class 4
//! coefficient 1 × interval 2 → −2.
//!
//! # Inferred (marked in the item docs)
//!
//! * The EXTO key remap's general form `first_global_node + key − 1` (the spec gives
//!   one example).
//! * Factory tags 19 and 26 use the common record reader (tome 06 shows both going
//!   through `0x21D50`); factory tag 15 answers the aggregate selectors like tag 19.
//! * A record word +0x18 other than −1 becomes field +0x50 on the create path as well.
//! * Registry types other than root/INTO/EXTO count their MSH nodes like a root.
//! * The `[2^24, 2]` example is two rows with those amounts (total `2^24 + 2`); the
//!   distribution's effective change is `f32(f32(total + request) − total)`.
//!
//! # Project decisions (our choices where the spec is silent)
//!
//! * **PD-CTRL-VALUE-ENTRIES** — "value entries are added to +0x1C/+0x20" is modelled
//!   as *appending* to the device's value-entry list (tome 06: after a repeated override
//!   of a tag-2 device the re-zeroed cache follows the accumulated entry count).
//! * **PD-CTRL-EXTO-UNRESOLVED** — an EXTO with C4 = −1 contributes no devices by
//!   default and is reported as a diagnostic; [`merge::UnresolvedExtoPolicy::NativeKeys`]
//!   gives the literal native reading instead.
//! * **PD-CTRL-TOTAL-INIT** — the object's total starts as the `f32` sum of the initial
//!   row amounts in load order.
//! * **PD-CTRL-AGG-F32** — aggregate sums are `f32` in table order; overflow is an error.
//! * **PD-CTRL-SETTER-FINITE** — setter 1 refuses a non-finite multiplier.
//! * **PD-CTRL-DIST-SHARE**, **PD-CTRL-DIST-NO-REMAINDER**, **PD-CTRL-DIST-SEQ-ADD**,
//!   **PD-CTRL-DIST-ROWS** — share formula and order, no remainder or excess
//!   redistribution, sequential addition first → last, caller-named rows without
//!   duplicates (see [`distribute`](mod@distribute)).
//! * **PD-CTRL-STAGE-FLAGS** — with both flags 4 and 8 the parent's stage wins.
//! * **PD-CTRL-PROP-ACCUMULATE** — the full reduction of a degraded child goes into
//!   its accumulator; **PD-CTRL-PROP-FLAGS** — the flag branch structure (see
//!   [`propagate`](mod@propagate)).
//! * **PD-CTRL-CLOCK-RNG** — the MSVC `rand()` LCG; **PD-CTRL-CLOCK-DEADLINE** —
//!   `deadline = last_step + period + rand() % jitter_span`, default span 4 *fitted* to
//!   the one native vector (500, 501 skipped, 502 stepped), which many formulas fit;
//!   **PD-CTRL-CLOCK-ACCEPT**, **PD-CTRL-CLOCK-INACTIVE**, **PD-CTRL-CLOCK-INTERVAL**
//!   (see [`clock`]). The native RNG and deadline formula are *not* reproduced: their
//!   appendix is not in the shared spec.
//!
//! # Not modelled
//!
//! Tag-specific callbacks beyond the ones above (tag-2 weapon caches, FX, lifecycle of
//! a depleted root), the AniMesh side (the caller publishes [`AmountChange::ratio`] and
//! [`ProviderRow::visible_stage`]), the NDP byte layout (undocumented; the caller
//! decodes rows), and where the CTLD stores the tag (the caller passes it).
//!
//! ```
//! use iron3d_control_resources::*;
//!
//! let mut providers = ProviderTable::new();
//! let row = NdpRow { max_volume: 100.0, stage_count: 3, parent: -1, flags: 0 };
//! providers.push_component(ProviderSource::Root, 1, &[row], 1.0)?;
//! apply_delta(&mut providers, 0, -60.0, false)?;
//! let p = propagate(&mut providers, 0)?;
//! assert_eq!((p.stages[0].new_stage, providers.rows()[0].ratio), (1, 0.4));
//!
//! let rec = DeviceRecord::synthetic(FactoryTag(26), 0, 2.0, KEEP_FACTORY_FIELD_50);
//! let mut devices = DeviceTable::new();
//! devices.merge(&ComponentDescriptor::root(1, vec![rec]), &LoadContext::new(), MergeOptions::default())?;
//! assert_eq!(resource_getter(&devices.devices()[0], &providers)?, 0.8);
//! # Ok::<(), ControlError>(())
//! ```

pub mod amount;
pub mod clock;
pub mod device;
pub mod distribute;
pub mod error;
pub mod getters;
pub mod merge;
pub mod propagate;
pub mod provider;
pub mod stage;
pub mod x87;

pub use amount::{AmountChange, apply_delta};
pub use clock::{
    ClockEvent, ClockRng, DEFAULT_JITTER_SPAN, MsvcRand, ResourceClock, apply_contact,
    contact_delta,
};
pub use device::{Device, DeviceRecord, FactoryTag, KEEP_FACTORY_FIELD_50, ReaderSupport};
pub use distribute::{Distribution, DistributionMode, distribute};
pub use error::{ControlError, LoadContext, Result};
pub use getters::{
    aggregate_getter, aggregate_getter_1, aggregate_getter_2, aggregate_setter_1, resource_getter,
    selector_base, selector_weighted, x87_product3,
};
pub use merge::{
    ComponentDescriptor, ComponentKind, DeviceTable, GlobalNodeCounter, MergeDiagnostic,
    MergeOptions, MergeReport, UnresolvedExtoPolicy, remap_exto_key,
};
pub use propagate::{Propagation, propagate};
pub use provider::{Contribution, NdpRow, ProviderRow, ProviderSource, ProviderTable};
pub use stage::{Stage, StageUpdate, stage_for_ratio, update_stage};

#[cfg(test)]
mod tests;
