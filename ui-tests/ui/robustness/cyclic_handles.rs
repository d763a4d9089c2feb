// Regression test: handles that refer to one another in a cycle (a pool of `Vec<Vec<u8>>`
// drained behind a `Mutex`, the shape of a pinned-buffer pool's `clear`) once sent the analysis
// into an unbounded recursion and rustc overflowed its stack. The body is analysed, and a copy
// in the same loop is still reported.
use std::collections::{BTreeMap, HashSet};
use std::ffi::c_void;
use std::sync::{Arc, Mutex};

unsafe extern "C" {
    fn cudaHostUnregister(ptr: *mut c_void) -> i32;
    fn cudaMemcpyAsync(dst: *mut c_void, src: *const c_void, count: usize, kind: i32, stream: *mut c_void) -> i32;
}

#[derive(Default)]
struct Shelves {
    free: Mutex<BTreeMap<usize, Vec<Vec<u8>>>>,
    registered: Mutex<HashSet<usize>>,
}

impl Shelves {
    fn clear(&self) {
        let mut registered = self.registered.lock().unwrap();
        for bufs in self.free.lock().unwrap().values_mut() {
            for mut buf in bufs.drain(..) {
                registered.remove(&(buf.as_ptr() as usize));
                unsafe { cudaHostUnregister(buf.as_mut_ptr().cast()) };
            }
        }
    }

    fn upload_all(&self, dev: *mut c_void, stream: *mut c_void) {
        for bufs in self.free.lock().unwrap().values_mut() {
            for buf in bufs.drain(..) {
                let staged = vec![0u8; buf.len()];
                unsafe { cudaMemcpyAsync(dev, staged.as_ptr().cast(), staged.len(), 1, stream) };
                //~^ pageable_async_copy
            }
        }
    }
}

pub struct Pool {
    shelves: Arc<Shelves>,
}

impl Pool {
    pub fn clear(&self) {
        self.shelves.clear();
    }

    pub fn upload_all(&self, dev: *mut c_void, stream: *mut c_void) {
        self.shelves.upload_all(dev, stream);
    }
}

fn main() {}
