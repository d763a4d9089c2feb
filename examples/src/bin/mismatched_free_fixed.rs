//! `mismatched_free_bug` fixed: each allocation is released by its own allocator's function
//! (`cuMemFreeHost` for `cuMemAllocHost`, `cuMemFree` for `cuMemAlloc`), only registered memory
//! is unregistered, and a module's global is left to its module. Every call succeeds.

use std::ffi::c_void;
use std::ptr::null_mut;

use cuda_lint_examples::open_gpu;
use cuda_lint_runtime::Error;
use cudarc::driver::CudaContext;
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};
use cudarc::nvrtc::compile_ptx;

const BYTES: usize = 1 << 20;
const SRC: &str = r#"
__device__ float table[256];
extern "C" __global__ void read_table(float* out) { out[threadIdx.x] = table[threadIdx.x]; }
"#;

fn report(call: &str, status: CUresult) -> CUresult {
    println!("  {call}: {status:?}");
    status
}

fn main() -> Result<(), Error> {
    println!("mismatched_free (fixed): each allocation released by its own function");
    let Some(ctx) = open_gpu("mismatched_free_fixed")? else {
        return Ok(());
    };
    ctx.synchronize()?;
    let mut failed = 0;
    unsafe {
        let mut host: *mut c_void = null_mut();
        report("cuMemAllocHost", sys::cuMemAllocHost_v2(&mut host, BYTES));
        failed += (report("cuMemFreeHost", sys::cuMemFreeHost(host)) != CUresult::CUDA_SUCCESS) as u32;

        let mut dev: CUdeviceptr = 0;
        report("cuMemAlloc", sys::cuMemAlloc_v2(&mut dev, BYTES));
        failed += (report("cuMemFree", sys::cuMemFree_v2(dev)) != CUresult::CUDA_SUCCESS) as u32;

        let mut buf = vec![0u8; BYTES];
        let at = buf.as_mut_ptr().cast::<c_void>();
        report("cuMemHostRegister", sys::cuMemHostRegister_v2(at, BYTES, 0));
        failed += (report("cuMemHostUnregister", sys::cuMemHostUnregister(at)) != CUresult::CUDA_SUCCESS) as u32;
        drop(buf);
    }
    match write_a_global() {
        Ok(()) => println!("  module global written through its view, left to the module"),
        Err(e) => {
            println!("  cudarc: {e:?}");
            failed += 1;
        }
    }
    if failed == 0 {
        println!("=> every release succeeded");
    } else {
        println!("=> {failed} release(s) failed");
    }
    Ok(())
}

fn write_a_global() -> Result<(), cudarc::driver::DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let module = ctx.load_module(compile_ptx(SRC).expect("the kernel compiles"))?;
    let mut global = module.get_global("table", &stream)?;
    stream.memset_zeros(&mut global)?;
    stream.synchronize()
}
