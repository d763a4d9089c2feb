//! case: a wave-equation integrator rotates three cudaMalloc'd time levels with cudaMemcpyDeviceToDevice and snapshots one with the driver's cuMemcpyDtoD_v2; every copy is between device allocations.
//! expect: none
use cudarc::driver::sys as drv;
use cudarc::runtime::sys as rt;
use std::ffi::c_void;

pub struct WaveLevels {
    pub prev: *mut c_void,
    pub cur: *mut c_void,
    pub next: *mut c_void,
    pub snapshot: drv::CUdeviceptr,
    pub bytes: usize,
}

pub fn new_levels(n: usize) -> WaveLevels {
    let bytes = n * 4;
    let mut w = WaveLevels { prev: std::ptr::null_mut(), cur: std::ptr::null_mut(), next: std::ptr::null_mut(), snapshot: 0, bytes };
    unsafe {
        rt::cudaMalloc(&mut w.prev, bytes);
        rt::cudaMalloc(&mut w.cur, bytes);
        rt::cudaMalloc(&mut w.next, bytes);
        drv::cuMemAlloc_v2(&mut w.snapshot, bytes);
        rt::cudaMemset(w.prev, 0, bytes);
        rt::cudaMemset(w.cur, 0, bytes);
    }
    w
}

pub fn advance(w: &mut WaveLevels, steps: usize, snapshot_every: usize) {
    for s in 0..steps {
        // leapfrog kernel: next = 2*cur - prev + c^2 dt^2 lap(cur)
        unsafe {
            rt::cudaMemcpy(w.prev, w.cur, w.bytes, rt::cudaMemcpyKind::cudaMemcpyDeviceToDevice);
            rt::cudaMemcpy(w.cur, w.next as *const c_void, w.bytes, rt::cudaMemcpyKind::cudaMemcpyDeviceToDevice);
            if snapshot_every > 0 && s % snapshot_every == 0 {
                drv::cuMemcpyDtoD_v2(w.snapshot, w.cur as drv::CUdeviceptr, w.bytes);
            }
        }
    }
}
