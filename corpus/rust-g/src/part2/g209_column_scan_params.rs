//! case: columnar scan engine keeping each query's predicate in a small cuMemAllocManaged (global) block; to pipeline queries the host fills the second query's predicate while the first query's filter kernel, which reads only the first block, may still be running
//! expect: managed_concurrent_access=1

use std::error::Error;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use cudarc::driver::sys::{self, CUdeviceptr};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const SCAN_SRC: &str = r#"
struct Predicate { int lo; int hi; unsigned column_len; unsigned pad; };

extern "C" __global__ void filter_count(const int* column, const Predicate* pred,
                                        unsigned* bitmap, unsigned long long* count) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    bool hit = false;
    if (i < pred->column_len) {
        int v = column[i];
        hit = v >= pred->lo && v < pred->hi;
    }
    unsigned word = __ballot_sync(0xffffffffu, hit);
    if ((threadIdx.x & 31) == 0 && i < pred->column_len) {
        bitmap[i / 32] = word;
        atomicAdd(count, (unsigned long long)__popc(word));
    }
}
"#;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Predicate {
    pub lo: i32,
    pub hi: i32,
    pub column_len: u32,
    pub pad: u32,
}

pub struct ManagedPredicate {
    ptr: CUdeviceptr,
}

impl ManagedPredicate {
    fn new() -> Result<Self> {
        let mut ptr = 0;
        unsafe {
            sys::cuMemAllocManaged(&mut ptr, std::mem::size_of::<Predicate>(), sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32)
                .result()?;
        }
        Ok(Self { ptr })
    }

    fn get_mut(&mut self) -> &mut Predicate {
        unsafe { &mut *(self.ptr as *mut Predicate) }
    }
}

impl Drop for ManagedPredicate {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuMemFree_v2(self.ptr);
        }
    }
}

pub struct ScanEngine {
    stream: sys::CUstream,
    module: sys::CUmodule,
    filter: sys::CUfunction,
    column: CUdeviceptr,
    len: u32,
    bitmap: CUdeviceptr,
    counts: CUdeviceptr,
    counts_host: *mut u64,
}

impl ScanEngine {
    pub fn load(column_pinned: *const i32, len: u32) -> Result<Self> {
        let mut dev = 0;
        let mut ctx = null_mut();
        unsafe {
            sys::cuInit(0).result()?;
            sys::cuDeviceGet(&mut dev, 0).result()?;
            sys::cuDevicePrimaryCtxRetain(&mut ctx, dev).result()?;
            sys::cuCtxSetCurrent(ctx).result()?;
        }
        let ptx = cudarc::nvrtc::compile_ptx(SCAN_SRC)?;
        let image = CString::new(ptx.to_src())?;
        let (mut module, mut filter, mut stream) = (null_mut(), null_mut(), null_mut());
        let (mut column, mut bitmap, mut counts) = (0, 0, 0);
        let mut counts_host: *mut c_void = null_mut();
        unsafe {
            sys::cuModuleLoadData(&mut module, image.as_ptr().cast()).result()?;
            sys::cuModuleGetFunction(&mut filter, module, c"filter_count".as_ptr()).result()?;
            sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
            sys::cuMemAlloc_v2(&mut column, len as usize * 4).result()?;
            sys::cuMemAlloc_v2(&mut bitmap, 2 * (len as usize).div_ceil(32) * 4).result()?;
            sys::cuMemAlloc_v2(&mut counts, 16).result()?;
            sys::cuMemAllocHost_v2(&mut counts_host, 16).result()?;
            sys::cuMemcpyHtoDAsync_v2(column, column_pinned.cast(), len as usize * 4, stream).result()?;
            sys::cuMemsetD32Async(counts, 0, 4, stream).result()?;
            sys::cuStreamSynchronize(stream).result()?;
        }
        Ok(Self { stream, module, filter, column, len, bitmap, counts, counts_host: counts_host.cast() })
    }

    fn launch_filter(&self, pred: &ManagedPredicate, slot: u64) -> Result<()> {
        let (mut col, mut p) = (self.column, pred.ptr);
        let mut bm = self.bitmap + slot * (self.len as u64).div_ceil(32) * 4;
        let mut cnt = self.counts + slot * 8;
        let mut params: [*mut c_void; 4] = [
            (&mut col as *mut u64).cast(),
            (&mut p as *mut u64).cast(),
            (&mut bm as *mut u64).cast(),
            (&mut cnt as *mut u64).cast(),
        ];
        unsafe {
            sys::cuLaunchKernel(self.filter, self.len.div_ceil(256), 1, 1, 256, 1, 1, 0, self.stream, params.as_mut_ptr(), null_mut())
                .result()?;
        }
        Ok(())
    }

    /// Runs two range predicates back to back and returns both match counts.
    pub fn run_pair(&mut self, first: (i32, i32), second: (i32, i32)) -> Result<(u64, u64)> {
        let mut pa = ManagedPredicate::new()?;
        let mut pb = ManagedPredicate::new()?;
        *pa.get_mut() = Predicate { lo: first.0, hi: first.1, column_len: self.len, pad: 0 };
        self.launch_filter(&pa, 0)?;

        // Prepare the next query while the first one scans.
        let next = pb.get_mut(); // EXPECT: managed_concurrent_access
        next.lo = second.0;
        next.hi = second.1;
        next.column_len = self.len;

        unsafe { sys::cuStreamSynchronize(self.stream).result()? };
        self.launch_filter(&pb, 1)?;
        unsafe {
            sys::cuMemcpyDtoHAsync_v2(self.counts_host.cast(), self.counts, 16, self.stream).result()?;
            sys::cuStreamSynchronize(self.stream).result()?;
        }
        let counts = unsafe { std::slice::from_raw_parts(self.counts_host, 2) };
        Ok((counts[0], counts[1]))
    }
}

impl Drop for ScanEngine {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuMemFree_v2(self.column);
            let _ = sys::cuMemFree_v2(self.bitmap);
            let _ = sys::cuMemFree_v2(self.counts);
            let _ = sys::cuMemFreeHost(self.counts_host.cast());
            let _ = sys::cuModuleUnload(self.module);
            let _ = sys::cuStreamDestroy_v2(self.stream);
        }
    }
}
