//! Stream helpers shared by the readback implementations.
use cudarc::driver::{CudaStream, DriverError};

/// Waits for everything enqueued on `stream` so far.
pub fn wait_idle(stream: &CudaStream) -> Result<(), DriverError> {
    stream.context().bind_to_thread()?;
    stream.synchronize()
}
