//! Texm textures of Iron3D (Parkan: Iron Strategy): a strict zero-copy reader, RGBA8
//! decoding and encoding of every pixel format, mip chains, the `Page` atlas chunk,
//! mip-skip, palettes and palette slots, a writer and a lossless re-serialiser. A pure
//! library over `&[u8]`: no file I/O, no kernel.
//!
//! # Layout (FORMATS §9, tome V "Texm"; all integers little-endian)
//!
//! ```text
//! 0x000 ┌────────────────────────────┐
//!       │ TexmHeader32 (32)          │ "Texm" | width | height | mip_count | flags4
//!       │                            │ | flags5 | unknown6 | format      (see `Header`)
//! 0x020 ├────────────────────────────┤
//!       │ palette 256 × RGBA (1024)  │ only if format == 0
//!       ├────────────────────────────┤ chain_offset = 32 or 1056
//!       │ level 0 .. mip_count-1     │ level i: max(1, w >> i) × max(1, h >> i) pixels,
//!       │ tightly packed             │ 1, 2 or 4 bytes each (see `PixelFormat`)
//!       ├────────────────────────────┤
//!       │ [Page chunk]               │ "Page" | u32 n | n × {i16 x, w, y, h}
//! end   └────────────────────────────┘ exactly; nothing else may follow the chain
//! ```
//!
//! # Use
//!
//! ```
//! use iron3d_texm::{PixelFormat, PageRect, RgbaImage, Texm, TexmWriter};
//!
//! let base = RgbaImage::filled(4, 2, [255, 0, 0, 255])?;
//! let rect = PageRect { x: 0, width: 3, y: 0, height: 2 };
//! let bytes = TexmWriter::new(PixelFormat::Rgb565)
//!     .with_page(vec![rect])
//!     .write(&base.mip_chain(3))?;
//!
//! let texm = Texm::parse(&bytes)?;
//! assert_eq!((texm.width(), texm.height(), texm.mip_count()), (4, 2, 3));
//! assert_eq!(texm.level(1)?.bytes().len(), 2 * 1 * 2);
//! assert_eq!(texm.decode_level(2)?.pixel(0, 0), Some([255, 0, 0, 255]));
//! assert_eq!(texm.to_bytes(), bytes);
//!
//! let skipped = texm.skip_mips(1)?;
//! assert_eq!((skipped.width(), skipped.height()), (2, 1));
//! assert_eq!(skipped.page_rects(), [PageRect { x: 0, width: 2, y: 0, height: 1 }]);
//! # Ok::<(), iron3d_texm::TexmError>(())
//! ```
//!
//! # Decisions where the sources leave a choice
//!
//! * **Channel positions** are those of FORMATS §9.3 (from fparkan source); the tomes give
//!   only channel names. 556 is read as R in bits 15–11, G in 10–6, B (6 bits) in 5–0 —
//!   the spec names the channels in MSB-to-LSB order, like 565. 88 is L in the high byte
//!   (byte 1), A in the low byte (byte 0). 888 is bytes R, G, B, pad; 8888 is bytes
//!   A, R, G, B.
//! * **Expansion** replicates bits (project decision 2); quantisation picks the code
//!   whose expansion is nearest (ties → smaller code), see [`codec`].
//! * **Palette alpha**: the 4th palette byte is alpha (FORMATS §9.3, from fparkan source);
//!   [`PaletteAlpha::Opaque`] is a named alternative.
//! * **Indexed encoding** uses the caller's palette, or builds one deterministically
//!   (exact up to 256 colours, else median cut; see [`palette`]).
//! * **Page rescaling** scales by `new_size / base_size` with floor origin and ceil end
//!   ([`page`]); FORMATS gives the floor/ceil policy as FParkan's, the ratio is ours.
//! * **Trailing bytes**: a tail that does not start with `Page` fails
//!   [`Check::TrailingBytes`]; a tail that is a cut-off `Page` header fails
//!   [`Check::PageHeader`]; any other length mismatch fails [`Check::PageSize`].
//! * **Extra levels**: `mip_count` may exceed the full chain (levels past 1×1 stay 1×1);
//!   neither source forbids it, so the reader accepts it.
//! * **Palette suffixes** fold `a..z` to `A..Z` ([`PaletteSlot`]).

pub mod chain;
pub mod codec;
mod error;
pub mod fuzz_check;
mod header;
mod image;
pub mod page;
pub mod palette;
mod stats;
mod texm;
mod write;

pub use chain::{LevelGeometry, MipChain, level_dimensions};
pub use codec::{PaletteAlpha, decode_pixels, encode_pixels};
pub use error::{Check, SuffixProblem, TexmError};
pub use header::{HEADER_SIZE, Header, HeaderField, PALETTE_SIZE, PixelFormat, TEXM_MAGIC};
pub use image::RgbaImage;
pub use page::{PAGE_MAGIC, Page, PageRect, encode_page, rescale_page_rect, rescale_page_rects};
pub use palette::{Palette, PaletteSlot};
pub use stats::TexmStats;
pub use texm::{DecodeOptions, MipLevel, MipSkip, Texm};
pub use write::{RawParts, TexmWriter, write_raw};

#[cfg(test)]
mod tests;
