//! case: NTT prover stage: the twiddle table is computed on the host into a Vec and uploaded with the blocking cuMemcpyHtoD (driver::result::memcpy_htod_sync), then the butterfly kernels run on a CU_STREAM_NON_BLOCKING stream; from pageable memory the blocking copy returns once the data is staged, and the non-blocking stream does not wait for the legacy stream's DMA
//! expect: missing_sync=1

use std::error::Error;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use cudarc::driver::result;
use cudarc::driver::sys::{self, CUdeviceptr};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

/// Goldilocks prime 2^64 - 2^32 + 1.
const GL_P: u64 = 0xffff_ffff_0000_0001;
const GL_GENERATOR: u64 = 7;

const NTT_SRC: &str = r#"
typedef unsigned long long u64;
#define GL_P 0xffffffff00000001ull
__device__ __forceinline__ u64 gl_add(u64 a, u64 b) { u64 s = a + b; return (s < a || s >= GL_P) ? s - GL_P : s; }
__device__ __forceinline__ u64 gl_sub(u64 a, u64 b) { return a >= b ? a - b : a + (GL_P - b); }
__device__ __forceinline__ u64 gl_mul(u64 a, u64 b) {
    unsigned __int128 p = (unsigned __int128)a * b;
    u64 lo = (u64)p, hi = (u64)(p >> 64);
    u64 hi_hi = hi >> 32, hi_lo = hi & 0xffffffffull;
    u64 t = gl_sub(lo, hi_hi);
    return gl_add(t, (hi_lo << 32) - hi_lo);
}
// One radix-2 stage of an in-place iterative NTT (bit-reversed input).
extern "C" __global__ void ntt_stage(u64* data, const u64* twiddles, unsigned log_n, unsigned stage) {
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned half = 1u << stage;
    if (t >= (1u << (log_n - 1))) return;
    unsigned group = t >> stage, k = t & (half - 1);
    unsigned i = group * 2 * half + k, j = i + half;
    u64 w = twiddles[k << (log_n - 1 - stage)];
    u64 u = data[i], v = gl_mul(data[j], w);
    data[i] = gl_add(u, v);
    data[j] = gl_sub(u, v);
}
"#;

fn mul_mod(a: u64, b: u64) -> u64 {
    ((a as u128 * b as u128) % GL_P as u128) as u64
}

fn pow_mod(mut b: u64, mut e: u64) -> u64 {
    let mut r = 1;
    while e > 0 {
        if e & 1 == 1 {
            r = mul_mod(r, b);
        }
        b = mul_mod(b, b);
        e >>= 1;
    }
    r
}

/// w^0 .. w^(n/2 - 1) for a primitive n-th root of unity w.
fn twiddles(log_n: u32) -> Vec<u64> {
    let n = 1u64 << log_n;
    let w = pow_mod(GL_GENERATOR, (GL_P - 1) / n);
    let mut out = Vec::with_capacity((n / 2) as usize);
    let mut cur = 1u64;
    for _ in 0..n / 2 {
        out.push(cur);
        cur = mul_mod(cur, w);
    }
    out
}

pub struct NttEngine {
    log_n: u32,
    stream: sys::CUstream,
    module: sys::CUmodule,
    stage: sys::CUfunction,
    d_twiddles: CUdeviceptr,
}

impl NttEngine {
    pub fn new(log_n: u32) -> Result<Self> {
        result::init()?;
        let dev = result::device::get(0)?;
        unsafe {
            let ctx = result::primary_ctx::retain(dev)?;
            result::ctx::set_current(ctx)?;
        }
        let stream = result::stream::create(result::stream::StreamKind::NonBlocking)?;
        let ptx = cudarc::nvrtc::compile_ptx(NTT_SRC)?;
        let image = CString::new(ptx.to_src())?;
        let module = unsafe { result::module::load_data(image.as_ptr().cast())? };
        let stage = unsafe { result::module::get_function(module, CString::new("ntt_stage")?)? };

        let table = twiddles(log_n);
        let d_twiddles = unsafe { result::malloc_sync(table.len() * 8)? };
        unsafe { result::memcpy_htod_sync(d_twiddles, &table)? };
        Ok(Self { log_n, stream, module, stage, d_twiddles })
    }

    /// In-place forward NTT of `d_data` (bit-reversed order in, natural order out).
    pub fn forward(&self, d_data: CUdeviceptr) -> Result<()> {
        let threads = 1u32 << (self.log_n - 1);
        for s in 0..self.log_n {
            let (mut data, mut tw) = (d_data, self.d_twiddles);
            let (mut log_n, mut stage) = (self.log_n, s);
            let mut params: [*mut c_void; 4] = [
                (&mut data as *mut u64).cast(),
                (&mut tw as *mut u64).cast(),
                (&mut log_n as *mut u32).cast(),
                (&mut stage as *mut u32).cast(),
            ];
            unsafe { result::launch_kernel(self.stage, (threads.div_ceil(256), 1, 1), (256, 1, 1), 0, self.stream, &mut params)? }; // EXPECT: missing_sync
        }
        Ok(())
    }

    pub fn stream(&self) -> sys::CUstream {
        self.stream
    }
}

impl Drop for NttEngine {
    fn drop(&mut self) {
        unsafe {
            let _ = result::stream::synchronize(self.stream);
            let _ = result::free_sync(self.d_twiddles);
            let _ = result::module::unload(self.module);
            let _ = result::stream::destroy(self.stream);
        }
    }
}

/// Commits to a trace column: NTT of the (bit-reversed) column, read back to pinned memory.
pub fn commit_column(column_pinned: *mut u64, log_n: u32) -> Result<u64> {
    let n = 1usize << log_n;
    let engine = NttEngine::new(log_n)?;
    let stream = engine.stream();
    let d_data = unsafe { result::malloc_async(stream, n * 8)? };
    unsafe {
        sys::cuMemcpyHtoDAsync_v2(d_data, column_pinned.cast(), n * 8, stream).result()?;
    }
    engine.forward(d_data)?;
    unsafe {
        sys::cuMemcpyDtoHAsync_v2(column_pinned.cast(), d_data, n * 8, stream).result()?;
        result::free_async(d_data, stream)?;
        result::stream::synchronize(stream)?;
    }
    let evals = unsafe { std::slice::from_raw_parts(column_pinned, n) };
    Ok(evals.iter().fold(0u64, |acc, &e| acc.rotate_left(5) ^ e))
}
