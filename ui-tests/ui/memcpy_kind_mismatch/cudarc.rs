// cudarc: its safe API states directions its types keep right (`memcpy_htod` takes a host slice
// and device memory); its `result` layer takes device addresses as `u64`s, where a host
// pointer fits too.
#![cfg_attr(cuda_lint, allow(cuda_lint::pageable_async_copy))] // another lint's subject
use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaContext, DevicePtr};

const N: usize = 1 << 16;

fn fires_result_upload_into_a_host_vec() -> Result<(), DriverError> {
    let _ctx = CudaContext::new(0)?;
    let staging = vec![0.0f32; N];
    let input = vec![1.0f32; N];
    unsafe { result::memcpy_htod_sync(staging.as_ptr() as CUdeviceptr, &input)? };
    //~^ memcpy_kind_mismatch
    Ok(())
}

fn fires_result_readback_from_a_host_vec() -> Result<f32, DriverError> {
    let _ctx = CudaContext::new(0)?;
    let input = vec![1.0f32; N];
    let mut out = vec![0.0f32; N];
    unsafe { result::memcpy_dtoh_sync(&mut out, input.as_ptr() as CUdeviceptr)? };
    //~^ memcpy_kind_mismatch
    Ok(out[0])
}

fn fires_result_async_upload_into_a_host_box() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let staging = vec![0u32; N].into_boxed_slice();
    let input = vec![7u32; N];
    unsafe { result::memcpy_htod_async(staging.as_ptr() as CUdeviceptr, &input, stream.cu_stream())? };
    //~^ memcpy_kind_mismatch
    stream.synchronize()
}

fn ok_safe_api_round_trip() -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let host = vec![1.0f32; N];
    let mut dev = stream.alloc_zeros::<f32>(N)?;
    stream.memcpy_htod(&host, &mut dev)?;
    let mut out = vec![0.0f32; N];
    stream.memcpy_dtoh(&dev, &mut out)?;
    Ok(out[0])
}

fn ok_safe_api_clone_both_ways() -> Result<usize, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let dev = stream.clone_htod(&vec![2u8; N])?;
    let back = stream.clone_dtoh(&dev)?;
    Ok(back.len())
}

fn ok_result_upload_into_device_memory() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let dev = stream.alloc_zeros::<f32>(N)?;
    let input = vec![1.0f32; N];
    let (dst, _record) = dev.device_ptr(&stream);
    unsafe { result::memcpy_htod_sync(dst, &input)? };
    Ok(())
}

fn main() {
    let _ = fires_result_upload_into_a_host_vec();
    let _ = fires_result_readback_from_a_host_vec();
    let _ = fires_result_async_upload_into_a_host_box();
    let _ = ok_safe_api_round_trip();
    let _ = ok_safe_api_clone_both_ways();
    let _ = ok_result_upload_into_device_memory();
}
