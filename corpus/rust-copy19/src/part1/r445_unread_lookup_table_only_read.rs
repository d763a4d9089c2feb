//! case: a gamma lookup table is uploaded, only read by the kernel (const parameter), and freed without a copy back: only a kernel's write makes output, so the table is not unread output
//! expect: none
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::ffi::c_void;

const PIXELS: usize = 4096;

const GAMMA_SRC: &str = r#"
extern "C" __global__ void apply_lut(const unsigned char* lut, const unsigned char* in, unsigned char* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = lut[in[i]];
}
"#;

pub fn gamma(pixels: &[u8; PIXELS], lut: &[u8; 256]) -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = ctx.load_module(compile_ptx(GAMMA_SRC)?)?.load_function("apply_lut")?;

    let mut out = vec![0u8; PIXELS];
    let (mut d_lut, mut d_in, mut d_out): (CUdeviceptr, CUdeviceptr, CUdeviceptr) = (0, 0, 0);
    let mut rcs = Vec::new();
    unsafe {
        rcs.push(sys::cuMemAlloc_v2(&mut d_lut, 256));
        rcs.push(sys::cuMemAlloc_v2(&mut d_in, PIXELS));
        rcs.push(sys::cuMemAlloc_v2(&mut d_out, PIXELS));
        rcs.push(sys::cuMemcpyHtoD_v2(d_lut, lut.as_ptr() as *const c_void, 256));
        rcs.push(sys::cuMemcpyHtoD_v2(d_in, pixels.as_ptr() as *const c_void, PIXELS));
    }
    let n = PIXELS as i32;
    let mut b = stream.launch_builder(&f);
    b.arg(&d_lut).arg(&d_in).arg(&d_out).arg(&n);
    let launched = unsafe { b.launch(LaunchConfig::for_num_elems(PIXELS as u32)) };
    unsafe {
        rcs.push(sys::cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut c_void, d_out, PIXELS));
        rcs.push(sys::cuMemFree_v2(d_lut));
        rcs.push(sys::cuMemFree_v2(d_in));
        rcs.push(sys::cuMemFree_v2(d_out));
    }
    launched?;
    if rcs.iter().any(|r| *r != CUresult::CUDA_SUCCESS) {
        return Err("gamma failed".into());
    }
    Ok(out)
}
