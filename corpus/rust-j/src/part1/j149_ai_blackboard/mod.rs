//! case: game AI keeps a shared blackboard of agent intents in a cudarc `UnifiedSlice` allocated with global attach; the crowd pathfinding kernel runs on the AI stream over a separate nav-grid slice, and the behaviour-tree tick writes intents into the blackboard before that kernel is waited for
//! expect: managed_concurrent_access=1

mod blackboard;
mod crowd;

pub use blackboard::{Blackboard, Intent};
pub use crowd::CrowdSim;
