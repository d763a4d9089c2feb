//! case: a range pass over integer samples (waited for by a blocking copy of its result), then a rescale kernel and a cuMemcpyDtoHAsync_v2 into pinned memory from cuMemAllocHost_v2; the range buffer is freed with result::free_sync and the host reads the pinned result next, ordered only by that free of other memory
//! expect: relies_on_implicit_sync=1

use std::error::Error;
use std::ffi::{CString, c_void};
use std::ptr;

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys::{self, CUdeviceptr, CUfunction, CUstream};
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void value_range(const int* samples, int n, int* range) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicMin(&range[0], samples[i]);
        atomicMax(&range[1], samples[i]);
    }
}

extern "C" __global__ void rescale(const int* samples, float* out, int lo, int hi, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float span = hi > lo ? (float)(hi - lo) : 1.0f;
        out[i] = (float)(samples[i] - lo) / span;
    }
}
"#;

fn launch(f: CUfunction, stream: CUstream, n: usize, args: &mut [*mut c_void]) -> Result<(), DriverError> {
    let grid = n.div_ceil(256) as u32;
    unsafe { result::launch_kernel(f, (grid, 1, 1), (256, 1, 1), 0, stream, args) }
}

/// Rescales `samples` to [0, 1] on the device; returns the rescaled samples and their range.
pub fn rescale(samples: &[i32]) -> Result<(Vec<f32>, i32, i32), Box<dyn Error>> {
    let n = samples.len();
    let ctx = CudaContext::new(0)?;
    ctx.bind_to_thread()?;
    let ptx = compile_ptx(SRC)?;
    let image = CString::new(ptx.to_src())?;
    let module = unsafe { result::module::load_data(image.as_ptr().cast())? };
    let value_range = unsafe { result::module::get_function(module, CString::new("value_range")?)? };
    let rescale = unsafe { result::module::get_function(module, CString::new("rescale")?)? };
    let stream = result::stream::create(result::stream::StreamKind::Default)?;

    unsafe {
        let mut d_samples: CUdeviceptr = 0;
        let mut d_range: CUdeviceptr = 0;
        let mut d_out: CUdeviceptr = 0;
        let mut h_out: *mut c_void = ptr::null_mut();
        let a1 = sys::cuMemAlloc_v2(&mut d_samples, n * 4);
        let a2 = sys::cuMemAlloc_v2(&mut d_range, 2 * 4);
        let a3 = sys::cuMemAlloc_v2(&mut d_out, n * 4);
        let a4 = sys::cuMemAllocHost_v2(&mut h_out, n * 4);
        if let Err(e) = a1.result().and(a2.result()).and(a3.result()).and(a4.result()) {
            let _ = sys::cuMemFree_v2(d_samples);
            let _ = sys::cuMemFree_v2(d_range);
            let _ = sys::cuMemFree_v2(d_out);
            let _ = sys::cuMemFreeHost(h_out);
            return Err(e.into());
        }

        let mut range = [i32::MAX, i32::MIN];
        let mut status = result::memcpy_htod_sync(d_samples, samples)
            .and(result::memcpy_htod_sync(d_range, &range));
        if status.is_ok() {
            let (mut p_s, mut n_i, mut p_r) = (d_samples, n as i32, d_range);
            let mut args: [*mut c_void; 3] = [(&raw mut p_s).cast(), (&raw mut n_i).cast(), (&raw mut p_r).cast()];
            status = launch(value_range, stream, n, &mut args);
        }
        if status.is_ok() {
            // Blocking: waits for value_range.
            status = result::memcpy_dtoh_sync(&mut range, d_range);
        }
        if status.is_ok() {
            let (mut p_s, mut p_o, mut lo, mut hi, mut n_i) = (d_samples, d_out, range[0], range[1], n as i32);
            let mut args: [*mut c_void; 5] = [
                (&raw mut p_s).cast(),
                (&raw mut p_o).cast(),
                (&raw mut lo).cast(),
                (&raw mut hi).cast(),
                (&raw mut n_i).cast(),
            ];
            status = launch(rescale, stream, n, &mut args);
        }
        if status.is_ok() {
            status = sys::cuMemcpyDtoHAsync_v2(h_out, d_out, n * 4, stream).result();
        }
        let _ = result::free_sync(d_range);

        let mut out = Vec::new();
        if status.is_ok() {
            let pinned = std::slice::from_raw_parts(h_out as *const f32, n);
            out = pinned.to_vec(); // EXPECT: relies_on_implicit_sync
        }
        let synced = result::stream::synchronize(stream);
        let _ = result::free_sync(d_samples);
        let _ = result::free_sync(d_out);
        let _ = result::free_host(h_out);
        let _ = result::stream::destroy(stream);
        let _ = result::module::unload(module);
        status?;
        synced?;
        Ok((out, range[0], range[1]))
    }
}
