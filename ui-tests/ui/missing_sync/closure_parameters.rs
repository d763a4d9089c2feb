//@no-rustfix
// A helper that calls a closure parameter on memory its own copy may still read reports the
// race at its call of the closure, where it lints on its own. A caller that passes a closure is
// not told the same mistake again inside its closure: one missing wait, one report.
#![cfg_attr(cuda_lint, allow(cuda_lint::device_memory_leak))] // another lint's subject: the test code leaks
use std::ffi::c_void;

use cudarc::driver::sys;

struct Streamer {
    input: Vec<u8>,
    dev: sys::CUdeviceptr,
    stream: sys::CUstream,
}

impl Streamer {
    fn new(bytes: usize) -> Self {
        let mut input = vec![0u8; bytes];
        let mut stream = std::ptr::null_mut();
        let mut dev = 0;
        unsafe {
            sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32);
            sys::cuMemHostRegister_v2(input.as_mut_ptr().cast(), input.len(), 0);
            sys::cuMemAlloc_v2(&mut dev, bytes);
        }
        Streamer { input, dev, stream }
    }

    fn fires_frames_decoded_over_the_last_upload<F: FnMut(usize, &mut [u8])>(&mut self, frames: usize, mut decode: F) {
        for i in 0..frames {
            decode(i, &mut self.input); //~ missing_sync
            unsafe {
                sys::cuMemcpyHtoDAsync_v2(self.dev, self.input.as_ptr().cast::<c_void>(), self.input.len(), self.stream)
            };
        }
        unsafe { sys::cuStreamSynchronize(self.stream) };
    }

    fn ok_frames_decoded_after_the_wait<F: FnMut(usize, &mut [u8])>(&mut self, frames: usize, mut decode: F) {
        for i in 0..frames {
            unsafe { sys::cuStreamSynchronize(self.stream) };
            decode(i, &mut self.input);
            unsafe {
                sys::cuMemcpyHtoDAsync_v2(self.dev, self.input.as_ptr().cast::<c_void>(), self.input.len(), self.stream)
            };
        }
        unsafe { sys::cuStreamSynchronize(self.stream) };
    }
}

fn reported_in_the_helper_only() {
    let mut streamer = Streamer::new(1 << 20);
    streamer.fires_frames_decoded_over_the_last_upload(8, |i, rgb| rgb.iter_mut().for_each(|b| *b = i as u8));
}

fn main() {}
