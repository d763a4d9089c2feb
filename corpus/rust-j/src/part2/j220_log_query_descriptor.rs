//! case: log-analytics scanner uploads each raw log batch from its `Vec<u8>` with `cuMemcpyHtoDAsync_v2` (pageable), and while the scan kernel runs it prepares the next query's descriptor in memory from `cuMemAllocManaged(CU_MEM_ATTACH_GLOBAL)` that the running kernel does not use
//! expect: pageable_async_copy=1, managed_concurrent_access=1

use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SCAN_SRC: &str = r#"
extern "C" __global__ void scan_lines(const unsigned char* text, unsigned len, unsigned long long needle,
                                      unsigned* hits) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i + 8 > len) return;
    unsigned long long w = 0;
    for (int k = 0; k < 8; ++k) w |= ((unsigned long long)text[i + k]) << (8 * k);
    if (w == needle) atomicAdd(hits, 1u);
}
"#;

#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct QueryDesc {
    pub needle: u64,
    pub since_ms: u64,
    pub until_ms: u64,
    pub flags: u32,
    pub _pad: u32,
}

pub struct Query {
    pub pattern: [u8; 8],
    pub since_ms: u64,
    pub until_ms: u64,
}

#[derive(Debug)]
pub struct ScanError(pub String);

impl From<cudarc::driver::DriverError> for ScanError {
    fn from(e: cudarc::driver::DriverError) -> Self {
        ScanError(format!("driver: {e:?}"))
    }
}

impl From<cudarc::nvrtc::CompileError> for ScanError {
    fn from(e: cudarc::nvrtc::CompileError) -> Self {
        ScanError(format!("nvrtc: {e:?}"))
    }
}

pub struct LogScanner {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    scan: CudaFunction,
    text_dev: sys::CUdeviceptr,
    text_cap: usize,
    desc: sys::CUdeviceptr,
    hits: CudaSlice<u32>,
}

impl LogScanner {
    pub fn new(ctx: &Arc<CudaContext>, text_cap: usize) -> Result<Self, ScanError> {
        let stream = ctx.new_stream()?;
        let scan = ctx.load_module(compile_ptx(SCAN_SRC)?)?.load_function("scan_lines")?;
        ctx.bind_to_thread()?;
        let mut text_dev = 0;
        let r = unsafe { sys::cuMemAlloc_v2(&mut text_dev, text_cap) };
        if r != sys::CUresult::CUDA_SUCCESS {
            return Err(ScanError(format!("cuMemAlloc_v2: {r:?}")));
        }
        let mut desc = 0;
        let r = unsafe { sys::cuMemAllocManaged(&mut desc, std::mem::size_of::<QueryDesc>(), sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32) };
        if r != sys::CUresult::CUDA_SUCCESS {
            return Err(ScanError(format!("cuMemAllocManaged: {r:?}")));
        }
        let hits = stream.alloc_zeros::<u32>(1)?;
        Ok(Self { ctx: ctx.clone(), stream, scan, text_dev, text_cap, desc, hits })
    }

    /// Scans `batch` for `current`'s needle; meanwhile stages `next` for the following call.
    pub fn scan_batch(&mut self, batch: &Vec<u8>, current: u64, next: &Query) -> Result<(), ScanError> {
        let len = batch.len().min(self.text_cap);
        let r = unsafe { sys::cuMemcpyHtoDAsync_v2(self.text_dev, batch.as_ptr().cast(), len, self.stream.cu_stream()) }; // EXPECT: pageable_async_copy
        if r != sys::CUresult::CUDA_SUCCESS {
            return Err(ScanError(format!("upload: {r:?}")));
        }
        let text = self.text_dev;
        let n = len as u32;
        unsafe { self.stream.launch_builder(&self.scan).arg(&text).arg(&n).arg(&current).arg(&mut self.hits).launch(LaunchConfig::for_num_elems(n)) }?;
        let needle = u64::from_le_bytes(next.pattern);
        unsafe { *(self.desc as *mut QueryDesc) = QueryDesc { needle, since_ms: next.since_ms, until_ms: next.until_ms, flags: 1, _pad: 0 } }; // EXPECT: managed_concurrent_access
        self.stream.synchronize()?;
        Ok(())
    }

    pub fn staged(&self) -> QueryDesc {
        unsafe { *(self.desc as *const QueryDesc) }
    }
}

impl Drop for LogScanner {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
        unsafe {
            let _ = sys::cuMemFree_v2(self.desc);
            let _ = sys::cuMemFree_v2(self.text_dev);
        }
    }
}
