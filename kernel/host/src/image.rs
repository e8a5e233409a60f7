//! The image check before a plugin library is mapped: a regular file, an ELF of this
//! machine whose program headers, segments and section headers all lie inside the file,
//! with the Iron3D plugin entry point among its dynamic symbols.
//!
//! The dynamic loader maps a file's segments as they are declared; a file cut short
//! (a truncated download, a half-copied build) declares segments past its end, and the
//! first touch of such a page is a `SIGBUS` that ends the process — no error to catch.
//! So the bytes are checked here, before `dlopen`, and the shadow copy that is mapped is
//! written from the very bytes checked (rule PD-HOST-IMAGE-CHECK). A library that is an
//! ELF but not a plugin (libm, a C library) is refused here by name too, instead of with
//! the loader's `undefined symbol` text.

use crate::error::HostError;
use iron3d_abi::root::LOADER_SYMBOL;
use object::elf::{ELFMAG, SHT_DYNSYM};
use object::read::elf::{FileHeader, ProgramHeader, SectionHeader};
use object::{Endianness, elf::FileHeader64};
use std::path::Path;

/// `EI_CLASS` of a 64-bit ELF.
const CLASS_64: u8 = 2;

/// Checks `bytes` (the contents of `path`) before they are mapped.
///
/// # Errors
/// [`HostError::NotAPlugin`] saying what is wrong.
pub fn check(path: &Path, bytes: &[u8]) -> Result<(), HostError> {
    // Every refusal says the same first (the message issue 35 asks for), then why.
    let refuse = |why: String| HostError::NotAPlugin {
        path: path.to_owned(),
        why: format!("not an Iron3D plugin: {why}"),
    };
    if bytes.len() < 16 || bytes[..4] != ELFMAG {
        return Err(refuse(format!(
            "not an ELF shared library ({} bytes, starts with {:02x?})",
            bytes.len(),
            &bytes[..bytes.len().min(4)]
        )));
    }
    if bytes[4] != CLASS_64 || !cfg!(target_pointer_width = "64") {
        return Err(refuse("not a 64-bit ELF library".to_owned()));
    }
    let header = FileHeader64::<Endianness>::parse(bytes)
        .map_err(|e| refuse(format!("its ELF header does not parse: {e}")))?;
    let endian = header
        .endian()
        .map_err(|e| refuse(format!("its ELF header does not parse: {e}")))?;
    let len = bytes.len() as u64;
    let programs = header
        .program_headers(endian, bytes)
        .map_err(|e| refuse(format!("its program headers lie outside the file: {e}")))?;
    for (k, ph) in programs.iter().enumerate() {
        let (offset, size) = (ph.p_offset(endian), ph.p_filesz(endian));
        if offset.checked_add(size).is_none_or(|end| end > len) {
            return Err(refuse(format!(
                "segment {k} needs bytes {offset}..{} but the file has {len} (cut short?)",
                offset.saturating_add(size)
            )));
        }
    }
    let sections = header.sections(endian, bytes).map_err(|e| {
        refuse(format!(
            "its section headers lie outside the file (cut short?): {e}"
        ))
    })?;
    for (k, sh) in sections.iter().enumerate() {
        if sh.sh_type(endian) == object::elf::SHT_NOBITS {
            continue;
        }
        if sh
            .file_range(endian)
            .is_some_and(|(o, s)| o.checked_add(s).is_none_or(|e| e > len))
        {
            return Err(refuse(format!(
                "section {k} lies outside the file of {len} bytes (cut short?)"
            )));
        }
    }
    let symbols = sections
        .symbols(endian, bytes, SHT_DYNSYM)
        .map_err(|e| refuse(format!("its dynamic symbols do not parse: {e}")))?;
    let exported = symbols.iter().any(|s| {
        symbols
            .symbol_name(endian, s)
            .is_ok_and(|name| name == LOADER_SYMBOL.as_bytes())
    });
    if !exported {
        return Err(refuse(format!(
            "it exports no `{LOADER_SYMBOL}` (build it with iron3d_abi::export_plugin!)"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_not_an_elf_is_refused_by_name() {
        let p = Path::new("/x/libnot.so");
        for bytes in [&b""[..], b"\x7fEL", b"#!/bin/sh\necho hi\n", &[0u8; 64]] {
            let e = check(p, bytes).unwrap_err().to_string();
            assert!(e.contains("libnot.so") && e.contains("not an ELF"), "{e}");
        }
        let mut elf32 = vec![0u8; 64];
        elf32[..4].copy_from_slice(&ELFMAG);
        elf32[4] = 1;
        assert!(check(p, &elf32).unwrap_err().to_string().contains("64-bit"));
        let mut garbage = vec![0xffu8; 64];
        garbage[..4].copy_from_slice(&ELFMAG);
        garbage[4] = CLASS_64;
        assert!(check(p, &garbage).is_err());
    }
}
