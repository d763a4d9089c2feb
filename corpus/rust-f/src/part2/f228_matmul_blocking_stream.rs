//! case: small GEMM service launches on a stream created with CU_STREAM_DEFAULT (a blocking stream) and fetches C with the blocking cuMemcpyDtoH on the legacy default stream, which waits for the blocking stream's kernel first
//! expect: none
use cudarc::driver::result as drv;
use cudarc::driver::sys;
use std::ffi::{CString, c_void};

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

const GEMM_SRC: &str = r#"
#define TILE 16
extern "C" __global__ void sgemm(const float* A, const float* B, float* C, unsigned int M, unsigned int N, unsigned int K) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    unsigned int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.f;
    for (unsigned int t = 0; t < (K + TILE - 1) / TILE; ++t) {
        unsigned int ac = t * TILE + threadIdx.x, br = t * TILE + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = (row < M && ac < K) ? A[row * K + ac] : 0.f;
        Bs[threadIdx.y][threadIdx.x] = (br < K && col < N) ? B[br * N + col] : 0.f;
        __syncthreads();
        for (unsigned int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}
"#;

pub struct Gemm {
    stream: sys::CUstream,
    func: sys::CUfunction,
}

impl Gemm {
    pub fn new() -> Res<Self> {
        drv::init()?;
        let ctx = unsafe { drv::primary_ctx::retain(drv::device::get(0)?) }?;
        unsafe { drv::ctx::set_current(ctx) }?;
        let image = CString::new(cudarc::nvrtc::compile_ptx(GEMM_SRC)?.to_src())?;
        let module = unsafe { drv::module::load_data(image.as_ptr().cast()) }?;
        let func = unsafe { drv::module::get_function(module, CString::new("sgemm")?) }?;
        let mut stream = std::ptr::null_mut();
        // Blocking stream: it stays ordered with the legacy default stream used by the plain copies.
        unsafe { sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_DEFAULT as u32) }.result()?;
        Ok(Gemm { stream, func })
    }

    pub fn multiply(&self, a: &[f32], b: &[f32], m: usize, n: usize, k: usize) -> Res<Vec<f32>> {
        let (mut da, mut db, mut dc) = (0, 0, 0);
        unsafe {
            sys::cuMemAlloc_v2(&mut da, m * k * 4).result()?;
            sys::cuMemAlloc_v2(&mut db, k * n * 4).result()?;
            sys::cuMemAlloc_v2(&mut dc, m * n * 4).result()?;
            sys::cuMemcpyHtoD_v2(da, a.as_ptr().cast(), m * k * 4).result()?;
            sys::cuMemcpyHtoD_v2(db, b.as_ptr().cast(), k * n * 4).result()?;
        }
        let (mut pa, mut pb, mut pc) = (da, db, dc);
        let (mut mm, mut nn, mut kk) = (m as u32, n as u32, k as u32);
        let mut params: [*mut c_void; 6] = [
            (&mut pa as *mut u64).cast(),
            (&mut pb as *mut u64).cast(),
            (&mut pc as *mut u64).cast(),
            (&mut mm as *mut u32).cast(),
            (&mut nn as *mut u32).cast(),
            (&mut kk as *mut u32).cast(),
        ];
        let mut c = vec![0f32; m * n];
        unsafe {
            sys::cuLaunchKernel(self.func, nn.div_ceil(16), mm.div_ceil(16), 1, 16, 16, 1, 0, self.stream, params.as_mut_ptr(), std::ptr::null_mut())
                .result()?;
            sys::cuMemcpyDtoH_v2(c.as_mut_ptr().cast(), dc, m * n * 4).result()?;
            sys::cuMemFree_v2(da).result()?;
            sys::cuMemFree_v2(db).result()?;
            sys::cuMemFree_v2(dc).result()?;
        }
        Ok(c)
    }
}
