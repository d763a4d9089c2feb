//! case: own extern "C" runtime bindings: the gradient buffer pointer is null_mut and never allocated (the code allocating it sits in a commented-out block), yet it is the source of a device-to-device copy
//! expect: unallocated_pointer=1

use std::ffi::c_void;
use std::mem::size_of;

#[link(name = "cudart")]
unsafe extern "C" {
    fn cudaMalloc(dev_ptr: *mut *mut c_void, size: usize) -> i32;
    fn cudaMemcpy(dst: *mut c_void, src: *const c_void, count: usize, kind: i32) -> i32;
    fn cudaMemset(dev_ptr: *mut c_void, value: i32, count: usize) -> i32;
    fn cudaFree(dev_ptr: *mut c_void) -> i32;
}

const DEVICE_TO_DEVICE: i32 = 3;
const DEVICE_TO_HOST: i32 = 2;
const PARAMS: usize = 10_000;

pub fn snapshot_gradients() -> Vec<f32> {
    let mut d_grad: *mut f32 = std::ptr::null_mut();
    let mut d_snapshot: *mut f32 = std::ptr::null_mut();
    let mut host = vec![0.0f32; PARAMS];
    unsafe {
        // if cudaMalloc(&mut d_grad as *mut *mut f32 as *mut *mut c_void, PARAMS * size_of::<f32>()) != 0 { ... }
        if cudaMalloc(&mut d_snapshot as *mut *mut f32 as *mut *mut c_void, PARAMS * size_of::<f32>()) != 0 {
            return host;
        }
        cudaMemcpy(d_snapshot as *mut c_void, d_grad as *const c_void, PARAMS * size_of::<f32>(), DEVICE_TO_DEVICE); // EXPECT: unallocated_pointer
        cudaMemcpy(host.as_mut_ptr() as *mut c_void, d_snapshot as *const c_void, PARAMS * size_of::<f32>(), DEVICE_TO_HOST);
        cudaFree(d_snapshot as *mut c_void);
    }
    host
}
