//! case: a crate declares cudaMalloc/cudaMemcpy in its own extern "C" block and, when restoring a checkpointed state vector, copies device->host with destination and source swapped under kind 2 (DeviceToHost).
//! expect: memcpy_kind_mismatch=1
use std::ffi::c_void;
use std::os::raw::c_int;

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemcpyKind {
    HostToHost = 0,
    HostToDevice = 1,
    DeviceToHost = 2,
    DeviceToDevice = 3,
    Default = 4,
}

unsafe extern "C" {
    fn cudaMalloc(dev_ptr: *mut *mut c_void, size: usize) -> c_int;
    fn cudaFree(dev_ptr: *mut c_void) -> c_int;
    fn cudaMemcpy(dst: *mut c_void, src: *const c_void, count: usize, kind: MemcpyKind) -> c_int;
}

pub struct Checkpoint {
    pub step: u64,
    pub state: Vec<f64>,
}

pub fn save_state(d_state: *mut c_void, n: usize, step: u64) -> Checkpoint {
    let mut state = vec![0.0f64; n];
    unsafe {
        cudaMemcpy(state.as_mut_ptr() as *mut c_void, d_state, n * 8, MemcpyKind::DeviceToHost);
    }
    Checkpoint { step, state }
}

pub fn restore_and_verify(ck: &Checkpoint) -> bool {
    let n = ck.state.len();
    let mut d_state: *mut c_void = std::ptr::null_mut();
    let mut check = vec![0.0f64; n];
    unsafe {
        if cudaMalloc(&mut d_state, n * 8) != 0 {
            return false;
        }
        cudaMemcpy(d_state, ck.state.as_ptr() as *const c_void, n * 8, MemcpyKind::HostToDevice);
        cudaMemcpy(d_state, check.as_mut_ptr() as *const c_void, n * 8, MemcpyKind::DeviceToHost); // EXPECT: memcpy_kind_mismatch
        cudaFree(d_state);
    }
    check == ck.state
}
