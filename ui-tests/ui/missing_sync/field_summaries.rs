// A raw pointer kept in a struct field points at what the type's constructors stored there:
// pinned memory from `cudaMallocHost` stays pinned in the methods that read it, so a read
// before the stream is synchronized races with the readback. Where a constructor is given the
// pointer (its memory unknown), nothing is said.
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::runtime::sys::{self, cudaMemcpyKind, cudaStream_t};

struct Readout {
    stream: cudaStream_t,
    dev: *mut c_void,
    host: *mut f32,
    len: usize,
}

impl Readout {
    fn new(len: usize) -> Readout {
        let mut stream: cudaStream_t = null_mut();
        let mut dev: *mut c_void = null_mut();
        let mut host: *mut c_void = null_mut();
        unsafe {
            sys::cudaStreamCreate(&mut stream);
            sys::cudaMalloc(&mut dev, len * 4);
            sys::cudaMallocHost(&mut host, len * 4);
        }
        Readout { stream, dev, host: host.cast(), len }
    }

    fn start(&self) {
        unsafe {
            sys::cudaMemcpyAsync(
                self.host.cast(),
                self.dev,
                self.len * 4,
                cudaMemcpyKind::cudaMemcpyDeviceToHost,
                self.stream,
            )
        };
    }

    fn fires_first_value_before_the_sync(&self) -> f32 {
        self.start();
        let first = unsafe { *self.host };
        //~^ missing_sync
        unsafe { sys::cudaStreamSynchronize(self.stream) };
        first
    }

    fn ok_first_value_after_the_sync(&self) -> f32 {
        self.start();
        unsafe { sys::cudaStreamSynchronize(self.stream) };
        unsafe { *self.host }
    }
}

/// The same shape, built from pointers the caller gives: what they point at is not seen.
struct Borrowed {
    stream: cudaStream_t,
    dev: *mut c_void,
    host: *mut f32,
}

impl Borrowed {
    fn wrap(stream: cudaStream_t, dev: *mut c_void, host: *mut f32) -> Borrowed {
        Borrowed { stream, dev, host }
    }

    fn ok_host_of_unknown_memory_read_after_the_copy(&self) -> f32 {
        unsafe {
            sys::cudaMemcpyAsync(self.host.cast(), self.dev, 4, cudaMemcpyKind::cudaMemcpyDeviceToHost, self.stream);
            *self.host
        }
    }
}

fn main() {}
