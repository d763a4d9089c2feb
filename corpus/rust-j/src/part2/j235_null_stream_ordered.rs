//! case: near-miss. Log-analytics token counter launches its kernel on the legacy default (null) stream with `cuLaunchKernel` and reads the result with the blocking `cuMemcpyDtoH_v2`, which runs on that same stream after the kernel: no explicit synchronize is needed, and no async copy from pageable memory is made
//! expect: none

use std::ffi::c_void;

use cuda_lint_runtime::{Context, Kernel};
use cudarc::driver::sys;

const TOKENS_SRC: &str = r#"
extern "C" __global__ void count_tokens(const unsigned char* text, unsigned n, unsigned* per_block) {
    __shared__ unsigned local;
    if (threadIdx.x == 0) local = 0;
    __syncthreads();
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && text[i] != ' ' && (i == 0 || text[i - 1] == ' ')) atomicAdd(&local, 1u);
    __syncthreads();
    if (threadIdx.x == 0) per_block[blockIdx.x] = local;
}
"#;

#[derive(Debug)]
pub struct CuErr(pub &'static str, pub sys::CUresult);

fn ck(w: &'static str, r: sys::CUresult) -> Result<(), CuErr> {
    if r == sys::CUresult::CUDA_SUCCESS { Ok(()) } else { Err(CuErr(w, r)) }
}

pub struct TokenCounter {
    ctx: Context,
    kernel: Kernel,
}

impl TokenCounter {
    pub fn new(ctx: &Context) -> Result<Self, cuda_lint_runtime::Error> {
        Ok(Self { ctx: ctx.clone(), kernel: ctx.load_cuda(TOKENS_SRC)?.function("count_tokens")? })
    }

    pub fn count(&self, text: &str) -> Result<u64, CuErr> {
        let bytes = text.as_bytes();
        if bytes.is_empty() {
            return Ok(0);
        }
        self.ctx.bind_to_thread().map_err(|_| CuErr("bind", sys::CUresult::CUDA_ERROR_INVALID_CONTEXT))?;
        let n = bytes.len() as u32;
        let blocks = n.div_ceil(256);
        let (mut text_dev, mut partial_dev) = (0u64, 0u64);
        ck("alloc text", unsafe { sys::cuMemAlloc_v2(&mut text_dev, bytes.len()) })?;
        ck("alloc partial", unsafe { sys::cuMemAlloc_v2(&mut partial_dev, blocks as usize * 4) })?;
        ck("upload", unsafe { sys::cuMemcpyHtoD_v2(text_dev, bytes.as_ptr().cast(), bytes.len()) })?;
        let (mut a0, mut a1, mut a2) = (text_dev, n, partial_dev);
        let mut params: [*mut c_void; 3] = [(&mut a0 as *mut u64).cast(), (&mut a1 as *mut u32).cast(), (&mut a2 as *mut u64).cast()];
        let null_stream: sys::CUstream = std::ptr::null_mut();
        ck("launch", unsafe { sys::cuLaunchKernel(self.kernel.as_raw(), blocks, 1, 1, 256, 1, 1, 0, null_stream, params.as_mut_ptr(), std::ptr::null_mut()) })?;
        let mut partial = vec![0u32; blocks as usize];
        ck("download", unsafe { sys::cuMemcpyDtoH_v2(partial.as_mut_ptr().cast(), partial_dev, partial.len() * 4) })?;
        let total = partial.iter().map(|&c| c as u64).sum();
        unsafe {
            sys::cuMemFree_v2(text_dev);
            sys::cuMemFree_v2(partial_dev);
        }
        Ok(total)
    }
}
