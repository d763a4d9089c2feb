//@no-rustfix
// Several pinned buffers the analysis does not tell apart (made by one call in a loop, or an
// array of two), with the one to use chosen by an index at run time. Work on one of them races
// an access to one of them only where the program shows it is the same buffer: a ring refilled
// with no wait at all does; a ring whose slot is waited for before it comes round again (the
// wait on some turns only, where the index says the slot was used) does not show it.
#![cfg_attr(cuda_lint, allow(cuda_lint::device_memory_leak))] // other lints' subject: the test code leaks, or reads memory it never wrote
use std::ffi::c_void;

use cudarc::driver::sys;

unsafe fn alloc_host(bytes: usize) -> *mut c_void {
    let mut p: *mut c_void = std::ptr::null_mut();
    unsafe { sys::cuMemAllocHost_v2(&mut p, bytes) };
    p
}

struct Slots {
    host: Vec<*mut c_void>,
    dev: sys::CUdeviceptr,
    bytes: usize,
    stream: sys::CUstream,
}

impl Slots {
    fn new(n: usize, bytes: usize, dev: sys::CUdeviceptr, stream: sys::CUstream) -> Self {
        let mut host = Vec::new();
        for _ in 0..n {
            host.push(unsafe { alloc_host(bytes) });
        }
        Slots { host, dev, bytes, stream }
    }

    fn load(&mut self, i: usize, data: &[u8]) {
        let n = data.len().min(self.bytes);
        let dst = unsafe { std::slice::from_raw_parts_mut(self.host[i] as *mut u8, n) };
        dst.copy_from_slice(&data[..n]);
        unsafe { sys::cuMemcpyHtoDAsync_v2(self.dev, self.host[i], n, self.stream) };
    }
}

fn ok_slot_waited_for_before_it_comes_round(chunks: &[Vec<u8>], dev: sys::CUdeviceptr, stream: sys::CUstream) {
    let mut slots = Slots::new(2, 1 << 20, dev, stream);
    for (k, chunk) in chunks.iter().enumerate() {
        if k >= 2 {
            // slot k % 2 was last uploaded two chunks ago
            unsafe { sys::cuStreamSynchronize(stream) };
        }
        slots.load(k % 2, chunk);
    }
    unsafe { sys::cuStreamSynchronize(stream) };
}

fn fires_slot_refilled_with_no_wait(chunks: &[Vec<u8>], dev: sys::CUdeviceptr, stream: sys::CUstream) {
    let mut slots = Slots::new(2, 1 << 20, dev, stream);
    for (k, chunk) in chunks.iter().enumerate() {
        slots.load(k % 2, chunk); //~ missing_sync
    }
    unsafe { sys::cuStreamSynchronize(stream) };
}

fn ok_pair_waited_for_every_second_chunk(chunks: &[Vec<u8>], dev: sys::CUdeviceptr, stream: sys::CUstream) {
    let pair = [unsafe { alloc_host(1 << 20) }, unsafe { alloc_host(1 << 20) }];
    for (k, chunk) in chunks.iter().enumerate() {
        let slot = pair[k % 2] as *mut u8;
        unsafe { std::ptr::copy_nonoverlapping(chunk.as_ptr(), slot, chunk.len()) };
        unsafe { sys::cuMemcpyHtoDAsync_v2(dev, slot.cast(), chunk.len(), stream) };
        if k % 2 == 1 {
            unsafe { sys::cuStreamSynchronize(stream) };
        }
    }
    unsafe { sys::cuStreamSynchronize(stream) };
}

fn fires_one_buffer_read_before_its_wait(dev: sys::CUdeviceptr, stream: sys::CUstream, flush: bool) -> u8 {
    // One allocation, not one of many: the wait on some paths does not excuse the read.
    let host = unsafe { alloc_host(4096) } as *mut u8;
    unsafe { sys::cuMemcpyDtoHAsync_v2(host.cast(), dev, 4096, stream) };
    if flush {
        unsafe { sys::cuStreamSynchronize(stream) };
    }
    unsafe { *host } //~ missing_sync
}

fn main() {}
