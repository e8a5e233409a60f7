//! Ambient music (FORMATS §13.10): exact generator sequences, pools, the timer.

#![allow(clippy::unwrap_used, reason = "tests")]

use super::*;

/// The recurrence written out again, independently of `VariationGenerator`, on 32-bit
/// integers with the mask and the redraw rule spelled out.
fn reference(a0: u16, b0: u16, len: u32, draws: usize) -> Vec<u32> {
    let (mut a, mut b) = (u32::from(a0), u32::from(b0));
    let mut prev: Option<u32> = None;
    let mut out = Vec::new();
    while out.len() < draws {
        a = ((a << 1) ^ b) & 0xFFFF;
        b = (b >> 1) ^ a;
        let index = b % len;
        if len > 1 && Some(index) == prev {
            continue;
        }
        prev = Some(index);
        out.push(index);
    }
    out
}

fn draws(g: &mut VariationGenerator, len: usize, n: usize) -> Vec<u32> {
    let mut prev = None;
    (0..n)
        .map(|_| {
            let i = g.draw(len, prev).unwrap();
            prev = Some(i);
            i as u32
        })
        .collect()
}

#[test]
fn first_step_by_hand() {
    // a = ((0x1234 << 1) ^ 0x5678) & 0xFFFF = 0x2468 ^ 0x5678 = 0x7210
    // b = (0x5678 >> 1) ^ 0x7210 = 0x2B3C ^ 0x7210 = 0x592C = 22828; 22828 % 5 = 3
    let mut g = VariationGenerator::new(0x1234, 0x5678);
    assert_eq!(g.step(), 0x592C);
    assert_eq!(g, VariationGenerator::new(0x7210, 0x592C));
    // The mask: a's top bit is shifted out.
    let mut g = VariationGenerator::new(0x8000, 0);
    g.step();
    assert_eq!(g.a, 0);
}

#[test]
fn twenty_draws_with_redraws() {
    // Raw indices of (0x1234, 0x5678) over a pool of 5 begin 3 4 2 3 3 2 ...: the fifth
    // raw draw repeats the fourth and is redrawn, and so on (25 steps for 20 draws).
    let expect = [3, 4, 2, 3, 2, 3, 0, 1, 0, 2, 0, 3, 2, 4, 3, 2, 4, 2, 0, 2];
    let mut g = VariationGenerator::new(0x1234, 0x5678);
    assert_eq!(draws(&mut g, 5, 20), expect);
    assert_eq!(reference(0x1234, 0x5678, 5, 20), expect);
    assert_eq!(g, VariationGenerator::new(37650, 43067));

    let expect = [2, 1, 2, 1, 0, 1, 0, 1, 0, 2, 1, 0, 2, 0, 2, 0, 2, 1, 0, 1];
    let mut g = VariationGenerator::new(1, 0);
    assert_eq!(draws(&mut g, 3, 20), expect);
    assert_eq!(reference(1, 0, 3, 20), expect);

    // A pool of two strictly alternates.
    let expect = [1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0];
    let mut g = VariationGenerator::new(0xBEEF, 1);
    assert_eq!(draws(&mut g, 2, 20), expect);
    assert_eq!(reference(0xBEEF, 1, 2, 20), expect);
    assert_eq!(g, VariationGenerator::new(1221, 2788));

    // A pool of one never redraws: one step per draw.
    let mut g = VariationGenerator::new(7, 3);
    assert_eq!(draws(&mut g, 1, 20), [0; 20]);
    assert_eq!(g, VariationGenerator::new(56610, 45542));
}

#[test]
fn empty_pool_and_degenerate_state() {
    let mut g = VariationGenerator::new(5, 9);
    assert_eq!(g.draw(0, Some(1)), None);
    assert_eq!(g, VariationGenerator::new(5, 9));
    // (0, 0) is a fixed point giving index 0 forever: the redraw cap takes the next.
    let mut g = VariationGenerator::new(0, 0);
    assert_eq!(g.draw(2, Some(0)), Some(1));
    assert_eq!(g.draw(2, None), Some(0));
}

fn k(name: &str) -> SampleKey {
    SampleKey::new("MUSIC.LIB", name)
}

fn config() -> MusicConfig {
    MusicConfig {
        theme: Some(k("THEME.WAV")),
        default_pool: vec![k("D1"), k("D2")],
        day_pool: vec![k("DAY1"), k("DAY2"), k("DAY3")],
        night_pool: vec![k("N1"), k("N2"), k("N3")],
    }
}

const BRIGHT: Option<Vec3> = Some(Vec3::new(1.0, 0.5, 0.0)); // |rgb| = 1.118 > 1.1
const DARK: Option<Vec3> = Some(Vec3::new(0.6, 0.6, 0.6)); // |rgb| = 1.039

#[test]
fn theme_on_open_and_first_variation_on_first_positive_tick() {
    let mut m = AmbientMusic::new(config(), VariationGenerator::new(0x1234, 0x5678));
    assert_eq!(m.open(), Some(MusicEvent::Theme(k("THEME.WAV"))));
    let mut rand = || 3u32;
    assert_eq!(m.tick(0.0, BRIGHT, &mut rand), None);
    assert_eq!(m.tick(-1.0, BRIGHT, &mut rand), None);
    assert_eq!(m.tick(f64::NAN, BRIGHT, &mut rand), None);
    // First draw of (0x1234, 0x5678) over 3 entries: 22828 % 3 = 1.
    assert_eq!(
        m.tick(1e-9, BRIGHT, &mut rand),
        Some(MusicEvent::Variation {
            key: k("DAY2"),
            pool: MusicPool::Day,
            index: 1
        })
    );
    assert_eq!(m.last_index(), 1);
    assert_eq!(m.delay(), 13.0);
    assert_eq!(m.elapsed(), 0.0);
}

#[test]
fn elapsed_equal_to_delay_does_not_fire() {
    let mut m = AmbientMusic::new(config(), VariationGenerator::new(1, 0));
    let mut values = [25u32, 7].into_iter().cycle();
    let mut rand = move || values.next().unwrap();
    assert!(m.tick(0.5, DARK, &mut rand).is_some());
    assert_eq!(m.delay(), 15.0); // 10 + 25 % 10
    assert_eq!(m.tick(7.5, DARK, &mut rand), None);
    assert_eq!(m.tick(7.5, DARK, &mut rand), None); // elapsed == 15 == delay
    assert!(m.tick(1e-9, DARK, &mut rand).is_some());
    assert_eq!(m.delay(), 17.0); // 10 + 7 % 10
}

#[test]
fn default_pool_only_when_day_and_night_are_both_absent() {
    let mut c = config();
    assert_eq!(c.pool_for(BRIGHT), MusicPool::Day);
    assert_eq!(c.pool_for(DARK), MusicPool::Night);
    assert_eq!(c.pool_for(None), MusicPool::Night);
    // Exactly 1.1 is night (the rule is strictly greater).
    assert_eq!(c.pool_for(Some(Vec3::new(1.1, 0.0, 0.0))), MusicPool::Night);
    c.day_pool.clear();
    assert_eq!(c.pool_for(BRIGHT), MusicPool::Day);
    c.night_pool.clear();
    assert_eq!(c.pool_for(BRIGHT), MusicPool::Default);
    assert_eq!(c.pool_for(DARK), MusicPool::Default);
}

#[test]
fn an_empty_chosen_pool_is_silent_and_the_timer_runs_on() {
    let mut c = config();
    c.night_pool.clear();
    let mut m = AmbientMusic::new(c, VariationGenerator::new(1, 0));
    let mut rand = || 0u32;
    // Night is chosen and empty: neither DEFAULT nor DAY replaces it.
    assert_eq!(
        m.tick(0.1, DARK, &mut rand),
        Some(MusicEvent::Silent {
            pool: MusicPool::Night
        })
    );
    assert_eq!(m.last_index(), -1);
    assert_eq!(m.generator(), VariationGenerator::new(1, 0));
    assert_eq!(m.delay(), 10.0);
    assert_eq!(m.tick(10.0, BRIGHT, &mut rand), None);
    // The first draw of (1, 0) over 3: a = 2, b = 2, index 2.
    assert_eq!(
        m.tick(0.5, BRIGHT, &mut rand),
        Some(MusicEvent::Variation {
            key: k("DAY3"),
            pool: MusicPool::Day,
            index: 2
        })
    );
}

#[test]
fn the_last_index_survives_a_day_night_switch() {
    let mut m = AmbientMusic::new(config(), VariationGenerator::new(1, 0));
    let mut rand = || 0u32;
    // Pools of 3 on both sides: the draws follow the reference sequence of (1, 0)
    // over 3 across the switch, because the previous index carries over.
    let expect = reference(1, 0, 3, 4);
    let skies = [BRIGHT, DARK, BRIGHT, DARK];
    for (sky, want) in skies.into_iter().zip(expect) {
        let e = m.tick(30.0, sky, &mut rand).unwrap();
        let MusicEvent::Variation { index, pool, .. } = e else {
            panic!("{e:?}")
        };
        assert_eq!(index as u32, want);
        assert_eq!(
            pool,
            if sky == BRIGHT {
                MusicPool::Day
            } else {
                MusicPool::Night
            }
        );
    }
}

#[test]
fn pause_keeps_timer_and_index() {
    let mut m = AmbientMusic::new(config(), VariationGenerator::new(0x1234, 0x5678));
    let mut rand = || 9u32;
    m.tick(1.0, BRIGHT, &mut rand).unwrap();
    m.tick(4.0, BRIGHT, &mut rand);
    let before = m.clone();
    m.set_paused(true);
    assert!(m.is_paused());
    assert_eq!(m.tick(100.0, DARK, &mut rand), None);
    m.set_paused(false);
    assert_eq!(m.elapsed(), before.elapsed());
    assert_eq!(m.last_index(), before.last_index());
    assert_eq!(m.generator(), before.generator());
    assert_eq!(m.tick(14.0, BRIGHT, &mut rand), None); // 18 < 19
    assert!(m.tick(1.5, BRIGHT, &mut rand).is_some());
}

#[test]
fn state_round_trips_through_json() {
    let mut m = AmbientMusic::new(config(), VariationGenerator::new(3, 4));
    m.tick(1.0, BRIGHT, &mut || 1u32);
    let text = serde_json::to_string(&m).unwrap();
    let back: AmbientMusic = serde_json::from_str(&text).unwrap();
    assert_eq!(back, m);
}
