//! case: a segmented reduction takes its temporary storage from the stream-ordered allocator (cuMemAllocAsync) and returns it with cuMemFree right after enqueueing the kernel that uses it; cuMemFree does not wait for work on memory from cuMemAllocAsync
//! expect: missing_sync=1

use std::error::Error;
use std::ffi::CString;
use std::ptr::null_mut;
use std::sync::{Arc, OnceLock};

use cudarc::driver::{result, sys, CudaContext};
use cudarc::nvrtc::compile_ptx;

const SEG_SRC: &str = r#"
extern "C" __global__ void segment_sums(const float* x, const unsigned* offsets, float* tmp, float* out, unsigned nseg) {
    unsigned s = blockIdx.x;
    if (s >= nseg) return;
    float acc = 0.0f;
    for (unsigned i = offsets[s] + threadIdx.x; i < offsets[s + 1]; i += blockDim.x) acc += x[i];
    tmp[s * blockDim.x + threadIdx.x] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.0f;
        for (unsigned k = 0; k < blockDim.x; ++k) t += tmp[s * blockDim.x + k];
        out[s] = t;
    }
}
"#;

struct Kernels {
    _module: sys::CUmodule,
    segment_sums: sys::CUfunction,
}

unsafe impl Send for Kernels {}
unsafe impl Sync for Kernels {}

static KERNELS: OnceLock<Kernels> = OnceLock::new();

fn kernels() -> Result<&'static Kernels, Box<dyn Error>> {
    if let Some(k) = KERNELS.get() {
        return Ok(k);
    }
    let image = CString::new(compile_ptx(SEG_SRC)?.to_src())?;
    let module = unsafe { result::module::load_data(image.as_ptr() as *const _)? };
    let segment_sums = unsafe { result::module::get_function(module, CString::new("segment_sums")?)? };
    Ok(KERNELS.get_or_init(|| Kernels { _module: module, segment_sums }))
}

/// Sums each segment `[offsets[s], offsets[s+1])` of `x` into `out[s]`, all device pointers, on `stream`.
pub fn segment_sums(
    ctx: &Arc<CudaContext>,
    stream: sys::CUstream,
    x: sys::CUdeviceptr,
    offsets: sys::CUdeviceptr,
    out: sys::CUdeviceptr,
    nseg: u32,
) -> Result<(), Box<dyn Error>> {
    ctx.bind_to_thread()?;
    let k = kernels()?;
    const BLOCK: u32 = 128;
    let tmp_bytes = nseg as usize * BLOCK as usize * 4;
    let mut tmp: sys::CUdeviceptr = 0;
    unsafe { sys::cuMemAllocAsync(&mut tmp, tmp_bytes, stream).result()? };

    let (mut x, mut offsets, mut tmp_arg, mut out, mut nseg_arg) = (x, offsets, tmp, out, nseg);
    let mut params = [
        &mut x as *mut _ as *mut std::ffi::c_void,
        &mut offsets as *mut _ as *mut std::ffi::c_void,
        &mut tmp_arg as *mut _ as *mut std::ffi::c_void,
        &mut out as *mut _ as *mut std::ffi::c_void,
        &mut nseg_arg as *mut _ as *mut std::ffi::c_void,
    ];
    unsafe {
        sys::cuLaunchKernel(k.segment_sums, nseg, 1, 1, BLOCK, 1, 1, 0, stream, params.as_mut_ptr(), null_mut()).result()?;
        // Give the scratch back as soon as possible to keep the pool small.
        sys::cuMemFree_v2(tmp).result()?; // EXPECT: missing_sync
    }
    Ok(())
}
