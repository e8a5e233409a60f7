//! `Behavior.ini` as runtime configuration (FORMATS §12.3, tome VI "Параметры
//! Behavior.ini"): the `PathFind_*` keys and `Network_ResourceTransferMaxDelay`, each
//! with its provenance. The file's grammar (`key=value`, spaces around `=`, `//`
//! comments, CRLF, any section) is `iron3d-config`'s.
//!
//! The compiled defaults of these keys are **not known** (the demo file has none of
//! them), so an absent key keeps [`Setting::value`] = the project default below and
//! [`Setting::line`] = `None` (absent stays visible).
//!
//! **PD-AI-DEFAULTS** — our defaults for absent keys (world units, seconds, degrees):
//!
//! | key | default | what it steers here |
//! |---|---|---|
//! | `PathFind_BuildingHitDist` | 2.0 | a building closer than this ahead blocks the corridor |
//! | `PathFind_BuildingNearestDist` | 6.0 | buildings within this are avoided by Wizard |
//! | `PathFind_NearBuildSpeedPercent` | 50 | speed (percent) near buildings |
//! | `PathFind_CorridorRadius` | 3.0 | half-width of the local corridor |
//! | `PathFind_NearDoorCoeff` | 0.5 | portal margin as a fraction of the corridor radius |
//! | `PathFind_fStepOffBuilding` | 1.5 | side step when Wizard leaves a building |
//! | `PathFind_MaxAccel` | 10.0 | (read by Control) |
//! | `PathFind_MaxRotation` | 180.0 | (read by Control) |
//! | `PathFind_fStepDist` | 4.0 | spacing of local-path points |
//! | `PathFind_MinPointInTrajectory` | 2 | points kept ahead in the local path |
//! | `Network_ResourceTransferMaxDelay` | 5.0 | resource transfer timeout (net) |

use crate::error::AiError;
use iron3d_config::IniDocument;

/// The file name.
pub const BEHAVIOR_INI: &str = "Behavior.ini";

/// One setting: its effective value and the 1-based line it came from (`None`: absent,
/// the project default is in force).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Setting {
    /// The value in force.
    pub value: f32,
    /// Where it was written.
    pub line: Option<usize>,
}

impl Setting {
    const fn default(value: f32) -> Self {
        Self { value, line: None }
    }
}

/// The eleven keys, read with provenance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BehaviorConfig {
    /// `PathFind_BuildingHitDist`.
    pub building_hit_dist: Setting,
    /// `PathFind_BuildingNearestDist`.
    pub building_nearest_dist: Setting,
    /// `PathFind_NearBuildSpeedPercent`.
    pub near_build_speed_percent: Setting,
    /// `PathFind_CorridorRadius`.
    pub corridor_radius: Setting,
    /// `PathFind_NearDoorCoeff`.
    pub near_door_coeff: Setting,
    /// `PathFind_fStepOffBuilding`.
    pub step_off_building: Setting,
    /// `PathFind_MaxAccel`.
    pub max_accel: Setting,
    /// `PathFind_MaxRotation`.
    pub max_rotation: Setting,
    /// `PathFind_fStepDist`.
    pub step_dist: Setting,
    /// `PathFind_MinPointInTrajectory`.
    pub min_point_in_trajectory: Setting,
    /// `Network_ResourceTransferMaxDelay`.
    pub resource_transfer_max_delay: Setting,
}

impl Default for BehaviorConfig {
    fn default() -> Self {
        Self {
            building_hit_dist: Setting::default(2.0),
            building_nearest_dist: Setting::default(6.0),
            near_build_speed_percent: Setting::default(50.0),
            corridor_radius: Setting::default(3.0),
            near_door_coeff: Setting::default(0.5),
            step_off_building: Setting::default(1.5),
            max_accel: Setting::default(10.0),
            max_rotation: Setting::default(180.0),
            step_dist: Setting::default(4.0),
            min_point_in_trajectory: Setting::default(2.0),
            resource_transfer_max_delay: Setting::default(5.0),
        }
    }
}

impl BehaviorConfig {
    /// The keys with their fields, in the tome's order.
    fn fields(&mut self) -> [(&'static str, &mut Setting, bool); 11] {
        [
            (
                "PathFind_BuildingHitDist",
                &mut self.building_hit_dist,
                false,
            ),
            (
                "PathFind_BuildingNearestDist",
                &mut self.building_nearest_dist,
                false,
            ),
            (
                "PathFind_NearBuildSpeedPercent",
                &mut self.near_build_speed_percent,
                false,
            ),
            ("PathFind_CorridorRadius", &mut self.corridor_radius, false),
            ("PathFind_NearDoorCoeff", &mut self.near_door_coeff, false),
            (
                "PathFind_fStepOffBuilding",
                &mut self.step_off_building,
                false,
            ),
            ("PathFind_MaxAccel", &mut self.max_accel, false),
            ("PathFind_MaxRotation", &mut self.max_rotation, false),
            ("PathFind_fStepDist", &mut self.step_dist, false),
            (
                "PathFind_MinPointInTrajectory",
                &mut self.min_point_in_trajectory,
                true,
            ),
            (
                "Network_ResourceTransferMaxDelay",
                &mut self.resource_transfer_max_delay,
                false,
            ),
        ]
    }

    /// Reads `Behavior.ini` bytes (`None`: no file, every default in force). A present
    /// key whose value is not a finite non-negative number (a non-negative integer for
    /// `PathFind_MinPointInTrajectory`) is an error naming the file, line and key.
    pub fn read(bytes: Option<&[u8]>) -> Result<Self, AiError> {
        let mut c = Self::default();
        let Some(bytes) = bytes else {
            return Ok(c);
        };
        let doc = IniDocument::parse(bytes, BEHAVIOR_INI).map_err(|source| AiError::Config {
            file: BEHAVIOR_INI.into(),
            source,
        })?;
        for (key, field, integer) in c.fields() {
            let Some((line, pair)) = doc.get_any(key) else {
                continue;
            };
            let raw = String::from_utf8_lossy(pair.unquoted()).trim().to_owned();
            let value = if integer {
                raw.parse::<u32>().ok().map(|v| v as f32)
            } else {
                raw.parse::<f32>()
                    .ok()
                    .filter(|v| v.is_finite() && *v >= 0.0)
            };
            let Some(value) = value else {
                return Err(AiError::BadValue {
                    file: BEHAVIOR_INI.into(),
                    line,
                    key,
                    raw,
                    expected: if integer {
                        "a non-negative integer"
                    } else {
                        "a finite non-negative number"
                    },
                });
            };
            *field = Setting {
                value,
                line: Some(line),
            };
        }
        Ok(c)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn absent_keys_keep_the_named_defaults() {
        let demo = b"LogFile=Behavior.log\r\nSaveLog=0\r\nUseWizard=1\r\n";
        let c = BehaviorConfig::read(Some(demo)).unwrap();
        assert_eq!(c, BehaviorConfig::default());
        assert_eq!(c.corridor_radius.line, None);
        assert_eq!(
            BehaviorConfig::read(None).unwrap(),
            BehaviorConfig::default()
        );
    }

    #[test]
    fn keys_are_read_with_their_lines() {
        let text = b"// tuning\r\n[Behavior]\r\nPathFind_CorridorRadius = 4.5 // wide\r\n\
PathFind_MinPointInTrajectory=3\r\nNetwork_ResourceTransferMaxDelay=12\r\n";
        let c = BehaviorConfig::read(Some(text)).unwrap();
        assert_eq!(
            c.corridor_radius,
            Setting {
                value: 4.5,
                line: Some(3)
            }
        );
        assert_eq!(c.min_point_in_trajectory.value, 3.0);
        assert_eq!(c.resource_transfer_max_delay.line, Some(5));
        assert_eq!(c.step_dist, BehaviorConfig::default().step_dist);
    }

    #[test]
    fn bad_values_name_file_line_and_key() {
        let e = BehaviorConfig::read(Some(b"a=1\nPathFind_fStepDist=far\n")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Behavior.ini line 2: PathFind_fStepDist = \"far\" is not a finite non-negative number"
        );
        let e = BehaviorConfig::read(Some(b"PathFind_MinPointInTrajectory=2.5\n")).unwrap_err();
        assert!(e.to_string().contains("non-negative integer"), "{e}");
        assert!(BehaviorConfig::read(Some(b"PathFind_CorridorRadius=-1\n")).is_err());
    }
}
