//! case: runtime API: allocations are stored into the fields of a `&mut Workspace` the caller owns (an out-parameter) and the caller's `release` frees them: handed over, not lost
//! expect: none
use cudarc::runtime::sys::{self, cudaError_t};
use std::ffi::c_void;
use std::ptr;

pub struct Workspace {
    pub d_keys: *mut c_void,
    pub d_tmp: *mut c_void,
}

impl Workspace {
    pub const fn empty() -> Self {
        Self { d_keys: ptr::null_mut(), d_tmp: ptr::null_mut() }
    }
}

const KEYS_BYTES: usize = 1 << 14;
const TMP_BYTES: usize = 1 << 12;

pub fn allocate_workspace(ws: &mut Workspace) -> cudaError_t {
    let mut keys: *mut c_void = ptr::null_mut();
    let mut tmp: *mut c_void = ptr::null_mut();
    let rc = unsafe { sys::cudaMalloc(&mut keys, KEYS_BYTES) };
    if rc != cudaError_t::cudaSuccess {
        return rc;
    }
    ws.d_keys = keys;
    let rc = unsafe { sys::cudaMalloc(&mut tmp, TMP_BYTES) };
    if rc != cudaError_t::cudaSuccess {
        return rc;
    }
    ws.d_tmp = tmp;
    cudaError_t::cudaSuccess
}

pub fn release_workspace(ws: &mut Workspace) {
    unsafe {
        sys::cudaFree(ws.d_keys);
        sys::cudaFree(ws.d_tmp);
    }
    *ws = Workspace::empty();
}

pub fn with_workspace() -> bool {
    let mut ws = Workspace::empty();
    let rc = allocate_workspace(&mut ws);
    let ok = rc == cudaError_t::cudaSuccess;
    if ok {
        unsafe {
            sys::cudaMemset(ws.d_keys, 0, KEYS_BYTES);
            sys::cudaMemset(ws.d_tmp, 0, TMP_BYTES);
        }
    }
    release_workspace(&mut ws);
    ok
}
