//! The single error type of the crate, with the area index, field, payload offset and
//! expected vs found values of every failure.

use iron3d_nres::NresError;

/// Everything that can go wrong reading, validating, packing or building a `Land.map`.
///
/// Offsets named `offset` are byte offsets **inside the type-12 payload** (add the
/// entry's `data_offset` for a file offset).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LandMapError {
    /// The NRes container itself was refused.
    #[error("[nres] {0}")]
    Nres(#[from] NresError),
    /// The archive does not hold exactly one entry.
    #[error("[entry_count] expected exactly 1 NRes entry, found {found}")]
    EntryCount {
        /// Entries present.
        found: usize,
    },
    /// The single entry is not of type 12.
    #[error("[entry_type] expected NRes type_id 12, found {found}")]
    EntryType {
        /// The `type_id` found.
        found: u32,
    },
    /// A fixed-size field runs past the end of the payload.
    #[error(
        "[truncated] area {area:?} field {field} at offset {offset:#x}: expected {expected} bytes, found {found}"
    )]
    Truncated {
        /// Area index, if inside an areal.
        area: Option<usize>,
        /// Field name.
        field: &'static str,
        /// Payload offset of the field.
        offset: usize,
        /// Bytes the field needs.
        expected: u64,
        /// Bytes left.
        found: u64,
    },
    /// A count times its minimum record size exceeds the bytes left (checked before
    /// anything is allocated).
    #[error(
        "[count] area {area:?} field {field} at offset {offset:#x}: count {count} x {stride} bytes exceeds the {remaining} bytes left"
    )]
    CountTooLarge {
        /// Area index, if inside an areal.
        area: Option<usize>,
        /// Field name.
        field: &'static str,
        /// Payload offset of the counted array (or of the count).
        offset: usize,
        /// The declared count.
        count: u64,
        /// Minimum bytes per element.
        stride: u64,
        /// Bytes left.
        remaining: u64,
    },
    /// An edge link has one negative and one non-negative half, or a negative value
    /// other than `(-1, -1)`.
    #[error(
        "[link_sign] area {area} link {link} at offset {offset:#x}: expected (-1,-1) or both >= 0, found ({area_ref},{edge_ref})"
    )]
    LinkSign {
        /// Area index.
        area: usize,
        /// Link index in that area.
        link: usize,
        /// Payload offset of the link (unknown for a built model: `0`).
        offset: usize,
        /// `area_ref` found.
        area_ref: i32,
        /// `edge_ref` found.
        edge_ref: i32,
    },
    /// A link names an area that does not exist.
    #[error(
        "[link_area] area {area} link {link} at offset {offset:#x}: area_ref {area_ref} not < areal count {areal_count}"
    )]
    LinkArea {
        /// Area index.
        area: usize,
        /// Link index in that area.
        link: usize,
        /// Payload offset of the link.
        offset: usize,
        /// `area_ref` found.
        area_ref: i32,
        /// Number of areals.
        areal_count: usize,
    },
    /// A link names an edge past the target area's link array.
    #[error(
        "[link_edge] area {area} link {link} at offset {offset:#x}: edge_ref {edge_ref} not < {target_links} links of area {target}"
    )]
    LinkEdge {
        /// Area index.
        area: usize,
        /// Link index in that area.
        link: usize,
        /// Payload offset of the link.
        offset: usize,
        /// Target area.
        target: usize,
        /// `edge_ref` found.
        edge_ref: i32,
        /// Links of the target area.
        target_links: usize,
    },
    /// The model's link array does not have `vertex_count + 3 * poly_count` entries.
    #[error("[link_count] area {area}: expected {expected} links, found {found}")]
    LinkCount {
        /// Area index.
        area: usize,
        /// `vertex_count + 3 * poly_count`.
        expected: u64,
        /// Links present.
        found: usize,
    },
    /// A polygon block's raw bytes do not match `4 * (3n + 1)`.
    #[error("[poly_block] area {area} block {block}: expected {expected} raw bytes, found {found}")]
    PolyBlockSize {
        /// Area index.
        area: usize,
        /// Block index.
        block: usize,
        /// `4 * (3n + 1)`.
        expected: u64,
        /// Bytes present.
        found: usize,
    },
    /// `cellsX` or `cellsY` is zero (or the cell vector does not match them).
    #[error("[grid_size] at offset {offset:#x}: grid {cells_x} x {cells_y} with {cells} cells")]
    GridSize {
        /// Payload offset of `cellsX`.
        offset: usize,
        /// `cellsX`.
        cells_x: u32,
        /// `cellsY`.
        cells_y: u32,
        /// Cells present.
        cells: u64,
    },
    /// A cell names an area that does not exist.
    #[error(
        "[cell_id] cell {cell} at offset {offset:#x}: area id {id} not < areal count {areal_count}"
    )]
    CellId {
        /// Cell index (`y * cellsX + x`).
        cell: usize,
        /// Payload offset of the id.
        offset: usize,
        /// Id found.
        id: u16,
        /// Number of areals.
        areal_count: usize,
    },
    /// Bytes remain after the last cell.
    #[error("[trailing] at offset {offset:#x}: expected end of payload, found {extra} more bytes")]
    TrailingBytes {
        /// Payload offset where the payload should end.
        offset: usize,
        /// Extra bytes.
        extra: usize,
    },
    /// A value does not fit its field (runtime cell packing, u16 ids, u32 counts).
    #[error("[overflow] {field}: value {value} exceeds maximum {max}")]
    Overflow {
        /// Field name.
        field: &'static str,
        /// Value found.
        value: u64,
        /// Largest allowed value.
        max: u64,
    },
    /// Authoring input that cannot make a valid map.
    #[error("[build] area {area:?}: {reason}")]
    Build {
        /// Area concerned, if any.
        area: Option<usize>,
        /// What is wrong.
        reason: &'static str,
    },
}
