//! Test fixtures built in code: a hand encoder that follows the grammar independently of
//! the writer (so offsets in tests are explicit), and sample missions built with the
//! public constructors.

use crate::{
    Clan, ClanBody, ExtraRecord28, LpString, Path, PlacedObject, RawF32, SpatialGroup,
    StandardMode, Tma,
};

/// `LpString` from text, panicking on characters outside CP1251 (fixtures only).
pub fn lp(s: &str) -> LpString {
    LpString::from_text(s).expect("fixture text is CP1251")
}

/// A byte-by-byte encoder for hand-made (possibly malformed) files.
#[derive(Default)]
pub struct Enc {
    pub out: Vec<u8>,
}

impl Enc {
    pub fn new() -> Self {
        Self::default()
    }

    /// Current offset (where the next field starts).
    pub fn at(&self) -> u64 {
        self.out.len() as u64
    }

    pub fn u32(&mut self, v: u32) -> &mut Self {
        self.out.extend_from_slice(&v.to_le_bytes());
        self
    }

    pub fn i32(&mut self, v: i32) -> &mut Self {
        self.out.extend_from_slice(&v.to_le_bytes());
        self
    }

    pub fn f32(&mut self, v: f32) -> &mut Self {
        self.u32(v.to_bits())
    }

    pub fn f32s(&mut self, vs: &[f32]) -> &mut Self {
        for v in vs {
            self.f32(*v);
        }
        self
    }

    pub fn lp(&mut self, s: &[u8]) -> &mut Self {
        self.u32(u32::try_from(s.len()).expect("small"));
        self.out.extend_from_slice(s);
        self
    }

    pub fn bytes(&mut self, b: &[u8]) -> &mut Self {
        self.out.extend_from_slice(b);
        self
    }

    /// `format_version = 1, path_count = 0`.
    pub fn header_no_paths(&mut self) -> &mut Self {
        self.u32(1).u32(0)
    }

    /// `clan_section_version = 6, clan_count = 0`.
    pub fn no_clans(&mut self) -> &mut Self {
        self.u32(6).u32(0)
    }

    /// `object_section_version = 10, object_count = 0`.
    pub fn no_objects(&mut self) -> &mut Self {
        self.u32(10).u32(0)
    }

    /// Empty land path, flag 0, empty description.
    pub fn epilogue(&mut self) -> &mut Self {
        self.lp(b"").u32(0).lp(b"")
    }

    /// `extra_section_version = 1, extra_count = 0`.
    pub fn no_extras(&mut self) -> &mut Self {
        self.u32(1).u32(0)
    }

    /// A valid mode-1 clan with no relations.
    pub fn clan_mode1(&mut self, name: &[u8]) -> &mut Self {
        self.lp(name).i32(3).f32s(&[1.0, 2.0]).u32(1);
        self.lp(b"script").i32(10).lp(b"trf").i32(11).u32(0)
    }

    /// The fixed fields of a valid object up to (excluding) `property_schema_version`.
    pub fn object_head(&mut self, resource: &[u8]) -> &mut Self {
        self.u32(5).u32(0x8000_0002).lp(resource).u32(2).u32(9);
        self.f32s(&[1.0, 2.0, 3.0, 0.0, 0.0, 1.5, 1.0, 1.0, 1.0]);
        self.lp(b"stem").u32(0).i32(-1).i32(-1)
    }

    /// The whole empty mission (44 bytes).
    pub fn empty_mission() -> Vec<u8> {
        let mut e = Enc::new();
        e.header_no_paths()
            .no_clans()
            .no_objects()
            .epilogue()
            .no_extras();
        e.out
    }
}

/// A spatial (mode 0) clan with groups of 0, 1 and 2 records and two relations.
pub fn spatial_clan() -> Clan {
    let groups = vec![
        SpatialGroup::new([[1.0, 2.0, 3.0, 4.0, 5.0]]),
        SpatialGroup::default(),
        SpatialGroup::new([[6.0, 7.0, 8.0, 9.0, 10.0], [-1.0, -2.0, -3.0, -4.0, -5.0]]),
    ];
    let mut body = ClanBody::spatial(lp("MISSIONS\\SCRIPTS\\alien"), groups, lp("alien.trf"));
    if let ClanBody::Spatial { second_tag, .. } = &mut body {
        *second_tag = -7;
    }
    Clan::new(lp("Чужие"), body)
        .with_raw_id(-3)
        .with_anchor(1500.5, -20.25)
        .with_relation(lp("Игрок"), -1)
        .with_relation(lp("Нейтралы"), 0)
}

/// A mission using every part of the grammar: paths, clans of modes 0, 1 and 3, objects
/// with repeated and CP1251 property names, a raw description and `extras` extra records.
pub fn sample(extras: usize) -> Tma {
    let mut t = Tma::new()
        .with_land_path(lp("LAND\\Ландшафт1"))
        .with_mission_flag(0xDEAD_0001)
        .with_description(LpString::from_bytes(
            &b"Mission \xC1\x00\x01\xFFC:\\old\\path"[..],
        ));
    t.paths
        .push(Path::new(42, [[0.0, 1.0, 2.0], [3.5, -4.0, 5.25]]));
    t.paths.push(Path::new(-1, []));
    t.paths.push(Path {
        id: 7,
        points: vec![[RawF32(0x7FC0_1234), RawF32(0x8000_0000), RawF32(1)]],
    });
    t.clans.push(
        Clan::new(
            lp("Игрок"),
            ClanBody::standard(StandardMode::One, lp("player"), lp("")),
        )
        .with_relation(lp("Чужие"), -1),
    );
    t.clans.push(spatial_clan());
    let mut third = Clan::new(
        lp("Нейтралы"),
        ClanBody::standard(StandardMode::Three, lp("neutral"), lp("n.trf")),
    );
    if let ClanBody::Standard {
        resource_tag_1,
        resource_tag_2,
        ..
    } = &mut third.body
    {
        *resource_tag_1 = 0x1234;
        *resource_tag_2 = -99;
    }
    t.clans.push(third);
    t.objects.push(
        PlacedObject::new(lp("UNITS\\tank.dat"), [100.0, 200.0, 5.0])
            .with_orientation([0.0, 0.0, 1.626_236_3])
            .with_super_ai_slot(1)
            .with_property(lp("Invulnerability"), [0, 0, 0, 0])
            .with_property(lp("Life state"), [1, 2, 3, 4])
            .with_property(lp("NOT USED"), [0; 4])
            .with_property(lp("CurrentOre"), [0, 0x4120_0000, 0, 0])
            .with_property(lp("NOT USED"), [9; 4])
            .with_property(lp("CurrentOre"), [0, 77, 0, 0])
            .with_property(lp("Свойство"), [u32::MAX; 4]),
    );
    let mut o = PlacedObject::new(lp("tree01"), [-1.0, 0.0, 1e30])
        .with_instance_name(lp("tree01"))
        .with_scale([2.0, 2.0, 0.5]);
    o.raw_kind = 0xFFFF_FFFF;
    o.identity_or_clan_raw = 0x0102_0304;
    o.raw_after_name = 17;
    o.link0 = -1;
    o.link1 = i32::MIN;
    t.objects.push(o);
    t.objects
        .push(PlacedObject::new(LpString::empty(), [0.0; 3]));
    for i in 0..extras {
        let f = i as f32;
        t.extras.push(ExtraRecord28::new(
            [f, -f, 0.5],
            [i as u32, 0, u32::MAX, 0x8000_0000],
        ));
    }
    t
}
