//! The sequential reader: a bounded cursor over `&[u8]` that parses the whole grammar in
//! file order, checks every count against the remaining bytes before allocating, and
//! collects the diagnostics of the compatible mode.

use crate::error::{Location, Site, TmaError, VersionField};
use crate::model::{
    CLASS_OR_FLAGS, Clan, ClanBody, ExtraRecord28, Path, PlacedObject, Property, RawF32, Relation,
    SpatialGroup, StandardMode, Tma,
};
use crate::options::{Diagnostic, Quirk, ReadOptions};
use crate::text::LpString;

/// Smallest encoded sizes of the variable records, used to bound counts.
pub(crate) mod min_size {
    /// `path_id` + `point_count`.
    pub const PATH: u64 = 8;
    /// Three floats.
    pub const POINT: u64 = 12;
    /// Name, raw id, anchor, mode, a 16-byte body (either layout), relation count.
    pub const CLAN: u64 = 4 + 4 + 8 + 4 + 16 + 4;
    /// `record_count`.
    pub const SPATIAL_GROUP: u64 = 4;
    /// Five floats.
    pub const SPATIAL_RECORD: u64 = 20;
    /// Name prefix and value.
    pub const RELATION: u64 = 8;
    /// Every fixed field of a placed object with empty strings and no properties.
    pub const OBJECT: u64 = 4 + 4 + 4 + 4 + 4 + 36 + 4 + 4 + 4 + 4 + 4 + 4;
    /// Four words and a name prefix.
    pub const PROPERTY: u64 = 20;
    /// Three floats and four words.
    pub const EXTRA: u64 = 28;
}

/// A successful read: the document and the quirks applied (empty in strict mode).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parsed {
    /// The mission.
    pub tma: Tma,
    /// One entry per tolerated strict failure, in file order.
    pub diagnostics: Vec<Diagnostic>,
}

impl Tma {
    /// Reads `data` strictly: every check fatal, FParkan count limits.
    pub fn parse(data: &[u8]) -> Result<Tma, TmaError> {
        Self::parse_with(data, ReadOptions::strict()).map(|p| p.tma)
    }

    /// Reads `data` with all quirks of [`ReadOptions::compatible`].
    pub fn parse_compatible(data: &[u8]) -> Result<Parsed, TmaError> {
        Self::parse_with(data, ReadOptions::compatible())
    }

    /// Reads `data` with `options`; every tolerated failure becomes a diagnostic.
    pub fn parse_with(data: &[u8], options: ReadOptions) -> Result<Parsed, TmaError> {
        let mut r = Reader {
            data,
            pos: 0,
            opts: options,
            diagnostics: Vec::new(),
        };
        let tma = r.tma()?;
        Ok(Parsed {
            tma,
            diagnostics: r.diagnostics,
        })
    }
}

struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    opts: ReadOptions,
    diagnostics: Vec<Diagnostic>,
}

impl<'a> Reader<'a> {
    fn site(&self, location: Location, field: &'static str) -> Site {
        Site {
            location,
            field,
            offset: self.pos as u64,
        }
    }

    fn remaining(&self) -> usize {
        self.data.len().saturating_sub(self.pos)
    }

    /// Strict failure, or a diagnostic when `quirk` is enabled.
    fn tolerate(&mut self, quirk: Quirk, error: TmaError) -> Result<(), TmaError> {
        if self.opts.allows(quirk) {
            self.diagnostics.push(Diagnostic {
                quirk,
                tolerated: error,
            });
            Ok(())
        } else {
            Err(error)
        }
    }

    fn take(&mut self, n: usize, loc: Location, field: &'static str) -> Result<&'a [u8], TmaError> {
        let end = self.pos.checked_add(n);
        match end.and_then(|end| self.data.get(self.pos..end)) {
            Some(bytes) => {
                self.pos += n;
                Ok(bytes)
            }
            None => Err(TmaError::Truncated {
                site: self.site(loc, field),
                need: n as u64,
                have: self.remaining() as u64,
            }),
        }
    }

    fn u32(&mut self, loc: Location, field: &'static str) -> Result<u32, TmaError> {
        let b = self.take(4, loc, field)?;
        let mut w = [0u8; 4];
        w.copy_from_slice(b);
        Ok(u32::from_le_bytes(w))
    }

    fn i32(&mut self, loc: Location, field: &'static str) -> Result<i32, TmaError> {
        self.u32(loc, field)
            .map(|v| i32::from_le_bytes(v.to_le_bytes()))
    }

    fn f32(&mut self, loc: Location, field: &'static str) -> Result<RawF32, TmaError> {
        self.u32(loc, field).map(RawF32::from_bits)
    }

    fn floats<const N: usize>(
        &mut self,
        loc: Location,
        field: &'static str,
    ) -> Result<[RawF32; N], TmaError> {
        let mut out = [RawF32::default(); N];
        for v in &mut out {
            *v = self.f32(loc, field)?;
        }
        Ok(out)
    }

    fn words<const N: usize>(
        &mut self,
        loc: Location,
        field: &'static str,
    ) -> Result<[u32; N], TmaError> {
        let mut out = [0; N];
        for v in &mut out {
            *v = self.u32(loc, field)?;
        }
        Ok(out)
    }

    /// A transform triple whose components must be finite (or are reported).
    fn finite3(&mut self, loc: Location, field: &'static str) -> Result<[RawF32; 3], TmaError> {
        let mut out = [RawF32::default(); 3];
        for v in &mut out {
            let site = self.site(loc, field);
            *v = self.f32(loc, field)?;
            if !v.get().is_finite() {
                let e = TmaError::NonFinite {
                    site,
                    bits: v.bits(),
                };
                self.tolerate(Quirk::NonFiniteTransforms, e)?;
            }
        }
        Ok(out)
    }

    fn lp(&mut self, loc: Location, field: &'static str) -> Result<LpString, TmaError> {
        let site = self.site(loc, field);
        let len = self.u32(loc, field)?;
        let remaining = self.remaining();
        match usize::try_from(len).ok().filter(|&n| n <= remaining) {
            Some(n) => self.take(n, loc, field).map(LpString::from_bytes),
            None => Err(TmaError::StringPastEnd {
                site,
                len,
                remaining: remaining as u64,
            }),
        }
    }

    fn version(&mut self, which: VersionField, loc: Location) -> Result<u32, TmaError> {
        let site = self.site(loc, which.field());
        let found = self.u32(loc, which.field())?;
        if found != which.expected() {
            let e = TmaError::BadVersion { which, site, found };
            self.tolerate(Quirk::UnknownVersions, e)?;
        }
        Ok(found)
    }

    /// Reads a count and checks, in order: not negative as `i32`, `count * min_record`
    /// fits the remaining bytes (before anything is allocated), then `limit`.
    fn count(
        &mut self,
        loc: Location,
        field: &'static str,
        min_record: u64,
        limit: u32,
    ) -> Result<usize, TmaError> {
        let site = self.site(loc, field);
        let count = self.u32(loc, field)?;
        if i32::from_le_bytes(count.to_le_bytes()) < 0 {
            return Err(TmaError::NegativeCount { site, raw: count });
        }
        let remaining = self.remaining() as u64;
        let fits = u64::from(count)
            .checked_mul(min_record)
            .is_some_and(|need| need <= remaining);
        let n = usize::try_from(count).ok().filter(|_| fits);
        let Some(n) = n else {
            return Err(TmaError::CountPastEnd {
                site,
                count,
                min_record,
                remaining,
            });
        };
        if count > limit {
            let e = TmaError::CountOverLimit { site, count, limit };
            self.tolerate(Quirk::CountsOverLimits, e)?;
        }
        Ok(n)
    }

    fn tma(&mut self) -> Result<Tma, TmaError> {
        let limits = self.opts.limits();
        let format_version = self.version(VersionField::Format, Location::Header)?;
        let n = self.count(Location::Header, "path_count", min_size::PATH, limits.paths)?;
        let mut paths = Vec::with_capacity(n);
        for i in 0..n {
            paths.push(self.path(i)?);
        }

        let clan_section_version =
            self.version(VersionField::ClanSection, Location::ClanSection)?;
        let n = self.count(
            Location::ClanSection,
            "clan_count",
            min_size::CLAN,
            limits.clans,
        )?;
        let mut clans = Vec::with_capacity(n);
        for i in 0..n {
            clans.push(self.clan(i)?);
        }

        let object_section_version =
            self.version(VersionField::ObjectSection, Location::ObjectSection)?;
        let loc = Location::ObjectSection;
        let n = self.count(loc, "object_count", min_size::OBJECT, limits.objects)?;
        let mut objects = Vec::with_capacity(n);
        for i in 0..n {
            objects.push(self.object(i)?);
        }

        let loc = Location::Epilogue;
        let land_path = self.lp(loc, "land_path")?;
        let mission_flag = self.u32(loc, "mission_flag")?;
        let description_raw = self.lp(loc, "description_raw")?;

        let loc = Location::ExtraSection;
        let extra_section_version = self.version(VersionField::ExtraSection, loc)?;
        let n = self.count(loc, "extra_count", min_size::EXTRA, limits.extras)?;
        let mut extras = Vec::with_capacity(n);
        for i in 0..n {
            let loc = Location::Extra(i);
            extras.push(ExtraRecord28 {
                position: self.floats(loc, "position")?,
                raw: self.words(loc, "raw")?,
            });
        }

        if self.pos != self.data.len() {
            return Err(TmaError::TrailingBytes {
                site: self.site(Location::End, "<eof>"),
                count: self.remaining() as u64,
            });
        }
        Ok(Tma {
            format_version,
            paths,
            clan_section_version,
            clans,
            object_section_version,
            objects,
            land_path,
            mission_flag,
            description_raw,
            extra_section_version,
            extras,
        })
    }

    fn path(&mut self, i: usize) -> Result<Path, TmaError> {
        let loc = Location::Path(i);
        let id = self.i32(loc, "path_id")?;
        let limit = self.opts.limits().points_per_path;
        let n = self.count(loc, "point_count", min_size::POINT, limit)?;
        let mut points = Vec::with_capacity(n);
        for _ in 0..n {
            points.push(self.floats(loc, "points")?);
        }
        Ok(Path { id, points })
    }

    fn clan(&mut self, i: usize) -> Result<Clan, TmaError> {
        let loc = Location::Clan(i);
        let limits = self.opts.limits();
        let name = self.lp(loc, "name")?;
        let raw_id = self.i32(loc, "raw_id")?;
        let anchor = self.floats(loc, "anchor")?;
        let mode_site = self.site(loc, "mode");
        let mode = self.u32(loc, "mode")?;
        let body = if mode == 0 {
            let first_resource = self.lp(loc, "first_resource")?;
            let limit = limits.spatial_groups_per_clan;
            let field = "spatial_group_count";
            let n = self.count(loc, field, min_size::SPATIAL_GROUP, limit)?;
            let mut groups = Vec::with_capacity(n);
            for g in 0..n {
                let gloc = Location::SpatialGroup { clan: i, group: g };
                let field = "record_count";
                let m = self.count(gloc, field, min_size::SPATIAL_RECORD, u32::MAX)?;
                let mut records = Vec::with_capacity(m);
                for _ in 0..m {
                    records.push(self.floats(gloc, "raw_spatial")?);
                }
                groups.push(SpatialGroup { records });
            }
            ClanBody::Spatial {
                first_resource,
                groups,
                second_resource: self.lp(loc, "second_resource")?,
                second_tag: self.i32(loc, "second_tag")?,
            }
        } else if let Some(mode) = StandardMode::from_raw(mode) {
            ClanBody::Standard {
                mode,
                resource_path_1: self.lp(loc, "resource_path_1")?,
                resource_tag_1: self.i32(loc, "resource_tag_1")?,
                resource_path_2: self.lp(loc, "resource_path_2")?,
                resource_tag_2: self.i32(loc, "resource_tag_2")?,
            }
        } else {
            return Err(TmaError::BadClanMode {
                site: mode_site,
                found: mode,
            });
        };
        let limit = limits.relations_per_clan;
        let n = self.count(loc, "relation_count", min_size::RELATION, limit)?;
        let mut relations = Vec::with_capacity(n);
        for r in 0..n {
            let rloc = Location::Relation {
                clan: i,
                relation: r,
            };
            relations.push(Relation {
                other_clan_name: self.lp(rloc, "other_clan_name")?,
                value: self.i32(rloc, "relation_value")?,
            });
        }
        Ok(Clan {
            name,
            raw_id,
            anchor,
            body,
            relations,
        })
    }

    fn object(&mut self, i: usize) -> Result<PlacedObject, TmaError> {
        let loc = Location::Object(i);
        let raw_kind = self.u32(loc, "raw_kind")?;
        let site = self.site(loc, "class_or_flags");
        let class_or_flags = self.u32(loc, "class_or_flags")?;
        if class_or_flags != CLASS_OR_FLAGS {
            let e = TmaError::BadClassOrFlags {
                site,
                found: class_or_flags,
            };
            self.tolerate(Quirk::OtherClassOrFlags, e)?;
        }
        let resource_name = self.lp(loc, "resource_name")?;
        let raw_after_resource = self.u32(loc, "raw_after_resource")?;
        let identity_or_clan_raw = self.u32(loc, "identity_or_clan_raw")?;
        let position = self.finite3(loc, "position")?;
        let orientation = self.finite3(loc, "orientation")?;
        let scale = self.finite3(loc, "scale")?;
        let instance_name = self.lp(loc, "instance_name")?;
        let raw_after_name = self.u32(loc, "raw_after_name")?;
        let link0 = self.i32(loc, "link0")?;
        let link1 = self.i32(loc, "link1")?;
        let property_schema_version = self.version(VersionField::PropertySchema, loc)?;
        let limit = self.opts.limits().properties_per_object;
        let n = self.count(loc, "property_count", min_size::PROPERTY, limit)?;
        let mut properties = Vec::with_capacity(n);
        for p in 0..n {
            let ploc = Location::Property {
                object: i,
                property: p,
            };
            properties.push(Property {
                raw_value: self.words(ploc, "raw_value")?,
                name: self.lp(ploc, "name")?,
            });
        }
        Ok(PlacedObject {
            raw_kind,
            class_or_flags,
            resource_name,
            raw_after_resource,
            identity_or_clan_raw,
            position,
            orientation,
            scale,
            instance_name,
            raw_after_name,
            link0,
            link1,
            property_schema_version,
            properties,
        })
    }
}
