//! case: a gradient kernel on stream A feeds a magnitude kernel on stream B; B waits for an event recorded on A after the gradient (cuStreamWaitEvent), so the ordering is documented even though a cuMemFree_v2 of the finished dequantization input sits between the two launches
//! expect: none

use std::error::Error;
use std::ffi::{CString, c_void};
use std::ptr;

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys::{self, CUdeviceptr, CUevent, CUevent_flags, CUfunction, CUstream, CUstream_flags};
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void dequantize(const unsigned char* q, float scale, float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = q[i] * scale;
}

extern "C" __global__ void gradient(const float* x, float* g, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) g[i] = (i + 1 < n ? x[i + 1] : x[i]) - (i > 0 ? x[i - 1] : x[i]);
}

extern "C" __global__ void magnitude(const float* g, float* m, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) m[i] = fabsf(g[i]);
}
"#;

unsafe fn launch(f: CUfunction, stream: CUstream, n: usize, args: &mut [*mut c_void]) -> Result<(), DriverError> {
    unsafe { result::launch_kernel(f, (n.div_ceil(256) as u32, 1, 1), (256, 1, 1), 0, stream, args) }
}

pub fn edge_strength(q: &[u8], scale: f32) -> Result<Vec<f32>, Box<dyn Error>> {
    let n = q.len();
    let ctx = CudaContext::new(0)?;
    ctx.bind_to_thread()?;
    let ptx = compile_ptx(SRC)?;
    let image = CString::new(ptx.to_src())?;
    let module = unsafe { result::module::load_data(image.as_ptr().cast())? };
    let dequantize = unsafe { result::module::get_function(module, CString::new("dequantize")?)? };
    let gradient = unsafe { result::module::get_function(module, CString::new("gradient")?)? };
    let magnitude = unsafe { result::module::get_function(module, CString::new("magnitude")?)? };

    let mut out = vec![0.0f32; n];
    unsafe {
        let mut stream_a: CUstream = ptr::null_mut();
        let mut stream_b: CUstream = ptr::null_mut();
        let mut grad_done: CUevent = ptr::null_mut();
        sys::cuStreamCreate(&mut stream_a, CUstream_flags::CU_STREAM_DEFAULT as u32).result()?;
        sys::cuStreamCreate(&mut stream_b, CUstream_flags::CU_STREAM_DEFAULT as u32).result()?;
        sys::cuEventCreate(&mut grad_done, CUevent_flags::CU_EVENT_DISABLE_TIMING as u32).result()?;

        let mut d_q: CUdeviceptr = 0;
        let mut d_x: CUdeviceptr = 0;
        let mut d_g: CUdeviceptr = 0;
        let mut d_m: CUdeviceptr = 0;
        let allocs = [
            sys::cuMemAlloc_v2(&mut d_q, n),
            sys::cuMemAlloc_v2(&mut d_x, n * 4),
            sys::cuMemAlloc_v2(&mut d_g, n * 4),
            sys::cuMemAlloc_v2(&mut d_m, n * 4),
        ];
        let mut status: Result<(), DriverError> = allocs.iter().try_for_each(|s| s.result());
        if status.is_ok() {
            status = result::memcpy_htod_sync(d_q, q);
        }
        if status.is_ok() {
            let (mut p_q, mut s, mut p_x, mut n_i) = (d_q, scale, d_x, n as i32);
            let mut args: [*mut c_void; 4] = [(&raw mut p_q).cast(), (&raw mut s).cast(), (&raw mut p_x).cast(), (&raw mut n_i).cast()];
            status = launch(dequantize, stream_a, n, &mut args).and(sys::cuStreamSynchronize(stream_a).result());
        }
        if status.is_ok() {
            let (mut p_x, mut p_g, mut n_i) = (d_x, d_g, n as i32);
            let mut args: [*mut c_void; 3] = [(&raw mut p_x).cast(), (&raw mut p_g).cast(), (&raw mut n_i).cast()];
            status = launch(gradient, stream_a, n, &mut args)
                .and(sys::cuEventRecord(grad_done, stream_a).result())
                .and(sys::cuStreamWaitEvent(stream_b, grad_done, 0).result());
        }
        // Only dequantize read the quantized input, and it was synchronized.
        let _ = sys::cuMemFree_v2(d_q);
        if status.is_ok() {
            let (mut p_g, mut p_m, mut n_i) = (d_g, d_m, n as i32);
            let mut args: [*mut c_void; 3] = [(&raw mut p_g).cast(), (&raw mut p_m).cast(), (&raw mut n_i).cast()];
            status = launch(magnitude, stream_b, n, &mut args);
        }
        let synced = sys::cuStreamSynchronize(stream_b)
            .result()
            .and(sys::cuStreamSynchronize(stream_a).result());
        if status.is_ok() && synced.is_ok() {
            status = sys::cuMemcpyDtoH_v2(out.as_mut_ptr().cast(), d_m, n * 4).result();
        }
        let _ = sys::cuMemFree_v2(d_x);
        let _ = sys::cuMemFree_v2(d_g);
        let _ = sys::cuMemFree_v2(d_m);
        let _ = sys::cuEventDestroy_v2(grad_done);
        let _ = sys::cuStreamDestroy_v2(stream_a);
        let _ = sys::cuStreamDestroy_v2(stream_b);
        let _ = result::module::unload(module);
        status?;
        synced?;
    }
    Ok(out)
}
