//! case: log-analytics severity counter launches its kernel with `cuLaunchKernel` and copies the per-severity counts into `cuMemAllocHost_v2` memory with `cuMemcpyDtoHAsync_v2`; the stream is synchronized only when tracing is on, so with tracing off the host reads the counts before the copy finishes
//! expect: missing_sync=1

use std::ffi::c_void;

use cuda_lint_runtime::{Context, Kernel};
use cudarc::driver::sys;

const SEVERITY_SRC: &str = r#"
extern "C" __global__ void count_severity(const unsigned char* levels, unsigned n, unsigned* counts) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&counts[levels[i] & 7u], 1u);
}
"#;

pub const LEVELS: [&str; 8] = ["trace", "debug", "info", "notice", "warn", "error", "crit", "fatal"];

#[derive(Debug)]
pub struct ScanError(pub &'static str, pub sys::CUresult);

impl std::fmt::Display for ScanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {:?}", self.0, self.1)
    }
}

impl std::error::Error for ScanError {}

fn ck(what: &'static str, r: sys::CUresult) -> Result<(), ScanError> {
    if r == sys::CUresult::CUDA_SUCCESS { Ok(()) } else { Err(ScanError(what, r)) }
}

pub struct SeverityCounter {
    _ctx: Context,
    kernel: Kernel,
    stream: sys::CUstream,
    counts_dev: sys::CUdeviceptr,
    counts_host: *mut u32,
    pub trace: bool,
}

impl SeverityCounter {
    pub fn new(ctx: &Context) -> Result<Self, Box<dyn std::error::Error>> {
        let kernel = ctx.load_cuda(SEVERITY_SRC)?.function("count_severity")?;
        ctx.bind_to_thread()?;
        let mut stream = std::ptr::null_mut();
        ck("cuStreamCreate", unsafe { sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) })?;
        let mut counts_dev = 0;
        ck("cuMemAlloc_v2", unsafe { sys::cuMemAlloc_v2(&mut counts_dev, 8 * 4) })?;
        let mut host: *mut c_void = std::ptr::null_mut();
        ck("cuMemAllocHost_v2", unsafe { sys::cuMemAllocHost_v2(&mut host, 8 * 4) })?;
        Ok(Self { _ctx: ctx.clone(), kernel, stream, counts_dev, counts_host: host.cast(), trace: false })
    }

    /// `levels_dev` holds one severity byte per log line, already on the device.
    pub fn count(&mut self, levels_dev: sys::CUdeviceptr, n: u32) -> Result<[(&'static str, u32); 8], ScanError> {
        ck("memset", unsafe { sys::cuMemsetD32Async(self.counts_dev, 0, 8, self.stream) })?;
        let mut levels = levels_dev;
        let mut n_arg = n;
        let mut counts = self.counts_dev;
        let mut params: [*mut c_void; 3] = [
            (&mut levels as *mut u64).cast(),
            (&mut n_arg as *mut u32).cast(),
            (&mut counts as *mut u64).cast(),
        ];
        let grid = n.div_ceil(256).max(1);
        ck("launch", unsafe {
            sys::cuLaunchKernel(self.kernel.as_raw(), grid, 1, 1, 256, 1, 1, 0, self.stream, params.as_mut_ptr(), std::ptr::null_mut())
        })?;
        ck("readback", unsafe { sys::cuMemcpyDtoHAsync_v2(self.counts_host.cast(), self.counts_dev, 8 * 4, self.stream) })?;
        if self.trace {
            ck("sync", unsafe { sys::cuStreamSynchronize(self.stream) })?;
            eprintln!("severity scan of {n} lines done");
        }
        let host: [u32; 8] = unsafe { std::ptr::read(self.counts_host as *const [u32; 8]) }; // EXPECT: missing_sync
        let mut out = [("", 0u32); 8];
        for (i, slot) in out.iter_mut().enumerate() {
            *slot = (LEVELS[i], host[i]);
        }
        Ok(out)
    }
}

impl Drop for SeverityCounter {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuMemFreeHost(self.counts_host.cast());
            let _ = sys::cuMemFree_v2(self.counts_dev);
            let _ = sys::cuStreamDestroy_v2(self.stream);
        }
    }
}
