//! case: a max pass (waited for by a blocking copy of the maximum) then a normalize kernel writing managed memory from cuMemAllocManaged; the max pass's temporary is freed with cuMemFree_v2 and the host reads the managed output next, ordered only by that free of other memory
//! expect: relies_on_implicit_sync=1

use std::error::Error;
use std::ffi::{CString, c_void};
use std::ptr;

use cudarc::driver::result;
use cudarc::driver::sys::{self, CUdeviceptr, CUmemAttach_flags, CUstream};
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
// Values are non-negative: their bit patterns order like the floats.
extern "C" __global__ void max_reduce(const float* x, int n, unsigned int* max_bits) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicMax(max_bits, __float_as_uint(x[i]));
    }
}

extern "C" __global__ void normalize(const float* x, float* out, float inv_max, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = x[i] * inv_max;
    }
}
"#;

/// Scales non-negative `values` to [0, 1] and returns their mean.
pub fn normalized_mean(values: &[f32]) -> Result<f32, Box<dyn Error>> {
    assert!(values.iter().all(|v| *v >= 0.0));
    let n = values.len();
    let bytes = std::mem::size_of_val(values);
    let ctx = CudaContext::new(0)?;
    ctx.bind_to_thread()?;
    let ptx = compile_ptx(SRC)?;
    let image = CString::new(ptx.to_src())?;
    let module = unsafe { result::module::load_data(image.as_ptr().cast())? };
    let max_reduce = unsafe { result::module::get_function(module, CString::new("max_reduce")?)? };
    let normalize = unsafe { result::module::get_function(module, CString::new("normalize")?)? };
    let stream: CUstream = result::stream::create(result::stream::StreamKind::Default)?;
    let grid = n.div_ceil(256) as u32;

    unsafe {
        let mut d_x: CUdeviceptr = 0;
        let mut d_max: CUdeviceptr = 0;
        let mut m_out: CUdeviceptr = 0;
        let a1 = sys::cuMemAlloc_v2(&mut d_x, bytes);
        let a2 = sys::cuMemAlloc_v2(&mut d_max, std::mem::size_of::<u32>());
        let a3 = sys::cuMemAllocManaged(&mut m_out, bytes, CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32);
        if let Err(e) = a1.result().and(a2.result()).and(a3.result()) {
            let _ = sys::cuMemFree_v2(d_x);
            let _ = sys::cuMemFree_v2(d_max);
            let _ = sys::cuMemFree_v2(m_out);
            return Err(e.into());
        }

        let mut status = result::memcpy_htod_sync(d_x, values)
            .and(sys::cuMemsetD32_v2(d_max, 0, 1).result());
        let mut max_bits = [0u32; 1];
        if status.is_ok() {
            let (mut p_x, mut n_i, mut p_max) = (d_x, n as i32, d_max);
            let mut args: [*mut c_void; 3] =
                [(&raw mut p_x).cast(), (&raw mut n_i).cast(), (&raw mut p_max).cast()];
            status = result::launch_kernel(max_reduce, (grid, 1, 1), (256, 1, 1), 0, stream, &mut args);
        }
        if status.is_ok() {
            // Blocking copy on the legacy stream: waits for max_reduce.
            status = result::memcpy_dtoh_sync(&mut max_bits, d_max);
        }
        let max = f32::from_bits(max_bits[0]);
        let inv_max = if max > 0.0 { 1.0 / max } else { 0.0 };
        if status.is_ok() {
            let (mut p_x, mut p_out, mut inv, mut n_i) = (d_x, m_out, inv_max, n as i32);
            let mut args: [*mut c_void; 4] = [
                (&raw mut p_x).cast(),
                (&raw mut p_out).cast(),
                (&raw mut inv).cast(),
                (&raw mut n_i).cast(),
            ];
            status = result::launch_kernel(normalize, (grid, 1, 1), (256, 1, 1), 0, stream, &mut args);
        }

        // The maximum is on the host now; its device cell is done with.
        let _ = sys::cuMemFree_v2(d_max);

        let mut mean = 0.0f32;
        if status.is_ok() {
            let out = std::slice::from_raw_parts(m_out as *const f32, n);
            mean = out.iter().sum::<f32>() / n.max(1) as f32; // EXPECT: relies_on_implicit_sync
        }
        let synced = result::stream::synchronize(stream);
        let _ = sys::cuMemFree_v2(d_x);
        let _ = sys::cuMemFree_v2(m_out);
        let _ = result::stream::destroy(stream);
        let _ = result::module::unload(module);
        status?;
        synced?;
        Ok(mean)
    }
}
