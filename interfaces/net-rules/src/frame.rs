//! The datagram framing under [`renet`]: renet drops a connection on any packet it
//! cannot read, so a datagram reaches it only once it passed [`open`] — magic, protocol
//! version, the connection's key and a checksum over all of it. A stray, truncated,
//! corrupted or spoofed-off-path datagram is counted and dropped by the transport and
//! never ends a connection (PD-NET-FRAME).
//!
//! ```text
//! offset size
//!      0    4  magic "I3DN"
//!      4    1  protocol version (crate::PROTOCOL_VERSION, low byte)
//!      5    8  connection key (u64 LE, drawn by the client for its connection)
//!     13    8  checksum: the first 8 bytes of BLAKE3 over bytes 0..13 and the payload
//!     21    …  renet packet
//! ```
//!
//! The key keeps datagrams of another connection (or another match on the same port)
//! apart and makes blind spoofing a 64-bit guess; it is no protection against an
//! attacker on the path (that would take the encrypted `renet_netcode` transport: a
//! match among strangers on the open internet is out of this crate's scope, named in
//! the crate docs).

/// The magic of every datagram.
pub const MAGIC: [u8; 4] = *b"I3DN";
/// Header bytes before the payload.
pub const HEADER_BYTES: usize = 21;
/// The largest datagram taken (renet's packets stay under 1,400 bytes).
pub const MAX_DATAGRAM_BYTES: usize = 1400 + HEADER_BYTES;

/// Why a datagram was dropped.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    /// Shorter than the header, or longer than [`MAX_DATAGRAM_BYTES`].
    #[error("datagram of {len} bytes: {HEADER_BYTES}..={MAX_DATAGRAM_BYTES} expected")]
    Length {
        /// Its length.
        len: usize,
    },
    /// Not ours.
    #[error("datagram without the I3DN magic")]
    Magic,
    /// Another protocol version.
    #[error(
        "datagram of protocol version {version}, this is {}",
        crate::PROTOCOL_VERSION
    )]
    Version {
        /// Its version byte.
        version: u8,
    },
    /// Another connection's key.
    #[error("datagram for another connection")]
    Key,
    /// Corrupted.
    #[error("datagram checksum mismatch")]
    Checksum,
}

fn checksum(head: &[u8], payload: &[u8]) -> [u8; 8] {
    let mut h = blake3::Hasher::new();
    h.update(head);
    h.update(payload);
    let mut out = [0; 8];
    out.copy_from_slice(&h.finalize().as_bytes()[..8]);
    out
}

/// The datagram carrying `payload` on the connection `key`.
pub fn seal(key: u64, payload: &[u8]) -> Vec<u8> {
    let mut d = Vec::with_capacity(HEADER_BYTES + payload.len());
    d.extend_from_slice(&MAGIC);
    d.push(crate::PROTOCOL_VERSION as u8);
    d.extend_from_slice(&key.to_le_bytes());
    let sum = checksum(&d, payload);
    d.extend_from_slice(&sum);
    d.extend_from_slice(payload);
    d
}

/// A keep-alive: a datagram with no payload on connection `key` (PD-NET-KEEPALIVE: a
/// peer with nothing else to send sends one a second, so silence means gone, even in
/// the lobby; it never reaches renet).
pub fn keepalive(key: u64) -> Vec<u8> {
    seal(key, &[])
}

/// The connection key a datagram names, once its length, magic and version are right
/// (a server learns new connections' keys from their first datagram).
pub fn key_of(datagram: &[u8]) -> Result<u64, FrameError> {
    if datagram.len() < HEADER_BYTES || datagram.len() > MAX_DATAGRAM_BYTES {
        return Err(FrameError::Length {
            len: datagram.len(),
        });
    }
    if datagram[..4] != MAGIC {
        return Err(FrameError::Magic);
    }
    if datagram[4] != crate::PROTOCOL_VERSION as u8 {
        return Err(FrameError::Version {
            version: datagram[4],
        });
    }
    let mut k = [0; 8];
    k.copy_from_slice(&datagram[5..13]);
    Ok(u64::from_le_bytes(k))
}

/// The renet packet of a datagram for connection `key`.
pub fn open(key: u64, datagram: &[u8]) -> Result<&[u8], FrameError> {
    if key_of(datagram)? != key {
        return Err(FrameError::Key);
    }
    let (head, rest) = datagram.split_at(13);
    let (sum, payload) = rest.split_at(8);
    if checksum(head, payload) != sum {
        return Err(FrameError::Checksum);
    }
    Ok(payload)
}

/// What a fuzzer checks on any bytes: never a panic; what opens reseals to itself.
pub fn fuzz_check(bytes: &[u8]) {
    if let Ok(key) = key_of(bytes) {
        if let Ok(p) = open(key, bytes) {
            assert_eq!(seal(key, p), bytes);
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]
    use super::*;

    #[test]
    fn a_datagram_opens_only_whole_and_for_its_connection() {
        let d = seal(7, b"packet");
        assert_eq!(open(7, &d).unwrap(), b"packet");
        assert_eq!(key_of(&d), Ok(7));
        assert_eq!(open(8, &d), Err(FrameError::Key));
        assert_eq!(open(7, &d[..20]), Err(FrameError::Length { len: 20 }));
        for at in 0..d.len() {
            let mut bad = d.clone();
            bad[at] ^= 0x10;
            assert!(open(7, &bad).is_err(), "a flip at {at} is caught");
        }
        let mut other = d.clone();
        other[4] = 99;
        assert_eq!(key_of(&other), Err(FrameError::Version { version: 99 }));
        assert_eq!(
            open(7, b"NOPE and more bytes than a header"),
            Err(FrameError::Magic)
        );
    }

    /// FORMATS §13.15 "check the length before reading a payload": a datagram cut
    /// anywhere is refused — by its length up to the header, by the checksum after it
    /// (renet never sees a partial packet) — and so is one with a byte more.
    #[test]
    fn every_truncated_datagram_is_refused() {
        let d = seal(0x1234_5678_9ABC_DEF0, b"a renet packet of some length");
        for cut in 0..d.len() {
            let e = open(0x1234_5678_9ABC_DEF0, &d[..cut]).unwrap_err();
            if cut < HEADER_BYTES {
                assert_eq!(e, FrameError::Length { len: cut });
            } else {
                assert_eq!(e, FrameError::Checksum, "cut at {cut}");
            }
        }
        let mut long = d.clone();
        long.push(0);
        assert_eq!(
            open(0x1234_5678_9ABC_DEF0, &long),
            Err(FrameError::Checksum)
        );
        let huge = seal(1, &[0; MAX_DATAGRAM_BYTES]);
        assert_eq!(
            key_of(&huge),
            Err(FrameError::Length {
                len: MAX_DATAGRAM_BYTES + HEADER_BYTES
            })
        );
    }

    proptest::proptest! {
        #[test]
        fn any_bytes_are_handled(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..64)) {
            fuzz_check(&bytes);
        }
    }
}
