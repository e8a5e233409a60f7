//! Missions in the kernel: [`GameData`] (prototype source and resource probe over the VFS
//! and the archive cache), [`mission_graph`] / [`archive_health`] (the dependency graph
//! with reachability counts and failure chains) and [`load_mission`] (the staged,
//! transactional load of tome IV).

#![allow(
    clippy::result_large_err,
    reason = "a MissionError is built once per failed load; its fields are the actionable chain"
)]

pub mod bounds;
pub mod control_data;
pub mod error;
pub mod graph;
pub mod load;
pub mod mission;
pub mod source;

pub use bounds::{Aabb, BoundsDiagnostic, model_bounds, msh_bounds, msh_bounds_at, rest_matrices};
pub use control_data::{ControlData, ControlFile, ControlKind, ControlRef};
pub use error::{MissionError, Stage};
pub use graph::{
    GraphCounts, GraphReport, ModelMount, ModelUse, NO_ASSEMBLY_RULE, archive_health, mission_graph,
};
pub use load::{LoadedMission, load_mission, object_id};
pub use mission::MissionRef;
pub use source::{GameData, GameFiles, OBJECTS_RLB, data_fingerprint};
