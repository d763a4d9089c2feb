//! case: a producer thread fills cudaMallocHost buffers and sends them over a channel; the consumer frees them with libc::free
//! expect: mismatched_free=1
use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::mpsc;
use std::thread;

use cudarc::runtime::sys;

/// A page-locked frame handed from the decoder thread to the writer thread.
struct Frame {
    ptr: *mut u8,
    len: usize,
    index: usize,
}

// SAFETY: the frame owns its allocation; only one thread holds it at a time.
unsafe impl Send for Frame {}

fn alloc_frame(len: usize, index: usize) -> Option<Frame> {
    let mut p: *mut c_void = null_mut();
    let e = unsafe { sys::cudaMallocHost(&mut p, len) };
    if e != sys::cudaError_t::cudaSuccess {
        return None;
    }
    Some(Frame { ptr: p as *mut u8, len, index })
}

fn decode_into(frame: &mut Frame) {
    let bytes = unsafe { std::slice::from_raw_parts_mut(frame.ptr, frame.len) };
    for (i, b) in bytes.iter_mut().enumerate() {
        *b = ((i + frame.index) & 0xff) as u8;
    }
}

fn consume(frame: Frame) -> u64 {
    let bytes = unsafe { std::slice::from_raw_parts(frame.ptr, frame.len) };
    let sum = bytes.iter().map(|&b| b as u64).sum();
    unsafe { libc::free(frame.ptr as *mut libc::c_void) }; // EXPECT: mismatched_free
    sum
}

pub fn run() -> u64 {
    let (tx, rx) = mpsc::channel::<Frame>();
    let producer = thread::spawn(move || {
        for index in 0..8 {
            let Some(mut f) = alloc_frame(1 << 16, index) else { break };
            decode_into(&mut f);
            if tx.send(f).is_err() {
                break;
            }
        }
    });
    let mut total = 0;
    for frame in rx {
        total += consume(frame);
    }
    producer.join().expect("producer panicked");
    total
}
