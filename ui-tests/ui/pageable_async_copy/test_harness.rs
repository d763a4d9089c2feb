//@compile-flags: --check-cfg=cfg(test)
// Under `--test`, the harness calls each `#[test]` function from generated code: a finding in a
// test is reported once, in the test, not again where the harness calls it (lintcheck R-1).
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DriverError};

fn upload(stream: &Arc<CudaStream>, host: &[f32], dev: &mut CudaSlice<f32>) -> Result<(), DriverError> {
    stream.memcpy_htod(host, dev)
}

#[test]
fn fires_upload_of_an_array_through_a_helper() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let mut dev = stream.alloc_zeros::<f32>(1 << 16)?;
    // 256 KiB: past the size from which pinned memory pays (a 16-byte array is not reported).
    let host = vec![1.0f32; 1 << 16];
    upload(&stream, &host, &mut dev)?;
    //~^ pageable_async_copy
    stream.synchronize()
}

#[test]
fn ok_upload_of_pinned_memory_through_a_helper() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let mut dev = stream.alloc_zeros::<f32>(4)?;
    let host = unsafe { ctx.alloc_pinned::<f32>(4)? };
    upload(&stream, host.as_slice()?, &mut dev)?;
    stream.synchronize()
}
