//! Stream waits on raw driver handles, shared by the runtime-layer and cudarc-based code paths.

use cuda_lint_runtime::{Error, Result};
use cudarc::driver::sys;

/// Blocks until all work enqueued on `stream` so far has finished.
pub fn wait(stream: sys::CUstream, what: &'static str) -> Result<()> {
    let status = unsafe { sys::cuStreamSynchronize(stream) };
    if status == sys::CUresult::CUDA_SUCCESS {
        Ok(())
    } else {
        Err(Error::InvalidArgument { call: "cuStreamSynchronize", reason: format!("{what}: {status:?}") })
    }
}
