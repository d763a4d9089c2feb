//! case: near miss: cuMemAlloc'd noise buffer is filled by cuRAND (declared in an extern block, no body in the crate) before a kernel reads it
//! expect: none

use cudarc::driver::sys;
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::ffi::c_void;
use std::mem::size_of;

#[link(name = "curand")]
unsafe extern "C" {
    fn curandCreateGenerator(generator: *mut *mut c_void, rng_type: i32) -> i32;
    fn curandGenerateUniform(generator: *mut c_void, output: *mut f32, num: usize) -> i32;
    fn curandDestroyGenerator(generator: *mut c_void) -> i32;
}

const CURAND_RNG_PSEUDO_DEFAULT: i32 = 100;

const SRC: &str = r#"
extern "C" __global__ void add_noise(const float* noise, float* img, float amp, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) img[i] += amp * (noise[i] - 0.5f);
}
"#;

const PIXELS: usize = 256 * 256;

pub fn jitter(image: &[f32; PIXELS]) -> Vec<f32> {
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.default_stream();
    let f = ctx.load_module(compile_ptx(SRC).unwrap()).unwrap().load_function("add_noise").unwrap();
    let mut d_noise: sys::CUdeviceptr = 0;
    let mut d_img: sys::CUdeviceptr = 0;
    let mut out = vec![0.0f32; PIXELS];
    let mut rng: *mut c_void = std::ptr::null_mut();
    unsafe {
        sys::cuMemAlloc_v2(&mut d_noise, PIXELS * size_of::<f32>()).result().unwrap();
        sys::cuMemAlloc_v2(&mut d_img, PIXELS * size_of::<f32>()).result().unwrap();
        sys::cuMemcpyHtoD_v2(d_img, image.as_ptr() as *const c_void, PIXELS * size_of::<f32>()).result().unwrap();
        curandCreateGenerator(&mut rng, CURAND_RNG_PSEUDO_DEFAULT);
        curandGenerateUniform(rng, d_noise as *mut f32, PIXELS);
    }
    let amp = 0.05f32;
    let n = PIXELS as i32;
    let mut b = stream.launch_builder(&f);
    b.arg(&d_noise).arg(&d_img).arg(&amp).arg(&n);
    unsafe { b.launch(LaunchConfig::for_num_elems(n as u32)).unwrap() };
    unsafe {
        sys::cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut c_void, d_img, PIXELS * size_of::<f32>()).result().unwrap();
        curandDestroyGenerator(rng);
        sys::cuMemFree_v2(d_img).result().unwrap();
        sys::cuMemFree_v2(d_noise).result().unwrap();
    }
    out
}
