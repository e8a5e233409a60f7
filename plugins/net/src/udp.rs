//! The UDP transport: one non-blocking socket, peers named by a transport id per
//! address (transport ids are not player numbers, FORMATS §13.15), a rate limit per
//! peer, and how long each peer has been silent.
//!
//! Nothing here reads a datagram's contents: a datagram is handed on whole to the
//! protocol (`iron3d_net_rules::frame` opens it, length first); the transport only
//! bounds how many it reads per call and from how many addresses.

use iron3d_abi::{ErrorKind, PluginError};
use std::collections::BTreeMap;
use std::net::{SocketAddr, ToSocketAddrs, UdpSocket};

/// The largest datagram read (bytes): the most a UDP datagram can carry.
pub const MAX_DATAGRAM: usize = 65_536;

/// The most datagrams read in one call (the rest wait in the socket for the next).
pub const MAX_READS: usize = 4_096;

/// The most peers (addresses) a host keeps: twice the most players of a match, so a
/// flood of strangers cannot make it hold state without end.
pub const MAX_PEERS: usize = 2 * iron3d_net_rules::MAX_PLAYERS;

/// Datagrams a peer may send per second on average (a match sends a few dozen).
pub const RATE_PER_SECOND: u64 = 1_000;

/// Datagrams a peer may send at once above the average.
pub const BURST: u64 = 500;

/// One non-blocking UDP socket.
#[derive(Debug)]
pub struct Udp {
    socket: UdpSocket,
    buf: Vec<u8>,
    /// Sends the system refused (a full buffer, an unreachable peer).
    pub send_errors: u64,
}

fn invalid(what: String) -> PluginError {
    PluginError::new(ErrorKind::INVALID, what)
}

/// The first address `text` names (`HOST:PORT`), or an error naming it.
pub fn resolve(text: &str) -> Result<SocketAddr, PluginError> {
    text.to_socket_addrs()
        .map_err(|e| invalid(format!("address {text:?}: {e}")))?
        .next()
        .ok_or_else(|| invalid(format!("address {text:?} names no address")))
}

impl Udp {
    /// A socket bound to `address` (`HOST:PORT`; port 0: any free port).
    pub fn bind(address: &str) -> Result<Self, PluginError> {
        let at = resolve(address)?;
        let socket =
            UdpSocket::bind(at).map_err(|e| invalid(format!("cannot listen on {at}: {e}")))?;
        socket
            .set_nonblocking(true)
            .map_err(|e| invalid(format!("socket on {at}: {e}")))?;
        Ok(Self {
            socket,
            buf: vec![0; MAX_DATAGRAM],
            send_errors: 0,
        })
    }

    /// A socket on a free port of the interface that reaches `host` (the loopback
    /// interface for a loopback host, any interface otherwise).
    pub fn towards(host: SocketAddr) -> Result<Self, PluginError> {
        let local = match (host.ip().is_loopback(), host.is_ipv4()) {
            (true, true) => "127.0.0.1:0",
            (true, false) => "[::1]:0",
            (false, true) => "0.0.0.0:0",
            (false, false) => "[::]:0",
        };
        Self::bind(local)
    }

    /// The address the socket is bound to.
    pub fn local_addr(&self) -> Option<SocketAddr> {
        self.socket.local_addr().ok()
    }

    /// The datagrams waiting, at most [`MAX_READS`], with their senders.
    pub fn receive(&mut self) -> Vec<(SocketAddr, Vec<u8>)> {
        let mut out = Vec::new();
        while out.len() < MAX_READS {
            match self.socket.recv_from(&mut self.buf) {
                Ok((n, from)) => out.push((from, self.buf[..n].to_vec())),
                // WouldBlock: nothing more now; any other error (an ICMP refusal of an
                // earlier send) says nothing about the datagrams still waiting.
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(_) => {}
            }
        }
        out
    }

    /// Sends `bytes` to `to` (a refusal is counted: the protocol resends what matters).
    pub fn send(&mut self, to: SocketAddr, bytes: &[u8]) {
        if self.socket.send_to(bytes, to).is_err() {
            self.send_errors += 1;
        }
    }
}

/// What the host knows of one address.
struct Peer {
    addr: SocketAddr,
    /// When a datagram last came (ns).
    heard_ns: u64,
    /// Tokens of the rate limit, and when they were last refilled.
    tokens: u64,
    refilled_ns: u64,
}

/// The host's peers by address, with their transport ids.
#[derive(Default)]
pub struct Peers {
    ids: BTreeMap<SocketAddr, u64>,
    peers: BTreeMap<u64, Peer>,
    next: u64,
    /// Datagrams dropped: from a new address beyond [`MAX_PEERS`], or over the rate.
    pub refused: u64,
}

impl Peers {
    /// The transport id of `addr` for a datagram that came at `now_ns`, if it may be
    /// read: a new address gets an id while there is room, and every peer is held to
    /// [`RATE_PER_SECOND`] with a [`BURST`].
    pub fn admit(&mut self, addr: SocketAddr, now_ns: u64) -> Option<u64> {
        let id = match self.ids.get(&addr) {
            Some(&id) => id,
            None if self.peers.len() < MAX_PEERS => {
                let id = self.next;
                self.next += 1;
                self.ids.insert(addr, id);
                self.peers.insert(
                    id,
                    Peer {
                        addr,
                        heard_ns: now_ns,
                        tokens: BURST,
                        refilled_ns: now_ns,
                    },
                );
                id
            }
            None => {
                self.refused += 1;
                return None;
            }
        };
        let p = self.peers.get_mut(&id)?;
        let earned = now_ns.saturating_sub(p.refilled_ns) * RATE_PER_SECOND / 1_000_000_000;
        if earned > 0 {
            p.tokens = (p.tokens + earned).min(BURST);
            p.refilled_ns = now_ns;
        }
        if p.tokens == 0 {
            self.refused += 1;
            return None;
        }
        p.tokens -= 1;
        p.heard_ns = now_ns;
        Some(id)
    }

    /// The address of transport id `id`.
    pub fn addr(&self, id: u64) -> Option<SocketAddr> {
        self.peers.get(&id).map(|p| p.addr)
    }

    /// The peers silent for longer than `limit_ns` at `now_ns`.
    pub fn silent(&self, now_ns: u64, limit_ns: u64) -> Vec<u64> {
        self.peers
            .iter()
            .filter(|(_, p)| now_ns.saturating_sub(p.heard_ns) > limit_ns)
            .map(|(&id, _)| id)
            .collect()
    }

    /// Forgets `id` (its address gets a new id if it comes back).
    pub fn forget(&mut self, id: u64) {
        if let Some(p) = self.peers.remove(&id) {
            self.ids.remove(&p.addr);
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]
    use super::*;

    fn addr(port: u16) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], port))
    }

    #[test]
    fn peers_are_bounded_in_number_and_in_rate() {
        let mut p = Peers::default();
        for k in 0..MAX_PEERS as u16 {
            assert_eq!(p.admit(addr(1000 + k), 0), Some(u64::from(k)));
        }
        assert_eq!(p.admit(addr(9), 0), None, "no room for a stranger");
        assert_eq!(p.refused, 1);
        // A burst, then nothing until the rate refills.
        let mut passed = 0;
        for _ in 0..2 * BURST {
            passed += u64::from(p.admit(addr(1000), 0).is_some());
        }
        assert_eq!(passed, BURST - 1, "the first datagram took one token");
        assert!(p.admit(addr(1000), 0).is_none());
        assert!(
            p.admit(addr(1000), 10_000_000).is_some(),
            "10 ms: 10 tokens"
        );
        // Silence and forgetting.
        assert_eq!(p.silent(1_600_000_000, 1_595_000_000).len(), MAX_PEERS - 1);
        p.forget(0);
        assert_eq!(p.admit(addr(1000), 0), Some(MAX_PEERS as u64), "a new id");
    }

    #[test]
    fn bad_addresses_are_named() {
        let e = resolve("nowhere").unwrap_err();
        assert!(e.message.contains("\"nowhere\""), "{}", e.message);
        let Err(e) = Udp::bind("256.0.0.1:5") else {
            panic!("bound an address that does not parse")
        };
        assert!(e.message.contains("256.0.0.1:5"), "{}", e.message);
    }

    /// Two sockets on the loopback interface talk; the transport reads what came.
    #[test]
    fn datagrams_cross_the_loopback_interface() {
        let mut a = Udp::bind("127.0.0.1:0").unwrap();
        let b_addr = a.local_addr().unwrap();
        let mut b = Udp::towards(b_addr).unwrap();
        b.send(b_addr, b"hello");
        let mut got = Vec::new();
        for _ in 0..100 {
            got.extend(a.receive());
            if !got.is_empty() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].1, b"hello");
        assert_eq!(Some(got[0].0), b.local_addr());
    }
}
