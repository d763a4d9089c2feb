//! case: a struct of device buffers is built with zeroed fields; its init allocates `x` only, and the upload goes to `y`, still 0
//! expect: unallocated_pointer=1

use cudarc::driver::sys;
use cudarc::driver::CudaContext;
use std::ffi::c_void;
use std::mem::size_of;

const N: usize = 1024;

struct Buffers {
    x: sys::CUdeviceptr,
    y: sys::CUdeviceptr,
}

impl Buffers {
    fn new() -> Self {
        Buffers { x: 0, y: 0 }
    }

    fn init(&mut self) {
        unsafe {
            sys::cuMemAlloc_v2(&mut self.x, N * size_of::<f32>()).result().expect("alloc x");
            // TODO: y
        }
    }

    fn release(&mut self) {
        unsafe {
            sys::cuMemFree_v2(self.x);
            if self.y != 0 {
                sys::cuMemFree_v2(self.y);
            }
        }
    }
}

pub fn main_like() {
    let ctx = CudaContext::new(0).unwrap();
    ctx.bind_to_thread().unwrap();
    let hx = vec![1.0f32; N];
    let hy = vec![2.0f32; N];
    let mut bufs = Buffers::new();
    bufs.init();
    unsafe {
        sys::cuMemcpyHtoD_v2(bufs.x, hx.as_ptr() as *const c_void, N * size_of::<f32>()).result().unwrap();
        sys::cuMemcpyHtoD_v2(bufs.y, hy.as_ptr() as *const c_void, N * size_of::<f32>()).result().unwrap(); // EXPECT: unallocated_pointer
    }
    bufs.release();
}
