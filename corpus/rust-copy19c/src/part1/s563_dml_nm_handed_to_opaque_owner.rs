//! case: near miss: a cudaMalloc'd buffer is registered with a C library (declared in an extern block, no body in the crate) that takes ownership and frees it later
//! expect: none

use cudarc::runtime::sys::{self, cudaMemcpyKind};
use std::ffi::c_void;
use std::mem::size_of;

#[link(name = "texcache")]
unsafe extern "C" {
    /// Takes ownership of `dev_ptr`; the cache frees it when the entry is evicted.
    fn texcache_insert(key: u64, dev_ptr: *mut c_void, bytes: usize) -> i32;
}

const TEXELS: usize = 512 * 512;

pub fn cache_texture(key: u64, texels: &[u32; TEXELS]) -> bool {
    let mut d_tex: *mut c_void = std::ptr::null_mut();
    unsafe {
        if sys::cudaMalloc(&mut d_tex, TEXELS * size_of::<u32>()) != sys::cudaError_t::cudaSuccess {
            return false;
        }
        sys::cudaMemcpy(d_tex, texels.as_ptr() as *const c_void, TEXELS * size_of::<u32>(), cudaMemcpyKind::cudaMemcpyHostToDevice);
        texcache_insert(key, d_tex, TEXELS * size_of::<u32>()) == 0
    }
}
