//! Standing orders of a mission, in a project format: what a mission designer tells
//! placed units to do when the mission starts (the original's scripts would; their
//! grammar is not decoded). `Orders.txt` next to `data.tma`, read through the
//! mission's VFS; one order per line, `//` comments, blank lines skipped:
//!
//! ```text
//! // move <placed object index in data.tma> <x> <y>
//! move 3 120 40
//! move 4 120 44.5
//! ```
//!
//! A `move` is the same order as the `ORDER_MOVE` message the `ai` plugin obeys
//! (`iron3d_gameplay::orders`): the unit drives there (Behavior's `Move`, outranked by
//! attack and flee) and forgets the order on arrival. An order for an object that does not drive is ignored; a second order
//! for the same object replaces the first. At most [`MAX_ORDERS`] lines of orders;
//! anything malformed is an error naming the file, line and token.

use crate::ConfigError;
use std::collections::BTreeMap;

/// The file.
pub const ORDERS_FILE: &str = "Orders.txt";
/// Most orders one file may give.
pub const MAX_ORDERS: usize = 65_536;

/// Parses `Orders.txt`: placed-object index → destination `(x, y)`.
pub fn parse(bytes: &[u8], origin: &str) -> Result<BTreeMap<usize, [f32; 2]>, ConfigError> {
    let err = |line: usize, what: String| ConfigError::at(origin, line, 1, what);
    let mut out = BTreeMap::new();
    let mut count = 0usize;
    for (k, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = k + 1;
        let text = String::from_utf8_lossy(raw);
        let text = text.split("//").next().unwrap_or_default();
        let toks: Vec<&str> = text.split_whitespace().collect();
        match toks.as_slice() {
            [] => {}
            ["move", index, x, y] => {
                let index: usize = index.parse().map_err(|_| {
                    err(
                        line,
                        format!("object index {index:?} is not a whole number"),
                    )
                })?;
                let coord = |t: &str| match t.parse::<f32>() {
                    Ok(v) if v.is_finite() => Ok(v),
                    _ => Err(err(
                        line,
                        format!("coordinate {t:?} is not a finite number"),
                    )),
                };
                count += 1;
                if count > MAX_ORDERS {
                    return Err(err(line, format!("more than {MAX_ORDERS} orders")));
                }
                out.insert(index, [coord(x)?, coord(y)?]);
            }
            ["move", ..] => {
                return Err(err(
                    line,
                    format!(
                        "'move' takes 3 tokens (index x y), found {}",
                        toks.len() - 1
                    ),
                ));
            }
            [other, ..] => return Err(err(line, format!("unknown order '{other}'"))),
        }
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn orders_parse_and_the_last_one_wins() {
        let o = parse(
            b"// start\r\nmove 3 120 40\r\n\r\nmove 4 1.5 -2 // east\r\nmove 3 7 8\r\n",
            "Orders.txt",
        )
        .unwrap();
        assert_eq!(o.len(), 2);
        assert_eq!(o[&3], [7.0, 8.0]);
        assert_eq!(o[&4], [1.5, -2.0]);
    }

    #[test]
    fn malformed_orders_name_the_line() {
        for (text, line, what) in [
            (&b"move 1 2\n"[..], 1, "takes 3 tokens"),
            (b"\nmove x 1 2\n", 2, "\"x\" is not a whole number"),
            (b"move 1 nan 2\n", 1, "not a finite number"),
            (b"attack 1\n", 1, "unknown order 'attack'"),
        ] {
            let e = parse(text, "M/Orders.txt").unwrap_err().to_string();
            assert!(e.contains(&format!("M/Orders.txt:{line}:")), "{e}");
            assert!(e.contains(what), "{e}");
        }
    }
}
