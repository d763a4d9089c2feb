//! case: a name->buffer cache of cudaHostAlloc'd pinned buffers, drained at shutdown with cudaFree
//! expect: mismatched_free=1
use std::collections::HashMap;
use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::{Mutex, OnceLock};

use cudarc::runtime::sys;

struct PinnedCache {
    buffers: HashMap<String, (usize, *mut c_void)>,
}

// SAFETY: the raw pointers are only touched under the mutex.
unsafe impl Send for PinnedCache {}

static CACHE: OnceLock<Mutex<PinnedCache>> = OnceLock::new();

fn cache() -> &'static Mutex<PinnedCache> {
    CACHE.get_or_init(|| Mutex::new(PinnedCache { buffers: HashMap::new() }))
}

/// Returns the pinned buffer registered under `name`, allocating it on first use.
pub fn pinned(name: &str, bytes: usize) -> Option<*mut c_void> {
    let mut c = cache().lock().unwrap();
    if let Some(&(len, p)) = c.buffers.get(name) {
        if len >= bytes {
            return Some(p);
        }
    }
    let mut p: *mut c_void = null_mut();
    let e = unsafe { sys::cudaHostAlloc(&mut p, bytes, sys::cudaHostAllocPortable) };
    if e != sys::cudaError_t::cudaSuccess {
        return None;
    }
    if let Some((_, old)) = c.buffers.insert(name.to_string(), (bytes, p)) {
        unsafe { sys::cudaFreeHost(old) };
    }
    Some(p)
}

/// Called once at shutdown.
pub fn release_all() {
    let mut c = cache().lock().unwrap();
    for (name, (_, p)) in c.buffers.drain() {
        let e = unsafe { sys::cudaFree(p) }; // EXPECT: mismatched_free
        if e != sys::cudaError_t::cudaSuccess {
            eprintln!("could not release {name}: {e:?}");
        }
    }
}

pub fn run() {
    if let Some(p) = pinned("logits", 1 << 20) {
        unsafe { std::ptr::write_bytes(p as *mut u8, 0, 1 << 20) };
    }
    let _ = pinned("tokens", 1 << 12);
    release_all();
}
