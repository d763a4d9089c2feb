//! case: a buffer from cuMemAlloc_v2 is filled by cuRAND's curandGenerateUniform (declared extern "C", body not in the crate) before it is copied back: the library may write it
//! expect: none
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};
use cudarc::driver::CudaContext;
use std::ffi::c_void;

const N: usize = 8192;

#[repr(C)]
pub struct CurandGenerator {
    _private: [u8; 0],
}

#[link(name = "curand")]
unsafe extern "C" {
    fn curandCreateGenerator(generator: *mut *mut CurandGenerator, rng_type: i32) -> i32;
    fn curandSetPseudoRandomGeneratorSeed(generator: *mut CurandGenerator, seed: u64) -> i32;
    fn curandGenerateUniform(generator: *mut CurandGenerator, out: *mut f32, num: usize) -> i32;
    fn curandDestroyGenerator(generator: *mut CurandGenerator) -> i32;
}

const CURAND_RNG_PSEUDO_DEFAULT: i32 = 100;

pub fn uniform_samples(seed: u64) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let mut generator: *mut CurandGenerator = std::ptr::null_mut();
    if unsafe { curandCreateGenerator(&mut generator, CURAND_RNG_PSEUDO_DEFAULT) } != 0 {
        return Err("curand unavailable".into());
    }
    let mut samples = vec![0.0f32; N];
    let mut d_samples: CUdeviceptr = 0;
    let mut curand_err = 0;
    let mut rcs = Vec::new();
    unsafe {
        rcs.push(sys::cuMemAlloc_v2(&mut d_samples, N * 4));
        curand_err |= curandSetPseudoRandomGeneratorSeed(generator, seed);
        curand_err |= curandGenerateUniform(generator, d_samples as *mut f32, N);
        rcs.push(sys::cuMemcpyDtoH_v2(samples.as_mut_ptr() as *mut c_void, d_samples, N * 4));
        rcs.push(sys::cuMemFree_v2(d_samples));
        curandDestroyGenerator(generator);
    }
    if curand_err != 0 || rcs.iter().any(|r| *r != CUresult::CUDA_SUCCESS) {
        return Err("sampling failed".into());
    }
    Ok(samples)
}
