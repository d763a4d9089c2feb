//! case: a reduction driver reads partial sums back with cuMemcpyDtoH_v2, but the host destination it passes is a second cudaMalloc'd scratch buffer rather than the host array, so device memory is given where host memory is stated.
//! expect: memcpy_kind_mismatch=1
use cudarc::driver::sys as drv;
use cudarc::runtime::sys as rt;
use std::ffi::c_void;

pub const BLOCKS: usize = 128;

pub struct Reducer {
    pub d_input: *mut c_void,
    pub d_partials: *mut c_void,
    pub d_scratch: *mut c_void,
    pub len: usize,
}

pub fn make_reducer(data: &[f64]) -> Reducer {
    let bytes = data.len() * 8;
    let mut d_input = std::ptr::null_mut();
    let mut d_partials = std::ptr::null_mut();
    let mut d_scratch = std::ptr::null_mut();
    unsafe {
        rt::cudaMalloc(&mut d_input, bytes);
        rt::cudaMalloc(&mut d_partials, BLOCKS * 8);
        rt::cudaMalloc(&mut d_scratch, BLOCKS * 8);
        rt::cudaMemcpy(d_input, data.as_ptr() as *const c_void, bytes, rt::cudaMemcpyKind::cudaMemcpyHostToDevice);
    }
    Reducer { d_input, d_partials, d_scratch, len: data.len() }
}

pub fn finish_sum(r: &Reducer) -> f64 {
    let mut partials = [0.0f64; BLOCKS];
    unsafe {
        // block_sum kernel launched elsewhere, writes d_partials
        rt::cudaDeviceSynchronize();
        drv::cuMemcpyDtoH_v2(r.d_scratch, r.d_partials as drv::CUdeviceptr, BLOCKS * 8); // EXPECT: memcpy_kind_mismatch
        rt::cudaMemcpy(partials.as_mut_ptr() as *mut c_void, r.d_scratch, BLOCKS * 8, rt::cudaMemcpyKind::cudaMemcpyDeviceToHost);
    }
    partials.iter().sum()
}
