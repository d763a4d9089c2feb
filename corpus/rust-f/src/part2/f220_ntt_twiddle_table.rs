//! case: zk prover's NTT engine keeps its twiddle factors in a __device__ array of the module, filled through cuModuleGetGlobal; the engine's Drop releases that module global with cuMemFree before unloading the module
//! expect: mismatched_free=1
use cudarc::driver::result as drv;
use cudarc::driver::sys;
use std::ffi::{CString, c_void};
use std::sync::OnceLock;

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

const LOG_MAX: usize = 16;

const NTT_SRC: &str = r#"
#define P 0xffffffff00000001ull
__device__ unsigned long long twiddles[1 << 16];

__device__ unsigned long long mulmod(unsigned long long a, unsigned long long b) {
    unsigned long long hi = __umul64hi(a, b), lo = a * b;
    // Goldilocks reduction
    unsigned long long hi_hi = hi >> 32, hi_lo = hi & 0xffffffffull;
    unsigned long long t = lo - hi_hi; if (lo < hi_hi) t += P;
    unsigned long long u = hi_lo * 0xffffffffull;
    unsigned long long r = t + u; if (r < t || r >= P) r -= P;
    return r;
}

extern "C" __global__ void ntt_stage(unsigned long long* data, unsigned int n, unsigned int half) {
    unsigned int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n / 2) return;
    unsigned int group = k / half, j = k % half;
    unsigned int a = group * 2 * half + j, b = a + half;
    unsigned long long w = twiddles[j * (n / (2 * half))];
    unsigned long long x = data[a], y = mulmod(data[b], w);
    unsigned long long s = x + y; if (s >= P || s < x) s -= P;
    unsigned long long d = x >= y ? x - y : x + P - y;
    data[a] = s; data[b] = d;
}
"#;

static PTX: OnceLock<String> = OnceLock::new();

fn powmod(mut b: u64, mut e: u64) -> u64 {
    const P: u128 = 0xffff_ffff_0000_0001;
    let mut r: u128 = 1;
    let mut bb = b as u128;
    while e > 0 {
        if e & 1 == 1 {
            r = r * bb % P;
        }
        bb = bb * bb % P;
        e >>= 1;
    }
    b = r as u64;
    b
}

pub struct NttEngine {
    module: sys::CUmodule,
    stage: sys::CUfunction,
    twiddles: sys::CUdeviceptr,
    stream: sys::CUstream,
}

impl NttEngine {
    pub fn new() -> Res<Self> {
        drv::init()?;
        let ctx = unsafe { drv::primary_ctx::retain(drv::device::get(0)?) }?;
        unsafe { drv::ctx::set_current(ctx) }?;
        let ptx = match PTX.get() {
            Some(p) => p.clone(),
            None => {
                let p = cudarc::nvrtc::compile_ptx(NTT_SRC)?.to_src();
                PTX.get_or_init(|| p).clone()
            }
        };
        let image = CString::new(ptx)?;
        let module = unsafe { drv::module::load_data(image.as_ptr().cast()) }?;
        let stage = unsafe { drv::module::get_function(module, CString::new("ntt_stage")?) }?;
        let (twiddles, bytes) = unsafe { drv::module::get_global(module, CString::new("twiddles")?) }?;

        // omega: a primitive 2^16-th root of unity of the Goldilocks field
        let omega = powmod(7, (0xffff_ffff_0000_0000u64) >> LOG_MAX);
        let table: Vec<u64> = std::iter::successors(Some(1u64), |&w| Some(((w as u128 * omega as u128) % 0xffff_ffff_0000_0001u128) as u64))
            .take(bytes / 8)
            .collect();
        unsafe { drv::memcpy_htod_sync(twiddles, &table) }?;
        drv::ctx::synchronize()?;
        let stream = drv::stream::create(drv::stream::StreamKind::NonBlocking)?;
        Ok(NttEngine { module, stage, twiddles, stream })
    }

    /// In-place forward NTT of `n` field elements at `data` (bit-reversed input).
    pub fn forward(&self, data: sys::CUdeviceptr, n: u32) -> Res<()> {
        let mut half = 1u32;
        while half < n {
            let mut d = data;
            let mut nn = n;
            let mut h = half;
            let mut params: [*mut c_void; 3] = [(&mut d as *mut u64).cast(), (&mut nn as *mut u32).cast(), (&mut h as *mut u32).cast()];
            unsafe { drv::launch_kernel(self.stage, ((n / 2).div_ceil(256), 1, 1), (256, 1, 1), 0, self.stream, &mut params) }?;
            half *= 2;
        }
        unsafe { drv::stream::synchronize(self.stream) }?;
        Ok(())
    }
}

impl Drop for NttEngine {
    fn drop(&mut self) {
        unsafe {
            let _ = drv::stream::synchronize(self.stream);
            let _ = drv::stream::destroy(self.stream);
            let _ = sys::cuMemFree_v2(self.twiddles); // EXPECT: mismatched_free
            let _ = drv::module::unload(self.module);
        }
    }
}
