//! case: GPU radix sort keeps its per-pass digit counters in cuMemAllocManaged memory (attach global); after the counting kernel is synchronized the scatter kernel, which does not use the counters, is launched and the host reads the counters to plan the next pass while it runs
//! expect: managed_concurrent_access=1
use cudarc::driver::result as drv;
use cudarc::driver::sys;
use std::ffi::{CString, c_void};

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

const RADIX_SRC: &str = r#"
extern "C" __global__ void count_digits(const unsigned int* keys, unsigned int n, unsigned int shift, unsigned int* counts) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&counts[(keys[i] >> shift) & 0xffu], 1u);
}
extern "C" __global__ void scatter_keys(const unsigned int* keys, unsigned int* out, unsigned int n,
                                        unsigned int shift, unsigned int* cursor) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int k = keys[i];
    unsigned int pos = atomicAdd(&cursor[(k >> shift) & 0xffu], 1u);
    out[pos] = k;
}
"#;

pub struct RadixSorter {
    stream: sys::CUstream,
    count: sys::CUfunction,
    scatter: sys::CUfunction,
    counts: sys::CUdeviceptr,
    cursor: sys::CUdeviceptr,
}

impl RadixSorter {
    pub fn new() -> Res<Self> {
        drv::init()?;
        let ctx = unsafe { drv::primary_ctx::retain(drv::device::get(0)?) }?;
        unsafe { drv::ctx::set_current(ctx) }?;
        let image = CString::new(cudarc::nvrtc::compile_ptx(RADIX_SRC)?.to_src())?;
        let module = unsafe { drv::module::load_data(image.as_ptr().cast()) }?;
        let count = unsafe { drv::module::get_function(module, CString::new("count_digits")?) }?;
        let scatter = unsafe { drv::module::get_function(module, CString::new("scatter_keys")?) }?;
        let mut stream = std::ptr::null_mut();
        let mut counts = 0;
        let mut cursor = 0;
        unsafe {
            sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
            sys::cuMemAllocManaged(&mut counts, 256 * 4, sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32).result()?;
            sys::cuMemAlloc_v2(&mut cursor, 256 * 4).result()?;
        }
        Ok(RadixSorter { stream, count, scatter, counts, cursor })
    }

    fn launch(&self, f: sys::CUfunction, n: u32, params: &mut [*mut c_void]) -> Res<()> {
        unsafe {
            sys::cuLaunchKernel(f, n.div_ceil(256), 1, 1, 256, 1, 1, 0, self.stream, params.as_mut_ptr(), std::ptr::null_mut()).result()?;
        }
        Ok(())
    }

    /// Sorts `n` keys between the two device buffers; returns how many passes had a single
    /// populated digit (a skew statistic for the planner).
    pub fn sort(&self, keys: sys::CUdeviceptr, tmp: sys::CUdeviceptr, n: u32) -> Res<u32> {
        let (mut src, mut dst) = (keys, tmp);
        let mut degenerate = 0;
        for pass in 0..4u32 {
            let mut shift = pass * 8;
            let mut nn = n;
            let mut counts = self.counts;
            unsafe { sys::cuMemsetD32Async(self.counts, 0, 256, self.stream) }.result()?;
            let mut cp: [*mut c_void; 4] = [
                (&mut src as *mut u64).cast(),
                (&mut nn as *mut u32).cast(),
                (&mut shift as *mut u32).cast(),
                (&mut counts as *mut u64).cast(),
            ];
            self.launch(self.count, n, &mut cp)?;
            unsafe { sys::cuStreamSynchronize(self.stream) }.result()?;

            // Exclusive scan on the host into the scatter cursors.
            let digits = unsafe { std::slice::from_raw_parts(self.counts as *const u32, 256) };
            let mut offsets = [0u32; 256];
            let mut acc = 0;
            for (o, &c) in offsets.iter_mut().zip(digits) {
                *o = acc;
                acc += c;
            }
            unsafe { sys::cuMemcpyHtoDAsync_v2(self.cursor, offsets.as_ptr().cast(), 256 * 4, self.stream) }.result()?;
            let mut cursor = self.cursor;
            let mut sp: [*mut c_void; 5] = [
                (&mut src as *mut u64).cast(),
                (&mut dst as *mut u64).cast(),
                (&mut nn as *mut u32).cast(),
                (&mut shift as *mut u32).cast(),
                (&mut cursor as *mut u64).cast(),
            ];
            self.launch(self.scatter, n, &mut sp)?;

            // Planner statistics, gathered while the scatter runs.
            let single_digit = unsafe { std::slice::from_raw_parts(self.counts as *const u32, 256) }.iter().any(|&c| c == n); // EXPECT: managed_concurrent_access
            degenerate += single_digit as u32;
            std::mem::swap(&mut src, &mut dst);
        }
        unsafe { sys::cuStreamSynchronize(self.stream) }.result()?;
        Ok(degenerate)
    }
}

impl Drop for RadixSorter {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuMemFree_v2(self.counts);
            let _ = sys::cuMemFree_v2(self.cursor);
            let _ = sys::cuStreamDestroy_v2(self.stream);
        }
    }
}
