//! `Objectives.txt`: mission objectives in a project format (the `ai` plugin checks
//! them and reports the outcome through the callback of FORMATS §13.11).
//!
//! The instruction grammar of the original `.scr` is not decoded (FORMATS §11.10), so
//! an original mission's own objectives cannot be run. Missions of our own content
//! declare theirs in `Objectives.txt` next to `data.tma` (read through the mission's
//! VFS: the mission directory first, then the game root). CP1251/ASCII text, one
//! statement per line; blank lines and lines starting with `//` are skipped; tokens are
//! separated by white space:
//!
//! ```text
//! // The player's clan: the SuperAI slot the objectives speak for.
//! clan 0
//! // Any `win` met → mission complete, (0,0,1).
//! win destroy 1            // clan 1 has no object with life left
//! win gather 500           // the clan unloaded 500 ore into its storages
//! win hold 100 120 15 30   // a unit of the clan within 15 of (100, 120), no enemy
//!                          // unit there, for 30 s without a break
//! win survive 300          // 300 s of game time passed
//! // Any `lose` met → mission failed, (0,0,0).
//! lose destroyed           // the clan has no object with life left
//! lose gathered 1 800      // clan 1 unloaded 800 ore into its storages first
//! lose time 600            // 600 s passed
//! ```
//!
//! * `clan` must come once, before any objective; numbers are decimal (`hold` takes
//!   floats); at most [`MAX_OBJECTIVES`] objectives; anything else is an error naming
//!   the file, line and token.
//! * errors are [`ConfigError`]s naming the file, line and the column of the token.

use crate::ConfigError;

/// The file a mission declares its objectives in.
pub const OBJECTIVES_FILE: &str = "Objectives.txt";
/// Most objectives one file may declare.
pub const MAX_OBJECTIVES: usize = 64;

/// One condition.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Goal {
    /// Clan `n` has no object with life left.
    Destroy(u32),
    /// The player's clan unloaded this much ore.
    Gather(f32),
    /// Hold the circle `(x, y, r)` for `s` seconds.
    Hold {
        /// Centre.
        x: f32,
        /// Centre.
        y: f32,
        /// Radius.
        r: f32,
        /// Seconds.
        seconds: f32,
    },
    /// This many seconds passed.
    Survive(f32),
    /// The player's clan has no object with life left.
    Destroyed,
    /// Clan `clan` unloaded this much ore (a rival's race).
    Gathered {
        /// The rival clan.
        clan: u32,
        /// Ore.
        amount: f32,
    },
    /// This many seconds passed (a `lose` deadline).
    Time(f32),
}

/// Whether a goal wins or loses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// Mission complete.
    Win,
    /// Mission failed.
    Lose,
}

/// A mission's objectives.
#[derive(Clone, Debug, PartialEq)]
pub struct Objectives {
    /// The player's clan (SuperAI slot).
    pub clan: u32,
    /// The objectives in file order.
    pub goals: Vec<(Side, Goal)>,
}

fn err(origin: &str, line: usize, what: String) -> ConfigError {
    ConfigError::at(origin, line, 1, what)
}

impl Objectives {
    /// Parses `Objectives.txt` (see the module docs); `origin` names the file in errors.
    pub fn parse(bytes: &[u8], origin: &str) -> Result<Self, ConfigError> {
        let mut clan = None;
        let mut goals = Vec::new();
        for (k, raw) in bytes.split(|&b| b == b'\n').enumerate() {
            let line = k + 1;
            let text = String::from_utf8_lossy(raw);
            let text = match text.find("//") {
                Some(p) => &text[..p],
                None => &text[..],
            };
            let toks: Vec<&str> = text.split_whitespace().collect();
            let Some((&head, args)) = toks.split_first() else {
                continue;
            };
            let token = |i: usize, what: &str| -> Result<&str, ConfigError> {
                args.get(i).copied().ok_or_else(|| {
                    err(
                        origin,
                        line,
                        format!("'{head}' needs {what} (token {})", i + 2),
                    )
                })
            };
            let num = |i: usize, what: &str| -> Result<f32, ConfigError> {
                let t = token(i, what)?;
                match t.parse::<f32>() {
                    Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
                    _ => Err(err(
                        origin,
                        line,
                        format!("{what} {t:?} is not a non-negative number"),
                    )),
                }
            };
            let int = |i: usize, what: &str| -> Result<u32, ConfigError> {
                let t = token(i, what)?;
                t.parse::<u32>()
                    .map_err(|_| err(origin, line, format!("{what} {t:?} is not a whole number")))
            };
            let arity = |n: usize| -> Result<(), ConfigError> {
                if args.len() == n {
                    Ok(())
                } else {
                    Err(err(
                        origin,
                        line,
                        format!(
                            "'{}': expected {n} token(s) after '{head}', found {}",
                            toks.join(" "),
                            args.len()
                        ),
                    ))
                }
            };
            match head {
                "clan" => {
                    arity(1)?;
                    if clan.is_some() || !goals.is_empty() {
                        return Err(err(
                            origin,
                            line,
                            "'clan' must come once, before the objectives".into(),
                        ));
                    }
                    clan = Some(int(0, "the clan slot")?);
                }
                "win" | "lose" => {
                    let side = if head == "win" { Side::Win } else { Side::Lose };
                    let Some((&kind, rest)) = args.split_first() else {
                        return Err(err(origin, line, format!("'{head}' needs a condition")));
                    };
                    if clan.is_none() {
                        return Err(err(origin, line, "'clan' must come first".into()));
                    }
                    let shift = |i: usize| i + 1;
                    let n = rest.len();
                    let goal = match (side, kind) {
                        (Side::Win, "destroy") => {
                            arity(2)?;
                            Goal::Destroy(int(shift(0), "the clan slot")?)
                        }
                        (Side::Win, "gather") => {
                            arity(2)?;
                            Goal::Gather(num(shift(0), "the ore amount")?)
                        }
                        (Side::Win, "hold") => {
                            arity(5)?;
                            Goal::Hold {
                                x: num(shift(0), "the centre x")?,
                                y: num(shift(1), "the centre y")?,
                                r: num(shift(2), "the radius")?,
                                seconds: num(shift(3), "the seconds")?,
                            }
                        }
                        (Side::Win, "survive") => {
                            arity(2)?;
                            Goal::Survive(num(shift(0), "the seconds")?)
                        }
                        (Side::Lose, "destroyed") => {
                            arity(1)?;
                            Goal::Destroyed
                        }
                        (Side::Lose, "gathered") => {
                            arity(3)?;
                            Goal::Gathered {
                                clan: int(shift(0), "the clan slot")?,
                                amount: num(shift(1), "the ore amount")?,
                            }
                        }
                        (Side::Lose, "time") => {
                            arity(2)?;
                            Goal::Time(num(shift(0), "the seconds")?)
                        }
                        _ => {
                            return Err(err(
                                origin,
                                line,
                                format!("unknown {head} condition '{kind}' ({n} argument(s))"),
                            ));
                        }
                    };
                    if goals.len() == MAX_OBJECTIVES {
                        return Err(err(
                            origin,
                            line,
                            format!("more than {MAX_OBJECTIVES} objectives"),
                        ));
                    }
                    goals.push((side, goal));
                }
                other => {
                    return Err(err(origin, line, format!("unknown statement '{other}'")));
                }
            }
        }
        let clan = clan.ok_or_else(|| err(origin, 0, "no 'clan' statement".into()))?;
        Ok(Self { clan, goals })
    }
}

/// A file with every statement, CRLF line ends and comments (tests and fuzz seeds of
/// the parser and of the objectives' rules use it).
pub const EXAMPLE: &[u8] = b"// demo\r\nclan 0\r\nwin destroy 1 // enemy\r\nwin gather 500\r\n\
    win hold 100 120.5 15 30\r\nwin survive 300\r\nlose destroyed\r\nlose time 600\r\n\
    lose gathered 1 800\r\n";

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const TEXT: &[u8] = EXAMPLE;

    #[test]
    fn the_documented_example_parses() {
        let o = Objectives::parse(TEXT, "Objectives.txt").unwrap();
        assert_eq!(o.clan, 0);
        assert_eq!(
            o.goals,
            vec![
                (Side::Win, Goal::Destroy(1)),
                (Side::Win, Goal::Gather(500.0)),
                (
                    Side::Win,
                    Goal::Hold {
                        x: 100.0,
                        y: 120.5,
                        r: 15.0,
                        seconds: 30.0
                    }
                ),
                (Side::Win, Goal::Survive(300.0)),
                (Side::Lose, Goal::Destroyed),
                (Side::Lose, Goal::Time(600.0)),
                (
                    Side::Lose,
                    Goal::Gathered {
                        clan: 1,
                        amount: 800.0
                    }
                ),
            ]
        );
    }

    #[test]
    fn errors_name_the_line_and_the_token() {
        let cases: [(&[u8], usize, &str); 8] = [
            (b"win destroy 1\n", 1, "'clan' must come first"),
            (b"clan 0\nwin destroy x\n", 2, "\"x\" is not a whole number"),
            (b"clan 0\nwin gather -5\n", 2, "not a non-negative number"),
            (b"clan 0\nwin hold 1 2 3\n", 2, "expected 5 token(s)"),
            (
                b"clan 0\nlose gather 5\n",
                2,
                "unknown lose condition 'gather'",
            ),
            (b"clan 0\nclan 1\n", 2, "must come once"),
            (b"clan 0\n\nfly away\n", 3, "unknown statement 'fly'"),
            (b"// nothing\n", 0, "no 'clan' statement"),
        ];
        for (text, line, what) in cases {
            let e = Objectives::parse(text, "M/Objectives.txt").unwrap_err();
            let s = e.to_string();
            assert!(s.contains("M/Objectives.txt"), "{s}");
            assert!(s.contains(&format!("M/Objectives.txt:{line}:")), "{s}");
            assert!(s.contains(what), "{s}");
        }
        let many: Vec<u8> = std::iter::once("clan 0\n".to_owned())
            .chain((0..=MAX_OBJECTIVES).map(|_| "win survive 1\n".to_owned()))
            .collect::<String>()
            .into_bytes();
        assert!(
            Objectives::parse(&many, "x")
                .unwrap_err()
                .to_string()
                .contains("more than")
        );
    }
}
