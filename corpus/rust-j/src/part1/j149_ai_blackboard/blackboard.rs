use std::sync::Arc;

use cudarc::driver::{CudaContext, DriverError, UnifiedSlice};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Intent {
    Idle = 0,
    Patrol = 1,
    Chase = 2,
    Flee = 3,
}

/// Per-agent intent words, shared by the gameplay thread and (sometimes) GPU behaviours.
pub struct Blackboard {
    pub(crate) words: UnifiedSlice<u32>,
}

impl Blackboard {
    pub fn new(ctx: &Arc<CudaContext>, agents: usize) -> Result<Self, DriverError> {
        let mut words = unsafe { ctx.alloc_unified::<u32>(agents, true)? };
        words.as_mut_slice()?.fill(Intent::Idle as u32);
        Ok(Self { words })
    }
}
