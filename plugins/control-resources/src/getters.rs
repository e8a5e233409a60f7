//! Getter 0x300 of the resource device and the aggregate getters/setter of tag 19
//! (FORMATS §13.14; Control `+0x21D00`, `+0x2B410`, `+0x2BA30`).
//!
//! * Getter 0x300 (factory tag 26): `provider × coefficient × multiplier`, multiplied
//!   in that order under x87 control word `0x007F`: each product rounded to 24 bits,
//!   the exponent unlimited between the multiplications; the final value must be a
//!   normal `f32` or zero, else [`ControlError::OutOfF32Range`].
//! * Selector answers: selector 0 = coefficient (factory tag 9: coefficient × +0x11C),
//!   selector 0x200 = coefficient × multiplier. Supported factory classes: 19 and 9
//!   (spec), 15 (**inferred** to answer like 19: the native oracle covered it, the
//!   spec gives no formula). Others fail as unsupported.
//! * Aggregates run over devices whose **current** descriptor tag is 19, calling the
//!   answers of their **factory** class. Sums are `f32`, in table order
//!   (**PD-CTRL-AGG-F32**: on the normal range this equals 24-bit x87 rounding; a
//!   non-finite sum is an error instead of an x87 wide-exponent value).

use crate::device::{Device, FactoryTag};
use crate::error::{ControlError, Result};
use crate::merge::DeviceTable;
use crate::provider::ProviderTable;
use crate::x87::{finite, to_f32_checked, x87_mul};

/// Selector of the provider value (type-1).
pub const SELECTOR_PROVIDER: u32 = 1;
/// Selector 0: the base answer of a device.
pub const SELECTOR_BASE: u32 = 0;
/// Selector 0x200: the weighted answer of a device.
pub const SELECTOR_WEIGHTED: u32 = 0x200;
/// Selector 0x300: the resource getter.
pub const SELECTOR_RESOURCE: u32 = 0x300;

/// `provider × coefficient × multiplier` with x87 precision control 24: exact
/// products rounded to 24 bits, no exponent limit in between, the result converted to
/// `f32` with a range check. Fails on non-finite inputs or an out-of-range result.
pub fn x87_product3(provider: f32, coefficient: f32, multiplier: f32) -> Result<f32> {
    for v in [provider, coefficient, multiplier] {
        finite(v, "getter 0x300 input")?;
    }
    let first = x87_mul(f64::from(provider), f64::from(coefficient));
    let second = x87_mul(first, f64::from(multiplier));
    to_f32_checked(second, "getter 0x300 provider x coefficient x multiplier")
}

/// Getter 0x300 of `device`: the provider value of row `key` (+0x04) × coefficient
/// (+0x54) × multiplier (+0x4C), via [`x87_product3`]. Only factory tag 26 is
/// supported; the provider lookup must be available and the key must select a row.
pub fn resource_getter(device: &Device, providers: &ProviderTable) -> Result<f32> {
    if device.factory_tag() != FactoryTag::RESOURCE {
        return Err(ControlError::UnsupportedTag {
            tag: device.factory_tag().0,
            operation: "getter 0x300",
        });
    }
    let p = providers.provider_value(device.key())?;
    x87_product3(p, device.coefficient(), device.multiplier())
}

fn supported_aggregate_class(d: &Device) -> Result<()> {
    match d.factory_tag().0 {
        9 | 15 | 19 => Ok(()),
        tag => Err(ControlError::UnsupportedTag {
            tag,
            operation: "the aggregate selectors 0/0x200",
        }),
    }
}

/// Selector 0 of `device` by its factory class: the coefficient, times field +0x11C
/// for factory tag 9.
pub fn selector_base(device: &Device) -> Result<f32> {
    supported_aggregate_class(device)?;
    let c = finite(device.coefficient(), "selector 0 coefficient")?;
    if device.factory_tag() == FactoryTag::SCALED {
        finite(c * device.scale_11c(), "selector 0 coefficient x +0x11C")
    } else {
        Ok(c)
    }
}

/// Selector 0x200 of `device`: coefficient × multiplier.
pub fn selector_weighted(device: &Device) -> Result<f32> {
    supported_aggregate_class(device)?;
    finite(
        device.coefficient() * device.multiplier(),
        "selector 0x200 coefficient x multiplier",
    )
}

fn current_19(table: &DeviceTable) -> impl Iterator<Item = &Device> {
    table
        .devices()
        .iter()
        .filter(|d| d.current_tag() == FactoryTag::AGGREGATE)
}

/// Aggregate getter 1: `Σ selector 0x200 / Σ selector 0` over current-tag-19 devices.
/// A negative selector-0 answer returns 1.0 at once. No matching device, or a
/// non-positive base sum, fails with [`ControlError::AggregateUnavailable`].
pub fn aggregate_getter_1(table: &DeviceTable) -> Result<f32> {
    let mut num = 0.0f32;
    let mut den = 0.0f32;
    let mut any = false;
    for d in current_19(table) {
        let base = selector_base(d)?;
        if base < 0.0 {
            return Ok(1.0);
        }
        any = true;
        num = finite(num + selector_weighted(d)?, "getter 1 numerator")?;
        den = finite(den + base, "getter 1 denominator")?;
    }
    if !any {
        return Err(ControlError::AggregateUnavailable {
            getter: 1,
            reason: "no device with current descriptor tag 19",
        });
    }
    if den <= 0.0 {
        return Err(ControlError::AggregateUnavailable {
            getter: 1,
            reason: "non-positive base sum",
        });
    }
    finite(num / den, "getter 1 ratio")
}

/// Aggregate getter 2: `Σ selector 0` over current-tag-19 devices; a negative answer
/// is returned at once. No matching device, or a non-positive sum, fails.
pub fn aggregate_getter_2(table: &DeviceTable) -> Result<f32> {
    let mut den = 0.0f32;
    let mut any = false;
    for d in current_19(table) {
        let base = selector_base(d)?;
        if base < 0.0 {
            return Ok(base);
        }
        any = true;
        den = finite(den + base, "getter 2 sum")?;
    }
    if !any {
        return Err(ControlError::AggregateUnavailable {
            getter: 2,
            reason: "no device with current descriptor tag 19",
        });
    }
    if den <= 0.0 {
        return Err(ControlError::AggregateUnavailable {
            getter: 2,
            reason: "non-positive base sum",
        });
    }
    Ok(den)
}

/// Aggregate setter 1: writes `multiplier` (+0x4C) to every device whose current
/// descriptor tag is 19 and whose selector-0 answer is positive; returns how many were
/// written (an empty set succeeds with 0). A non-finite multiplier or an unsupported
/// class fails before anything is written (**PD-CTRL-SETTER-FINITE**).
pub fn aggregate_setter_1(table: &mut DeviceTable, multiplier: f32) -> Result<usize> {
    finite(multiplier, "setter 1 multiplier")?;
    let mut targets = Vec::new();
    for (i, d) in table.devices().iter().enumerate() {
        if d.current_tag() == FactoryTag::AGGREGATE && selector_base(d)? > 0.0 {
            targets.push(i);
        }
    }
    for &i in &targets {
        if let Some(d) = table.devices_mut().get_mut(i) {
            d.set_multiplier(multiplier);
        }
    }
    Ok(targets.len())
}

/// Runs getter `selector` (1 or 2) of the aggregate interface; other selectors fail
/// as unsupported.
pub fn aggregate_getter(table: &DeviceTable, selector: u32) -> Result<f32> {
    match selector {
        1 => aggregate_getter_1(table),
        2 => aggregate_getter_2(table),
        s => Err(ControlError::UnsupportedTag {
            tag: s,
            operation: "aggregate getter selector",
        }),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::device::{DeviceRecord, KEEP_FACTORY_FIELD_50};
    use crate::provider::{NdpRow, ProviderSource};

    fn dev(factory: u32, current: u32, coef: f32, mult: f32) -> Device {
        let mut d = Device::create(
            &DeviceRecord::synthetic(FactoryTag(factory), 0, coef, KEEP_FACTORY_FIELD_50),
            1,
        );
        if current != factory {
            d.apply_override(&DeviceRecord::synthetic(
                FactoryTag(current),
                0,
                coef,
                KEEP_FACTORY_FIELD_50,
            ));
        }
        d.set_multiplier(mult);
        d
    }

    fn tbl(devs: Vec<Device>) -> DeviceTable {
        DeviceTable::from_devices(devs)
    }

    /// Getter 0x300: in-range values equal the plain f32 product in that order.
    #[test]
    fn product_order_in_range() {
        let v = [
            (0.5f32, 3.0f32, 1.25f32),
            (1.0, 1.0, 1.0),
            (0.1, 0.3, 0.7),
            (0.0, 5.0, 2.0),
        ];
        for (p, c, m) in v {
            assert_eq!(x87_product3(p, c, m).unwrap(), (p * c) * m);
        }
    }

    /// The intermediate leaves the f32 range and comes back.
    #[test]
    fn intermediate_leaves_f32_range() {
        let p = 2f32.powi(100);
        let c = 2f32.powi(100);
        let m = 2f32.powi(-100);
        assert!((p * c).is_infinite());
        assert_eq!(x87_product3(p, c, m).unwrap(), 2f32.powi(100));
        // With rounding at 24 bits in the wide range: (1+u)^2 = 1+2u+u^2 → 1+2u.
        let u = 2f32.powi(-23);
        let a = (1.0 + u) * 2f32.powi(90);
        let r = x87_product3(a, a, 2f32.powi(-120)).unwrap();
        assert_eq!(r, (1.0 + 2.0 * u) * 2f32.powi(60));
        // Tiny intermediate, then back up.
        let t = x87_product3(2f32.powi(-100), 2f32.powi(-100), 2f32.powi(120)).unwrap();
        assert_eq!(t, 2f32.powi(-80));
    }

    #[test]
    fn final_out_of_range_is_an_error() {
        let p = 2f32.powi(100);
        assert!(matches!(
            x87_product3(p, p, 1.0),
            Err(ControlError::OutOfF32Range { .. })
        ));
        assert!(matches!(
            x87_product3(2f32.powi(-100), 2f32.powi(-100), 1.0),
            Err(ControlError::OutOfF32Range { .. })
        ));
        assert!(matches!(
            x87_product3(f32::NAN, 1.0, 1.0),
            Err(ControlError::NotFinite { .. })
        ));
        // Rounding up to 2^128 overflows too.
        assert!(x87_product3(f32::MAX, 1.0 + 2f32.powi(-23), 1.0).is_err());
    }

    #[test]
    fn resource_getter_reads_the_keyed_row() {
        let mut providers = ProviderTable::new();
        let rows = vec![
            NdpRow {
                max_volume: 1.0,
                stage_count: 2,
                parent: -1,
                flags: 0
            };
            3
        ];
        providers
            .push_component(ProviderSource::Root, 1, &rows, 1.0)
            .unwrap();
        crate::amount::apply_delta(&mut providers, 2, -0.5, false).unwrap();
        let mut d = Device::create(
            &DeviceRecord::synthetic(FactoryTag(26), 2, 1.0, KEEP_FACTORY_FIELD_50),
            1,
        );
        assert_eq!(resource_getter(&d, &providers).unwrap(), 0.5);
        d.set_multiplier(3.0);
        assert_eq!(resource_getter(&d, &providers).unwrap(), 1.5);
        let far = Device::create(
            &DeviceRecord::synthetic(FactoryTag(26), 9, 1.0, KEEP_FACTORY_FIELD_50),
            1,
        );
        assert!(matches!(
            resource_getter(&far, &providers),
            Err(ControlError::ProviderKeyOutOfRange { key: 9, .. })
        ));
        let other = Device::create(
            &DeviceRecord::synthetic(FactoryTag(5), 0, 1.0, KEEP_FACTORY_FIELD_50),
            1,
        );
        assert!(resource_getter(&other, &providers).is_err());
    }

    /// Getter 1 = Σ(coef·mult)/Σ(coef); getter 2 = Σ coef.
    #[test]
    fn getters_1_and_2() {
        let t = tbl(vec![
            dev(19, 19, 2.0, 0.5),
            dev(19, 19, 6.0, 1.0),
            dev(5, 5, 100.0, 9.0),
        ]);
        assert_eq!(aggregate_getter_1(&t).unwrap(), 7.0 / 8.0);
        assert_eq!(aggregate_getter_2(&t).unwrap(), 8.0);
        assert_eq!(aggregate_getter(&t, 2).unwrap(), 8.0);
        assert!(aggregate_getter(&t, 17).is_err());
    }

    #[test]
    fn negative_base_answer_returns_at_once() {
        // The negative answer comes second: the first device's sums are discarded.
        let t = tbl(vec![
            dev(19, 19, 2.0, 0.5),
            dev(19, 19, -3.0, 1.0),
            dev(7, 19, 1.0, 1.0),
        ]);
        assert_eq!(aggregate_getter_1(&t).unwrap(), 1.0);
        assert_eq!(aggregate_getter_2(&t).unwrap(), -3.0);
    }

    #[test]
    fn failures_without_result() {
        let none = tbl(vec![dev(5, 5, 1.0, 1.0)]);
        assert!(matches!(
            aggregate_getter_1(&none),
            Err(ControlError::AggregateUnavailable { getter: 1, .. })
        ));
        assert!(matches!(
            aggregate_getter_2(&none),
            Err(ControlError::AggregateUnavailable { getter: 2, .. })
        ));
        let zero = tbl(vec![dev(19, 19, 0.0, 1.0)]);
        assert!(aggregate_getter_1(&zero).is_err());
        assert!(aggregate_getter_2(&zero).is_err());
        let unsupported = tbl(vec![dev(7, 19, 1.0, 1.0)]);
        assert!(matches!(
            aggregate_getter_1(&unsupported),
            Err(ControlError::UnsupportedTag { tag: 7, .. })
        ));
    }

    /// Tag 9 selector 0 multiplies by +0x11C (scale 0.5 changes the denominator).
    #[test]
    fn tag_9_scale() {
        let mut d9 = dev(9, 19, 4.0, 1.0);
        assert_eq!(selector_base(&d9).unwrap(), 4.0);
        d9.set_scale_11c(0.5);
        let t = tbl(vec![d9, dev(19, 19, 2.0, 1.0)]);
        assert_eq!(aggregate_getter_2(&t).unwrap(), 4.0);
        assert_eq!(aggregate_getter_1(&t).unwrap(), 6.0 / 4.0);
    }

    /// Setter 1: only current tag 19 with a positive selector-0 answer; factory tag 19
    /// overridden to another current tag is skipped; an empty set succeeds.
    #[test]
    fn setter_1_filters_by_current_tag_and_positive_base() {
        let mut t = tbl(vec![
            dev(19, 19, 2.0, 1.0),
            dev(19, 19, 0.0, 1.0),
            dev(19, 19, -1.0, 1.0),
            dev(19, 26, 2.0, 1.0),
            dev(15, 19, 1.0, 1.0),
        ]);
        assert_eq!(aggregate_setter_1(&mut t, 2.5).unwrap(), 2);
        let m: Vec<f32> = t.devices().iter().map(Device::multiplier).collect();
        assert_eq!(m, vec![2.5, 1.0, 1.0, 1.0, 2.5]);
        let mut empty = DeviceTable::new();
        assert_eq!(aggregate_setter_1(&mut empty, 2.0).unwrap(), 0);
        let before = t.clone();
        assert!(aggregate_setter_1(&mut t, f32::NAN).is_err());
        let mut bad = tbl(vec![dev(19, 19, 1.0, 1.0), dev(7, 19, 1.0, 1.0)]);
        let bad_before = bad.clone();
        assert!(aggregate_setter_1(&mut bad, 3.0).is_err());
        assert_eq!((t, bad), (before, bad_before));
    }
}
