//! case: a helper the crate defines allocates an input and a result buffer with cudaMalloc, reads the result back, frees the input, and returns with the result buffer still allocated
//! expect: device_memory_leak=1

use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::sys::{self, cudaMemcpyKind};
use std::ffi::c_void;
use std::mem::size_of;

const SRC: &str = r#"
extern "C" __global__ void xor_fold(const unsigned int* data, unsigned int* result, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicXor(result, data[i]);
}
"#;

const WORDS: usize = 4096;

fn device_checksum(words: &[u32; WORDS]) -> u32 {
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.default_stream();
    let f = ctx.load_module(compile_ptx(SRC).unwrap()).unwrap().load_function("xor_fold").unwrap();
    let mut d_data: *mut c_void = std::ptr::null_mut();
    let mut d_result: *mut c_void = std::ptr::null_mut();
    let mut result = 0u32;
    unsafe {
        assert_eq!(sys::cudaMalloc(&mut d_data, WORDS * size_of::<u32>()), sys::cudaError_t::cudaSuccess);
        assert_eq!(sys::cudaMalloc(&mut d_result, size_of::<u32>()), sys::cudaError_t::cudaSuccess); // EXPECT: device_memory_leak
        sys::cudaMemcpy(d_data, words.as_ptr() as *const c_void, WORDS * size_of::<u32>(), cudaMemcpyKind::cudaMemcpyHostToDevice);
        sys::cudaMemset(d_result, 0, size_of::<u32>());
    }
    let (data_addr, result_addr) = (d_data as u64, d_result as u64);
    let n = WORDS as i32;
    let mut b = stream.launch_builder(&f);
    b.arg(&data_addr).arg(&result_addr).arg(&n);
    unsafe { b.launch(LaunchConfig::for_num_elems(WORDS as u32)).unwrap() };
    unsafe {
        sys::cudaMemcpy(&mut result as *mut u32 as *mut c_void, d_result, size_of::<u32>(), cudaMemcpyKind::cudaMemcpyDeviceToHost);
        sys::cudaFree(d_data);
    }
    result
}

pub fn verify_blocks(blocks: &[[u32; WORDS]], expected: &[u32]) -> bool {
    blocks.iter().zip(expected).all(|(b, &e)| device_checksum(b) == e)
}
