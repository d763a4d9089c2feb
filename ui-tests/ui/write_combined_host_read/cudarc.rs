// cudarc 0.19.10: `CudaContext::alloc_pinned` always allocates write-combined memory
// (`CU_MEMHOSTALLOC_WRITECOMBINED`); `alloc_pinned_with_flags(len, flags)` does when the flags say
// so. Reading it back on the host is uncached (cudarc issue #580). `result::malloc_host` too.
#![cfg_attr(cuda_lint, allow(cuda_lint::device_memory_leak))] // other lints' subject: the test code leaks, or reads memory it never wrote
use std::sync::Arc;

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys;
use cudarc::driver::{CudaContext, CudaSlice, CudaStream};

const N: usize = 1 << 20;

fn fires_readback_into_alloc_pinned_summed(ctx: &Arc<CudaContext>, s: &Arc<CudaStream>, dev: &CudaSlice<f32>) -> Result<f32, DriverError> {
    let mut host = unsafe { ctx.alloc_pinned::<f32>(N)? };
    s.memcpy_dtoh(dev, &mut host)?;
    s.synchronize()?;
    Ok(host.as_slice()?.iter().sum())
    //~^ write_combined_host_read
}

fn fires_readback_indexed(ctx: &Arc<CudaContext>, s: &Arc<CudaStream>, dev: &CudaSlice<f32>) -> Result<f32, DriverError> {
    let mut host = unsafe { ctx.alloc_pinned::<f32>(N)? };
    s.memcpy_dtoh(dev, &mut host)?;
    let out = host.as_slice()?;
    Ok(out[N - 1] * 2.0)
    //~^ write_combined_host_read
}

fn fires_explicit_write_combined_flag(ctx: &Arc<CudaContext>, s: &Arc<CudaStream>, dev: &CudaSlice<f32>) -> Result<Vec<f32>, DriverError> {
    let mut host = unsafe { ctx.alloc_pinned_with_flags::<f32>(N, sys::CU_MEMHOSTALLOC_WRITECOMBINED)? };
    s.memcpy_dtoh(dev, &mut host)?;
    Ok(host.as_slice()?.to_vec())
    //~^ write_combined_host_read
}

fn fires_result_layer_malloc_host(dev: sys::CUdeviceptr) -> Result<f32, DriverError> {
    unsafe {
        let host = result::malloc_host(N * 4, sys::CU_MEMHOSTALLOC_WRITECOMBINED)?;
        result::memcpy_dtoh_sync(std::slice::from_raw_parts_mut(host as *mut f32, N), dev)?;
        let first = *(host as *const f32);
        //~^ write_combined_host_read
        Ok(first)
    }
}

fn ok_readback_into_pinned_without_the_flag(ctx: &Arc<CudaContext>, s: &Arc<CudaStream>, dev: &CudaSlice<f32>) -> Result<f32, DriverError> {
    let mut host = unsafe { ctx.alloc_pinned_with_flags::<f32>(N, 0)? };
    s.memcpy_dtoh(dev, &mut host)?;
    s.synchronize()?;
    Ok(host.as_slice()?.iter().sum())
}

fn ok_alloc_pinned_only_written_then_uploaded(ctx: &Arc<CudaContext>, s: &Arc<CudaStream>) -> Result<CudaSlice<f32>, DriverError> {
    let mut staging = unsafe { ctx.alloc_pinned::<f32>(N)? };
    staging.as_mut_slice()?.fill(1.0);
    let mut dev = s.alloc_zeros::<f32>(N)?;
    s.memcpy_htod(&staging, &mut dev)?;
    Ok(dev)
}

fn ok_portable_flag_only(ctx: &Arc<CudaContext>, s: &Arc<CudaStream>, dev: &CudaSlice<f32>) -> Result<f32, DriverError> {
    let mut host = unsafe { ctx.alloc_pinned_with_flags::<f32>(N, sys::CU_MEMHOSTALLOC_PORTABLE)? };
    s.memcpy_dtoh(dev, &mut host)?;
    Ok(host.as_slice()?[0])
}

fn ok_result_layer_malloc_host_without_the_flag(dev: sys::CUdeviceptr) -> Result<f32, DriverError> {
    unsafe {
        let host = result::malloc_host(N * 4, 0)?;
        result::memcpy_dtoh_sync(std::slice::from_raw_parts_mut(host as *mut f32, N), dev)?;
        Ok(*(host as *const f32))
    }
}

fn main() {}
