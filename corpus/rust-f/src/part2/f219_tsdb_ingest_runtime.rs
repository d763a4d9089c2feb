//! case: time-series ingest on the CUDA runtime API (cudarc runtime::sys) with a write-combined cudaHostAlloc staging buffer used both ways: the host verifies the delta-encoded block by reading it back from that buffer, and the constructor's error path releases it with cudaFree
//! expect: write_combined_host_read=1, mismatched_free=1
use cudarc::driver::result as drv;
use cudarc::driver::sys as dsys;
use cudarc::runtime::sys as rt;
use std::ffi::{CString, c_void};

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

const DELTA_SRC: &str = r#"
extern "C" __global__ void delta_encode(const long long* ts, long long* out, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = i == 0 ? ts[0] : ts[i] - ts[i - 1];
}
"#;

fn load_delta() -> Res<dsys::CUfunction> {
    let ptx = cudarc::nvrtc::compile_ptx(DELTA_SRC)?;
    let image = CString::new(ptx.to_src())?;
    let module = unsafe { drv::module::load_data(image.as_ptr().cast()) }?;
    Ok(unsafe { drv::module::get_function(module, CString::new("delta_encode")?) }?)
}

pub struct IngestBlock {
    stream: rt::cudaStream_t,
    staging: *mut i64,
    d_ts: *mut c_void,
    d_delta: *mut c_void,
    cap: usize,
    delta: dsys::CUfunction,
}

impl IngestBlock {
    pub fn new(cap: usize) -> Res<Self> {
        let bytes = cap * 8;
        unsafe { rt::cudaSetDevice(0) }.result()?;
        drv::init()?;
        let ctx = unsafe { drv::primary_ctx::retain(drv::device::get(0)?) }?;
        unsafe { drv::ctx::set_current(ctx) }?;

        let mut stream: rt::cudaStream_t = std::ptr::null_mut();
        unsafe { rt::cudaStreamCreateWithFlags(&mut stream, rt::cudaStreamNonBlocking) }.result()?;
        let mut staging: *mut c_void = std::ptr::null_mut();
        unsafe { rt::cudaHostAlloc(&mut staging, bytes, rt::cudaHostAllocWriteCombined) }.result()?;
        let mut d_ts: *mut c_void = std::ptr::null_mut();
        let mut d_delta: *mut c_void = std::ptr::null_mut();
        unsafe {
            rt::cudaMalloc(&mut d_ts, bytes).result()?;
            rt::cudaMalloc(&mut d_delta, bytes).result()?;
        }
        let delta = match load_delta() {
            Ok(f) => f,
            Err(e) => {
                unsafe {
                    rt::cudaFree(d_ts);
                    rt::cudaFree(d_delta);
                    rt::cudaFree(staging); // EXPECT: mismatched_free
                    rt::cudaStreamDestroy(stream);
                }
                return Err(e);
            }
        };
        Ok(IngestBlock { stream, staging: staging.cast(), d_ts, d_delta, cap, delta })
    }

    /// Delta-encodes `timestamps` on the device and returns the encoded block.
    pub fn encode(&mut self, timestamps: &[i64]) -> Res<Vec<i64>> {
        let n = timestamps.len().min(self.cap);
        let staging = unsafe { std::slice::from_raw_parts_mut(self.staging, n) };
        staging.copy_from_slice(&timestamps[..n]);
        unsafe {
            rt::cudaMemcpyAsync(self.d_ts, self.staging as *const c_void, n * 8, rt::cudaMemcpyKind::cudaMemcpyHostToDevice, self.stream)
                .result()?;
        }
        let mut ts = self.d_ts as u64;
        let mut out = self.d_delta as u64;
        let mut count = n as u32;
        let mut params: [*mut c_void; 3] = [
            (&mut ts as *mut u64).cast(),
            (&mut out as *mut u64).cast(),
            (&mut count as *mut u32).cast(),
        ];
        unsafe {
            drv::launch_kernel(self.delta, (count.div_ceil(256), 1, 1), (256, 1, 1), 0, self.stream as dsys::CUstream, &mut params)?;
            rt::cudaMemcpyAsync(self.staging.cast(), self.d_delta, n * 8, rt::cudaMemcpyKind::cudaMemcpyDeviceToHost, self.stream)
                .result()?;
            rt::cudaStreamSynchronize(self.stream).result()?;
        }
        let encoded = unsafe { std::slice::from_raw_parts(self.staging, n) };
        let verify = |src: &[i64], enc: &[i64]| -> bool {
            let mut acc = 0i64;
            src.iter().zip(enc).all(|(&t, &d)| {
                acc = if acc == 0 { d } else { acc + d };
                acc == t
            })
        };
        if !verify(&timestamps[..n], encoded) { // EXPECT: write_combined_host_read
            return Err("delta encoding does not round-trip".into());
        }
        Ok(encoded.to_vec())
    }
}

impl Drop for IngestBlock {
    fn drop(&mut self) {
        unsafe {
            rt::cudaStreamSynchronize(self.stream);
            rt::cudaFree(self.d_ts);
            rt::cudaFree(self.d_delta);
            rt::cudaFreeHost(self.staging.cast());
            rt::cudaStreamDestroy(self.stream);
        }
    }
}
