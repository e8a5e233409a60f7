//! (2.12) The weather: what the sky is doing, told by its owner to everyone who shows or
//! sounds it.
//!
//! The sky object (FORMATS §13.8–13.10) has one owner in the simulation — the terrain
//! plugin, as the original's `Terrain.dll` owns the atmosphere. Whenever the weather
//! changes it sends a [`WeatherEvent`] (rule **PD-MSG-WEATHER**: engine code `0x103`,
//! broadcast) with the precipitation and lightning intensities and the sky's base RGB.
//! The effects plugin turns rain and snow into particles around the camera; the audio
//! plugin picks the DAY or NIGHT music pool from the RGB (§13.10). Lightning strikes and
//! the rain loop travel as the ordinary effect and sound events.
//!
//! Extensible without breaking: a reader takes the first [`WEATHER_PAYLOAD`] bytes and
//! ignores any that a newer sender appends.

use crate::math::Vec3f;
use crate::message::{Message, MessageCode};
use crate::types::{ErrorKind, PluginError};

impl MessageCode {
    /// (2.12) The weather now (rule **PD-MSG-WEATHER**: engine code `0x103`, outside
    /// the original 1..=17 and the plugin range; the body is a [`WeatherEvent`]).
    pub const WEATHER: Self = Self(0x103);
}

/// The payload bytes a [`WeatherEvent`] writes and a reader needs (more are ignored).
pub const WEATHER_PAYLOAD: usize = 4 * 7;

/// The weather from now on (the body of a [`MessageCode::WEATHER`] message). Each
/// intensity is in `0..=1`; the RGB is the sky's base colour before any camera-dependent
/// glare, each channel `>= 0`.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct WeatherEvent {
    /// Rain intensity (0: none).
    pub rain: f32,
    /// Snow intensity (0: none).
    pub snow: f32,
    /// Lightning intensity (0: no strikes).
    pub lightning: f32,
    /// The sky's base RGB (its length decides day or night music, FORMATS §13.10).
    pub sky_rgb: Vec3f,
}

impl WeatherEvent {
    /// The message carrying this event (broadcast it). Payload, little-endian: a
    /// reserved `u32` (0), then `rain`, `snow`, `lightning`, `r`, `g`, `b` as `f32`.
    ///
    /// # Errors
    /// [`ErrorKind::INVALID`] for a value out of its range or not finite.
    pub fn to_message(&self) -> Result<Message, PluginError> {
        self.check()?;
        let mut p = Vec::with_capacity(WEATHER_PAYLOAD);
        p.extend_from_slice(&0u32.to_le_bytes());
        let c = self.sky_rgb;
        for f in [self.rain, self.snow, self.lightning, c.x, c.y, c.z] {
            p.extend_from_slice(&f.to_le_bytes());
        }
        Ok(Message::new(MessageCode::WEATHER).with_payload(p))
    }

    /// Reads the event a [`MessageCode::WEATHER`] message carries (bytes past
    /// [`WEATHER_PAYLOAD`] are a newer sender's and ignored).
    ///
    /// # Errors
    /// [`ErrorKind::INVALID`] naming what is wrong: another code, a short payload, a
    /// value out of its range or not finite.
    pub fn from_message(m: &Message) -> Result<Self, PluginError> {
        if m.code != MessageCode::WEATHER {
            return Err(invalid(format!("message code {} is not WEATHER", m.code.0)));
        }
        let p = m.payload.as_slice();
        if p.len() < WEATHER_PAYLOAD {
            return Err(invalid(format!(
                "{} payload bytes, it needs {WEATHER_PAYLOAD}",
                p.len()
            )));
        }
        let f = |i: usize| f32::from_le_bytes([p[i], p[i + 1], p[i + 2], p[i + 3]]);
        let e = Self {
            rain: f(4),
            snow: f(8),
            lightning: f(12),
            sky_rgb: Vec3f {
                x: f(16),
                y: f(20),
                z: f(24),
            },
        };
        e.check()?;
        Ok(e)
    }

    fn check(&self) -> Result<(), PluginError> {
        for (what, v) in [
            ("rain", self.rain),
            ("snow", self.snow),
            ("lightning", self.lightning),
        ] {
            if !(0.0..=1.0).contains(&v) {
                return Err(invalid(format!("{what} intensity {v} is not in 0..=1")));
            }
        }
        let c = self.sky_rgb;
        if ![c.x, c.y, c.z].iter().all(|v| v.is_finite() && *v >= 0.0) {
            return Err(invalid(format!(
                "sky RGB ({}, {}, {}) is not finite and non-negative",
                c.x, c.y, c.z
            )));
        }
        Ok(())
    }
}

fn invalid(why: String) -> PluginError {
    PluginError::new(ErrorKind::INVALID, format!("weather event: {why}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn storm() -> WeatherEvent {
        WeatherEvent {
            rain: 0.75,
            snow: 0.0,
            lightning: 0.5,
            sky_rgb: Vec3f {
                x: 0.4,
                y: 0.45,
                z: 0.5,
            },
        }
    }

    #[test]
    fn round_trips_and_ignores_appended_bytes() {
        let m = storm().to_message().unwrap();
        assert_eq!(m.code, MessageCode::WEATHER);
        assert_eq!(m.payload.len(), WEATHER_PAYLOAD);
        assert_eq!(WeatherEvent::from_message(&m).unwrap(), storm());
        let mut longer = m.payload.to_vec();
        longer.extend_from_slice(&[1, 2, 3, 4, 5]);
        let m2 = Message::new(MessageCode::WEATHER).with_payload(longer);
        assert_eq!(WeatherEvent::from_message(&m2).unwrap(), storm());
    }

    #[test]
    fn refuses_what_it_cannot_read() {
        let m = storm().to_message().unwrap();
        let short = Message::new(MessageCode::WEATHER).with_payload(m.payload[..27].to_vec());
        let e = WeatherEvent::from_message(&short).unwrap_err();
        assert_eq!(e.kind, ErrorKind::INVALID);
        assert!(e.message.contains("27 payload bytes"), "{}", e.message);
        let other = Message::new(MessageCode::EFFECT).with_payload(m.payload.to_vec());
        assert!(WeatherEvent::from_message(&other).is_err());
        let mut bad = m.payload.to_vec();
        bad[4..8].copy_from_slice(&1.5f32.to_le_bytes());
        let e = WeatherEvent::from_message(&Message::new(MessageCode::WEATHER).with_payload(bad))
            .unwrap_err();
        assert!(e.message.contains("rain intensity 1.5"), "{}", e.message);
        let mut nan = m.payload.to_vec();
        nan[20..24].copy_from_slice(&f32::NAN.to_le_bytes());
        assert!(
            WeatherEvent::from_message(&Message::new(MessageCode::WEATHER).with_payload(nan))
                .is_err()
        );
        let mut neg = storm();
        neg.snow = -0.1;
        assert!(neg.to_message().is_err());
    }
}
