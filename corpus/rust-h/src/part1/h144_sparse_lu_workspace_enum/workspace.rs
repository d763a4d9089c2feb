use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DriverError};

/// Device scratch that exists only while a panel is being updated.
pub enum Workspace {
    Idle,
    Active(CudaSlice<f64>),
}

impl Workspace {
    pub fn activate(&mut self, stream: &Arc<CudaStream>, len: usize) -> Result<&mut CudaSlice<f64>, DriverError> {
        if !matches!(self, Workspace::Active(buf) if buf.len() >= len) {
            *self = Workspace::Active(stream.alloc_zeros::<f64>(len)?);
        }
        match self {
            Workspace::Active(buf) => Ok(buf),
            Workspace::Idle => unreachable!("activated above"),
        }
    }

    /// Hands the scratch back (its drop frees it, stream-ordered).
    pub fn release(&mut self) -> Option<CudaSlice<f64>> {
        match std::mem::replace(self, Workspace::Idle) {
            Workspace::Active(buf) => Some(buf),
            Workspace::Idle => None,
        }
    }
}
