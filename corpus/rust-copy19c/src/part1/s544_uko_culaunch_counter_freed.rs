//! case: raw cuLaunchKernel of a kernel that counts matches with atomicAdd into d_count; the count is never copied back before cuMemFree (the host returns its own CPU count)
//! expect: unread_kernel_output=1

use cudarc::driver::sys;
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;
use std::ffi::{c_void, CString};
use std::mem::size_of;

const SRC: &str = r#"
extern "C" __global__ void count_matches(const int* keys, int needle, unsigned int* count, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && keys[i] == needle) atomicAdd(count, 1u);
}
"#;

const N: usize = 100_000;

pub fn count(keys: &[i32; N], needle: i32) -> u32 {
    let ctx = CudaContext::new(0).unwrap();
    ctx.bind_to_thread().unwrap();
    let ptx = CString::new(compile_ptx(SRC).unwrap().to_src()).unwrap();
    let name = CString::new("count_matches").unwrap();
    let mut module: sys::CUmodule = std::ptr::null_mut();
    let mut func: sys::CUfunction = std::ptr::null_mut();
    let mut d_keys: sys::CUdeviceptr = 0;
    let mut d_count: sys::CUdeviceptr = 0;
    unsafe {
        sys::cuModuleLoadData(&mut module, ptx.as_ptr() as *const c_void).result().unwrap();
        sys::cuModuleGetFunction(&mut func, module, name.as_ptr()).result().unwrap();
        sys::cuMemAlloc_v2(&mut d_keys, N * size_of::<i32>()).result().unwrap();
        sys::cuMemAlloc_v2(&mut d_count, size_of::<u32>()).result().unwrap();
        sys::cuMemcpyHtoD_v2(d_keys, keys.as_ptr() as *const c_void, N * size_of::<i32>()).result().unwrap();
        sys::cuMemsetD32_v2(d_count, 0, 1).result().unwrap();
        let mut needle_arg = needle;
        let mut n = N as i32;
        let mut params: [*mut c_void; 4] = [
            &mut d_keys as *mut _ as *mut c_void,
            &mut needle_arg as *mut _ as *mut c_void,
            &mut d_count as *mut _ as *mut c_void,
            &mut n as *mut _ as *mut c_void,
        ];
        let grid = (N as u32).div_ceil(256);
        sys::cuLaunchKernel(func, grid, 1, 1, 256, 1, 1, 0, std::ptr::null_mut(), params.as_mut_ptr(), std::ptr::null_mut()).result().unwrap();
        sys::cuCtxSynchronize().result().unwrap();
    }
    let host_count = keys.iter().filter(|&&k| k == needle).count() as u32;
    unsafe {
        sys::cuMemFree_v2(d_keys).result().unwrap();
        sys::cuMemFree_v2(d_count).result().unwrap(); // EXPECT: unread_kernel_output
        sys::cuModuleUnload(module);
    }
    host_count
}
