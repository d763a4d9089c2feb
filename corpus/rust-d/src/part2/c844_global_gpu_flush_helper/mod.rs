//! case: a process-wide GPU handle in a `OnceLock` (runtime layer) owns the stream, the kernels and a pinned readback buffer behind a `Mutex`; the checksum helper enqueues the kernel and the copy into that buffer, calls `gpu::flush()` (a free function in a sub-module that synchronizes the global stream) and then reads the buffer
//! expect: none

mod gpu;

use cuda_lint_runtime::{DeviceBuffer, LaunchConfig, Result};

pub use gpu::flush;

pub fn checksum(data: &DeviceBuffer<u32>) -> Result<u32> {
    let g = gpu::gpu()?;
    let n = data.len() as u32;
    let cfg = LaunchConfig::for_num_elems(n);
    let blocks = cfg.grid.0 as usize;
    assert!(blocks <= gpu::MAX_BLOCKS, "input too large for one pass");

    let mut guard = g.partial.lock().unwrap();
    let (partial_dev, partial_host) = &mut *guard;
    unsafe {
        g.stream.launch(&g.xor_blocks, cfg, &[data, &n, &*partial_dev])?;
        g.stream.copy_dtoh_async(partial_host, partial_dev)?;
    }
    gpu::flush()?;
    Ok(partial_host[..blocks].iter().fold(0, |a, &b| a ^ b))
}
