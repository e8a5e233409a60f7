//! The lossless writer: emits every field of a [`Tma`] in grammar order. Since the reader
//! keeps every word, float bit pattern and string byte, `to_bytes(parse(b)) == b` for
//! every accepted input, strict or compatible.

use crate::error::{Location, Site, TmaError};
use crate::model::{Clan, ClanBody, PlacedObject, RawF32, Tma};
use crate::options::{Diagnostic, ReadOptions};
use crate::text::LpString;

impl Tma {
    /// Serialises the mission. Fails only when a count or string length does not fit its
    /// `u32` field ([`crate::Check::WriteLength`]), which cannot happen for a parsed file.
    pub fn to_bytes(&self) -> Result<Vec<u8>, TmaError> {
        let mut w = Writer { out: Vec::new() };
        w.tma(self)?;
        Ok(w.out)
    }

    /// Serialises the mission and reads it back with `options`: `Ok(diagnostics)` when the
    /// reader accepts it (always empty with [`ReadOptions::strict`]), else the first
    /// failure. Use it to validate an authored mission before shipping it.
    pub fn validate(&self, options: ReadOptions) -> Result<Vec<Diagnostic>, TmaError> {
        let bytes = self.to_bytes()?;
        Tma::parse_with(&bytes, options).map(|p| p.diagnostics)
    }
}

struct Writer {
    out: Vec<u8>,
}

impl Writer {
    fn u32(&mut self, v: u32) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }

    fn i32(&mut self, v: i32) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }

    fn floats(&mut self, v: &[RawF32]) {
        for f in v {
            self.u32(f.bits());
        }
    }

    fn count(
        &mut self,
        len: usize,
        location: Location,
        field: &'static str,
    ) -> Result<(), TmaError> {
        let v = u32::try_from(len).map_err(|_| TmaError::TooLong {
            site: Site {
                location,
                field,
                offset: self.out.len() as u64,
            },
            len: len as u64,
        })?;
        self.u32(v);
        Ok(())
    }

    fn lp(
        &mut self,
        s: &LpString,
        location: Location,
        field: &'static str,
    ) -> Result<(), TmaError> {
        self.count(s.len(), location, field)?;
        self.out.extend_from_slice(s.as_bytes());
        Ok(())
    }

    fn tma(&mut self, t: &Tma) -> Result<(), TmaError> {
        self.u32(t.format_version);
        self.count(t.paths.len(), Location::Header, "path_count")?;
        for (i, p) in t.paths.iter().enumerate() {
            self.i32(p.id);
            self.count(p.points.len(), Location::Path(i), "point_count")?;
            for point in &p.points {
                self.floats(point);
            }
        }
        self.u32(t.clan_section_version);
        self.count(t.clans.len(), Location::ClanSection, "clan_count")?;
        for (i, c) in t.clans.iter().enumerate() {
            self.clan(i, c)?;
        }
        self.u32(t.object_section_version);
        self.count(t.objects.len(), Location::ObjectSection, "object_count")?;
        for (i, o) in t.objects.iter().enumerate() {
            self.object(i, o)?;
        }
        self.lp(&t.land_path, Location::Epilogue, "land_path")?;
        self.u32(t.mission_flag);
        self.lp(&t.description_raw, Location::Epilogue, "description_raw")?;
        self.u32(t.extra_section_version);
        self.count(t.extras.len(), Location::ExtraSection, "extra_count")?;
        for e in &t.extras {
            self.floats(&e.position);
            for w in e.raw {
                self.u32(w);
            }
        }
        Ok(())
    }

    fn clan(&mut self, i: usize, c: &Clan) -> Result<(), TmaError> {
        let loc = Location::Clan(i);
        self.lp(&c.name, loc, "name")?;
        self.i32(c.raw_id);
        self.floats(&c.anchor);
        self.u32(c.mode());
        match &c.body {
            ClanBody::Standard {
                resource_path_1,
                resource_tag_1,
                resource_path_2,
                resource_tag_2,
                ..
            } => {
                self.lp(resource_path_1, loc, "resource_path_1")?;
                self.i32(*resource_tag_1);
                self.lp(resource_path_2, loc, "resource_path_2")?;
                self.i32(*resource_tag_2);
            }
            ClanBody::Spatial {
                first_resource,
                groups,
                second_resource,
                second_tag,
            } => {
                self.lp(first_resource, loc, "first_resource")?;
                self.count(groups.len(), loc, "spatial_group_count")?;
                for (g, group) in groups.iter().enumerate() {
                    let gloc = Location::SpatialGroup { clan: i, group: g };
                    self.count(group.records.len(), gloc, "record_count")?;
                    for r in &group.records {
                        self.floats(r);
                    }
                }
                self.lp(second_resource, loc, "second_resource")?;
                self.i32(*second_tag);
            }
        }
        self.count(c.relations.len(), loc, "relation_count")?;
        for (r, rel) in c.relations.iter().enumerate() {
            let rloc = Location::Relation {
                clan: i,
                relation: r,
            };
            self.lp(&rel.other_clan_name, rloc, "other_clan_name")?;
            self.i32(rel.value);
        }
        Ok(())
    }

    fn object(&mut self, i: usize, o: &PlacedObject) -> Result<(), TmaError> {
        let loc = Location::Object(i);
        self.u32(o.raw_kind);
        self.u32(o.class_or_flags);
        self.lp(&o.resource_name, loc, "resource_name")?;
        self.u32(o.raw_after_resource);
        self.u32(o.identity_or_clan_raw);
        self.floats(&o.position);
        self.floats(&o.orientation);
        self.floats(&o.scale);
        self.lp(&o.instance_name, loc, "instance_name")?;
        self.u32(o.raw_after_name);
        self.i32(o.link0);
        self.i32(o.link1);
        self.u32(o.property_schema_version);
        self.count(o.properties.len(), loc, "property_count")?;
        for (p, prop) in o.properties.iter().enumerate() {
            for w in prop.raw_value {
                self.u32(w);
            }
            let ploc = Location::Property {
                object: i,
                property: p,
            };
            self.lp(&prop.name, ploc, "name")?;
        }
        Ok(())
    }
}
