//! case: IVF vector index trains centroids with cudarc, leaks the `CudaSlice` to hand a raw pointer to a C search library, and then reads the first centroid through that raw device pointer to log the index fingerprint
//! expect: host_deref_device_ptr=1

use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaStream, PinnedHostSlice};

unsafe extern "C" {
    /// Search library: takes ownership of device-resident centroids.
    fn ivf_attach_centroids(handle: *mut c_void, centroids: sys::CUdeviceptr, n_lists: u32, dim: u32) -> i32;
}

pub struct IvfParams {
    pub n_lists: usize,
    pub dim: usize,
}

pub struct IvfHandle {
    raw: *mut c_void,
    centroids: sys::CUdeviceptr,
    pub fingerprint: u32,
}

fn fingerprint(xs: &[f32]) -> u32 {
    xs.iter().fold(0x811c_9dc5u32, |h, v| (h ^ v.to_bits()).wrapping_mul(0x0100_0193))
}

pub fn publish_centroids(
    stream: &Arc<CudaStream>,
    trained: &PinnedHostSlice<f32>,
    params: &IvfParams,
    lib_handle: *mut c_void,
) -> Result<IvfHandle, Box<dyn std::error::Error>> {
    let dev = stream.clone_htod(trained)?;
    stream.synchronize()?;
    let raw = dev.leak();
    let rc = unsafe { ivf_attach_centroids(lib_handle, raw, params.n_lists as u32, params.dim as u32) };
    if rc != 0 {
        return Err(format!("ivf_attach_centroids failed: {rc}").into());
    }
    let fp = fingerprint(unsafe { std::slice::from_raw_parts(raw as *const f32, params.dim) }); // EXPECT: host_deref_device_ptr
    Ok(IvfHandle { raw: lib_handle, centroids: raw, fingerprint: fp })
}

pub fn train_and_publish(ctx: &Arc<CudaContext>, params: &IvfParams, lib_handle: *mut c_void) -> Result<IvfHandle, Box<dyn std::error::Error>> {
    let stream = ctx.default_stream();
    let mut host = unsafe { ctx.alloc_pinned_with_flags::<f32>(params.n_lists * params.dim, 0)? };
    for (i, v) in host.as_mut_slice()?.iter_mut().enumerate() {
        *v = ((i * 2654435761) % 1000) as f32 / 1000.0;
    }
    publish_centroids(&stream, &host, params, lib_handle)
}
