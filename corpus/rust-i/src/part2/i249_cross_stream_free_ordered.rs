//! case: graph-analytics BFS step (driver sys layer, stream-ordered allocator): the frontier scratch is cuMemAllocAsync'd on the compute stream and freed with cuMemFreeAsync on the housekeeping stream, but only after that stream waits (cuStreamWaitEvent) on an event recorded behind the expand kernel (near-miss)
//! expect: none

use cudarc::driver::sys::{self, CUdeviceptr, CUevent, CUevent_flags, CUfunction, CUresult, CUstream};
use std::ffi::c_void;

pub const EXPAND_SRC: &str = r#"
extern "C" __global__ void expand(const unsigned* row_ptr, const unsigned* cols, const unsigned* frontier,
                                  unsigned frontier_len, unsigned* scratch, unsigned* dist, unsigned level,
                                  unsigned* next, unsigned* next_len) {
    unsigned f = blockIdx.x * blockDim.x + threadIdx.x;
    if (f >= frontier_len) return;
    unsigned v = frontier[f];
    scratch[f] = row_ptr[v + 1] - row_ptr[v];
    for (unsigned e = row_ptr[v]; e < row_ptr[v + 1]; ++e) {
        unsigned u = cols[e];
        if (atomicCAS(&dist[u], 0xffffffffu, level + 1) == 0xffffffffu) next[atomicAdd(next_len, 1u)] = u;
    }
}
"#;

fn ok(r: CUresult) -> Result<(), CUresult> {
    if r == CUresult::CUDA_SUCCESS { Ok(()) } else { Err(r) }
}

pub struct Graph {
    pub row_ptr: CUdeviceptr,
    pub cols: CUdeviceptr,
}

pub struct BfsStep {
    expand: CUfunction,
    compute: CUstream,
    housekeeping: CUstream,
    expanded: CUevent,
}

impl BfsStep {
    pub fn new(expand: CUfunction, compute: CUstream, housekeeping: CUstream) -> Result<Self, CUresult> {
        let mut expanded: CUevent = std::ptr::null_mut();
        unsafe { ok(sys::cuEventCreate(&mut expanded, CUevent_flags::CU_EVENT_DISABLE_TIMING as u32))? };
        Ok(BfsStep { expand, compute, housekeeping, expanded })
    }

    pub fn step(&self, g: &Graph, frontier: CUdeviceptr, frontier_len: u32, dist: CUdeviceptr, level: u32, next: CUdeviceptr, next_len: CUdeviceptr) -> Result<(), CUresult> {
        let mut scratch: CUdeviceptr = 0;
        unsafe {
            ok(sys::cuMemAllocAsync(&mut scratch, frontier_len.max(1) as usize * 4, self.compute))?;
            let (mut rp, mut cs, mut fr, mut fl, mut sc, mut di, mut lv, mut nx, mut nl) = (g.row_ptr, g.cols, frontier, frontier_len, scratch, dist, level, next, next_len);
            let mut params: [*mut c_void; 9] = [
                &mut rp as *mut _ as *mut c_void,
                &mut cs as *mut _ as *mut c_void,
                &mut fr as *mut _ as *mut c_void,
                &mut fl as *mut _ as *mut c_void,
                &mut sc as *mut _ as *mut c_void,
                &mut di as *mut _ as *mut c_void,
                &mut lv as *mut _ as *mut c_void,
                &mut nx as *mut _ as *mut c_void,
                &mut nl as *mut _ as *mut c_void,
            ];
            ok(sys::cuLaunchKernel(self.expand, frontier_len.max(1).div_ceil(256), 1, 1, 256, 1, 1, 0, self.compute, params.as_mut_ptr(), std::ptr::null_mut()))?;
            ok(sys::cuEventRecord(self.expanded, self.compute))?;
            ok(sys::cuStreamWaitEvent(self.housekeeping, self.expanded, 0))?;
            ok(sys::cuMemFreeAsync(scratch, self.housekeeping))
        }
    }
}

impl Drop for BfsStep {
    fn drop(&mut self) {
        unsafe {
            sys::cuStreamSynchronize(self.compute);
            sys::cuStreamSynchronize(self.housekeeping);
            sys::cuEventDestroy_v2(self.expanded);
        }
    }
}
