//! case: raw driver API: managed memory (cuMemAllocManaged) written by a kernel, read on the host through the same address after cuStreamSynchronize
//! expect: none
use std::ffi::{c_void, CString};
use std::ptr;

use cudarc::driver::sys::{self, CUdeviceptr, CUfunction, CUmodule, CUresult, CUstream};

const SQ_SRC: &str = r#"
extern "C" __global__ void squares(unsigned* out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = i * i;
}
"#;

fn check(r: CUresult) -> Result<(), String> {
    if r == CUresult::CUDA_SUCCESS { Ok(()) } else { Err(format!("{r:?}")) }
}

pub unsafe fn sum_of_squares(n: u32) -> Result<u64, Box<dyn std::error::Error>> {
    let image = CString::new(cudarc::nvrtc::compile_ptx(SQ_SRC)?.to_src())?;
    let name = CString::new("squares")?;
    let mut module: CUmodule = ptr::null_mut();
    let mut f: CUfunction = ptr::null_mut();
    let mut stream: CUstream = ptr::null_mut();
    let mut out: CUdeviceptr = 0;
    unsafe {
        check(sys::cuModuleLoadData(&mut module, image.as_ptr().cast()))?;
        check(sys::cuModuleGetFunction(&mut f, module, name.as_ptr()))?;
        check(sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32))?;
        check(sys::cuMemAllocManaged(&mut out, n as usize * 4, sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32))?;
        let (mut o, mut len) = (out, n);
        let mut params: [*mut c_void; 2] = [(&mut o as *mut CUdeviceptr).cast(), (&mut len as *mut u32).cast()];
        check(sys::cuLaunchKernel(f, n.div_ceil(128), 1, 1, 128, 1, 1, 0, stream, params.as_mut_ptr(), ptr::null_mut()))?;
        check(sys::cuStreamSynchronize(stream))?;
        let host = std::slice::from_raw_parts(out as *const u32, n as usize);
        let total = host.iter().map(|&v| v as u64).sum();
        check(sys::cuMemFree_v2(out))?;
        check(sys::cuStreamDestroy_v2(stream))?;
        check(sys::cuModuleUnload(module))?;
        Ok(total)
    }
}
