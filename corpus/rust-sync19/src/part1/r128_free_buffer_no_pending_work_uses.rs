//! case: 12-bit sensor data is converted to float by a first kernel, whose error counter the host reads with a blocking copy (a documented wait); a smoothing kernel is then launched and, while it may run, the raw buffer and the counter are freed: no pending work uses them, and a stream synchronize comes before anything touches the smoothed output
//! expect: none

use std::error::Error;
use std::ffi::{CString, c_void};

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys::{self, CUdeviceptr, CUfunction, CUstream};
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void to_float(const unsigned short* raw, float* out, int n, int max_valid,
                                    unsigned int* bad) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned short v = raw[i];
        if (v > max_valid) atomicAdd(bad, 1u);
        out[i] = (float)min((int)v, max_valid) / (float)max_valid;
    }
}

extern "C" __global__ void box3(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float l = in[max(i - 1, 0)], r = in[min(i + 1, n - 1)];
        out[i] = (l + in[i] + r) * (1.0f / 3.0f);
    }
}
"#;

fn launch(f: CUfunction, stream: CUstream, n: usize, args: &mut [*mut c_void]) -> Result<(), DriverError> {
    unsafe { result::launch_kernel(f, (n.div_ceil(256) as u32, 1, 1), (256, 1, 1), 0, stream, args) }
}

#[derive(Debug)]
pub struct SaturatedSamples(pub u32);

impl std::fmt::Display for SaturatedSamples {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} samples above the sensor range", self.0)
    }
}

impl Error for SaturatedSamples {}

pub fn denoise(raw: &[u16]) -> Result<Vec<f32>, Box<dyn Error>> {
    const MAX_VALID: i32 = 4095;
    let n = raw.len();
    let ctx = CudaContext::new(0)?;
    ctx.bind_to_thread()?;
    let ptx = compile_ptx(SRC)?;
    let image = CString::new(ptx.to_src())?;
    let module = unsafe { result::module::load_data(image.as_ptr().cast())? };
    let to_float = unsafe { result::module::get_function(module, CString::new("to_float")?)? };
    let box3 = unsafe { result::module::get_function(module, CString::new("box3")?)? };
    let stream = result::stream::create(result::stream::StreamKind::Default)?;

    let mut out = vec![0.0f32; n];
    unsafe {
        let mut d_raw: CUdeviceptr = 0;
        let mut d_bad: CUdeviceptr = 0;
        let mut d_f: CUdeviceptr = 0;
        let mut d_out: CUdeviceptr = 0;
        let allocs = [
            sys::cuMemAlloc_v2(&mut d_raw, n * 2),
            sys::cuMemAlloc_v2(&mut d_bad, 4),
            sys::cuMemAlloc_v2(&mut d_f, n * 4),
            sys::cuMemAlloc_v2(&mut d_out, n * 4),
        ];
        if let Some(e) = allocs.iter().find_map(|s| s.result().err()) {
            let _ = sys::cuMemFree_v2(d_raw);
            let _ = sys::cuMemFree_v2(d_bad);
            let _ = sys::cuMemFree_v2(d_f);
            let _ = sys::cuMemFree_v2(d_out);
            return Err(e.into());
        }

        let mut bad = [0u32; 1];
        let mut status = result::memcpy_htod_sync(d_raw, raw).and(result::memcpy_htod_sync(d_bad, &bad));
        if status.is_ok() {
            let (mut p_raw, mut p_f, mut n_i, mut mv, mut p_bad) = (d_raw, d_f, n as i32, MAX_VALID, d_bad);
            let mut args: [*mut c_void; 5] = [
                (&raw mut p_raw).cast(),
                (&raw mut p_f).cast(),
                (&raw mut n_i).cast(),
                (&raw mut mv).cast(),
                (&raw mut p_bad).cast(),
            ];
            status = launch(to_float, stream, n, &mut args);
        }
        if status.is_ok() {
            // Blocking copy on the legacy stream: waits for to_float.
            status = result::memcpy_dtoh_sync(&mut bad, d_bad);
        }
        if status.is_ok() && bad[0] > 0 {
            let _ = sys::cuMemFree_v2(d_raw);
            let _ = sys::cuMemFree_v2(d_bad);
            let _ = sys::cuMemFree_v2(d_f);
            let _ = sys::cuMemFree_v2(d_out);
            return Err(Box::new(SaturatedSamples(bad[0])));
        }
        if status.is_ok() {
            let (mut p_f, mut p_out, mut n_i) = (d_f, d_out, n as i32);
            let mut args: [*mut c_void; 3] = [(&raw mut p_f).cast(), (&raw mut p_out).cast(), (&raw mut n_i).cast()];
            status = launch(box3, stream, n, &mut args);
        }
        // Only to_float used these, and it has finished.
        let _ = sys::cuMemFree_v2(d_raw);
        let _ = sys::cuMemFree_v2(d_bad);

        let synced = sys::cuStreamSynchronize(stream).result();
        if status.is_ok() && synced.is_ok() {
            status = result::memcpy_dtoh_sync(&mut out, d_out);
        }
        let _ = sys::cuMemFree_v2(d_f);
        let _ = sys::cuMemFree_v2(d_out);
        let _ = result::stream::destroy(stream);
        let _ = result::module::unload(module);
        status?;
        synced?;
    }
    Ok(out)
}
