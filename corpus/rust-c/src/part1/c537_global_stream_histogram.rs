//! case: a telemetry module keeps a process-wide CUDA stream and pinned snapshot buffer in a `OnceLock` (cudarc `driver::result` layer); `snapshot` enqueues the histogram kernel's output copy into the pinned buffer and returns a `Vec` built from it without synchronizing
//! expect: missing_sync=1
use std::ffi::{c_void, CString};
use std::sync::{Mutex, OnceLock};

use cudarc::driver::{result, sys};
use cudarc::nvrtc::compile_ptx;

const HIST_SRC: &str = r#"
extern "C" __global__ void latency_hist(const float* latencies_us, unsigned int* bins, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int b = min(1023, (int)(latencies_us[i] / 10.0f));
    atomicAdd(&bins[b], 1u);
}
"#;

const BINS: usize = 1024;

struct Telemetry {
    stream: sys::CUstream,
    kernel: sys::CUfunction,
    d_bins: sys::CUdeviceptr,
    h_bins: *mut u32, // cuMemHostAlloc, flags 0
}

unsafe impl Send for Telemetry {}

static TELEMETRY: OnceLock<Mutex<Telemetry>> = OnceLock::new();

fn telemetry() -> Result<&'static Mutex<Telemetry>, Box<dyn std::error::Error>> {
    if let Some(t) = TELEMETRY.get() {
        return Ok(t);
    }
    let ptx = CString::new(compile_ptx(HIST_SRC)?.to_src())?;
    let t = unsafe {
        let module = result::module::load_data(ptx.as_ptr() as *const c_void)?;
        Telemetry {
            stream: result::stream::create(result::stream::StreamKind::NonBlocking)?,
            kernel: result::module::get_function(module, CString::new("latency_hist")?)?,
            d_bins: result::malloc_sync(BINS * 4)?,
            h_bins: result::malloc_host(BINS * 4, 0)? as *mut u32,
        }
    };
    Ok(TELEMETRY.get_or_init(|| Mutex::new(t)))
}

/// Bins this window's request latencies (already on the device) and returns the histogram.
pub fn snapshot(d_latencies: sys::CUdeviceptr, n: usize) -> Result<Vec<u32>, Box<dyn std::error::Error>> {
    let t = telemetry()?.lock().map_err(|_| "telemetry lock poisoned")?;
    let mut d_lat = d_latencies;
    let mut d_bins = t.d_bins;
    let mut count = n as i32;
    let mut params = [
        &mut d_lat as *mut _ as *mut c_void,
        &mut d_bins as *mut _ as *mut c_void,
        &mut count as *mut _ as *mut c_void,
    ];
    unsafe {
        result::memset_d8_async(t.d_bins, 0, BINS * 4, t.stream)?;
        result::launch_kernel(t.kernel, ((n as u32).div_ceil(256).max(1), 1, 1), (256, 1, 1), 0, t.stream, &mut params)?;
        let host = std::slice::from_raw_parts_mut(t.h_bins, BINS);
        result::memcpy_dtoh_async(host, t.d_bins, t.stream)?;
    }
    let bins = unsafe { std::slice::from_raw_parts(t.h_bins, BINS) }.to_vec(); // EXPECT: missing_sync
    Ok(bins)
}
