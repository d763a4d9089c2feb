//! case: segmented counting sort through hand-written libcuda bindings takes its per-segment counter scratch from cuMemAllocAsync on the sort stream, launches the kernel, then releases the scratch with plain cuMemFree, which does not synchronize for stream-ordered allocations, while the kernel may still use it
//! expect: missing_sync=1

use std::ffi::{c_char, c_void, CString};

use cudarc::nvrtc::compile_ptx;

type CUresult = i32;
type CUdeviceptr = u64;
type CUstream = *mut c_void;
type CUmodule = *mut c_void;
type CUfunction = *mut c_void;

#[link(name = "cuda")]
unsafe extern "C" {
    fn cuModuleLoadData(module: *mut CUmodule, image: *const c_void) -> CUresult;
    fn cuModuleGetFunction(f: *mut CUfunction, module: CUmodule, name: *const c_char) -> CUresult;
    fn cuMemAllocAsync(dptr: *mut CUdeviceptr, bytes: usize, stream: CUstream) -> CUresult;
    #[link_name = "cuMemFree_v2"]
    fn cuMemFree(dptr: CUdeviceptr) -> CUresult;
    fn cuLaunchKernel(f: CUfunction, gx: u32, gy: u32, gz: u32, bx: u32, by: u32, bz: u32, shmem: u32, stream: CUstream, params: *mut *mut c_void, extra: *mut *mut c_void) -> CUresult;
}

const SEGSORT_SRC: &str = r#"
// One block per 1024-key segment: keys are counted into the segment's slice of the global
// scratch (256 counters per segment, too many segments for shared memory), then scattered.
extern "C" __global__ void segment_counting_sort(const unsigned char* keys, unsigned char* out, int n,
                                                 unsigned int* scratch) {
    unsigned int* counts = scratch + blockIdx.x * 256;
    int base = blockIdx.x * 1024;
    for (int d = threadIdx.x; d < 256; d += blockDim.x) counts[d] = 0;
    __syncthreads();
    for (int i = base + threadIdx.x; i < min(base + 1024, n); i += blockDim.x) atomicAdd(&counts[keys[i]], 1u);
    __syncthreads();
    if (threadIdx.x == 0) {
        int pos = base;
        for (int d = 0; d < 256; ++d) { int c = counts[d]; for (int k = 0; k < c; ++k) out[pos++] = (unsigned char)d; }
    }
}
"#;

fn ok(rc: CUresult) -> Result<(), CUresult> {
    if rc == 0 { Ok(()) } else { Err(rc) }
}

pub struct SegmentSort {
    kernel: CUfunction,
}

impl SegmentSort {
    /// Needs a current context.
    pub fn load() -> Result<Self, Box<dyn std::error::Error>> {
        let image = CString::new(compile_ptx(SEGSORT_SRC)?.to_src())?;
        let (mut module, mut kernel) = (std::ptr::null_mut(), std::ptr::null_mut());
        unsafe {
            ok(cuModuleLoadData(&mut module, image.as_ptr() as *const c_void)).map_err(|rc| format!("load: {rc}"))?;
            ok(cuModuleGetFunction(&mut kernel, module, c"segment_counting_sort".as_ptr())).map_err(|rc| format!("function: {rc}"))?;
        }
        Ok(SegmentSort { kernel })
    }

    /// Sorts each 1024-byte segment of `keys` (a device array of `n` bytes) into `out`.
    pub fn run(&self, stream: CUstream, keys: CUdeviceptr, out: CUdeviceptr, n: usize) -> Result<(), CUresult> {
        let segments = n.div_ceil(1024);
        let mut scratch: CUdeviceptr = 0;
        let (mut keys, mut out, mut n_i) = (keys, out, n as i32);
        unsafe {
            ok(cuMemAllocAsync(&mut scratch, segments * 256 * 4, stream))?;
            let mut args = [
                &mut keys as *mut u64 as *mut c_void,
                &mut out as *mut u64 as *mut c_void,
                &mut n_i as *mut i32 as *mut c_void,
                &mut scratch as *mut u64 as *mut c_void,
            ];
            ok(cuLaunchKernel(self.kernel, segments as u32, 1, 1, 256, 1, 1, 0, stream, args.as_mut_ptr(), std::ptr::null_mut()))?;
            ok(cuMemFree(scratch))?; // EXPECT: missing_sync
        }
        Ok(())
    }
}
