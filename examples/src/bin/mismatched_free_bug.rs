//! The `mismatched_free` misuses, really happening, through the raw driver API (cudarc's
//! `driver::sys`; the safe layers release their own memory):
//!
//! 1. pinned host memory (`cuMemAllocHost`) released by `cuMemFree`;
//! 2. device memory (`cuMemAlloc`) released by `cuMemFreeHost`;
//! 3. `cuMemHostUnregister` of memory that was never registered;
//! 4. a module's `__device__` variable (`get_global`) released by `cuMemFree` (cudarc #514).
//!
//! (`libc::free` of pinned memory is not run: it corrupts the C heap.) The program prints the
//! status the driver returns for each call. The fix (`mismatched_free_fixed`) releases each
//! with its own function and leaves the global to its module.

use std::ffi::c_void;
use std::ptr::null_mut;

use cuda_lint_examples::open_gpu;
use cuda_lint_runtime::Error;
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};
use cudarc::driver::{CudaContext, DevicePtr};
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
    println!("mismatched_free (bug): memory released by the wrong function");
    let Some(ctx) = open_gpu("mismatched_free_bug")? else {
        return Ok(());
    };
    ctx.synchronize()?;
    let mut refused = 0;
    unsafe {
        println!("1. cuMemFree of pinned host memory:");
        let mut host: *mut c_void = null_mut();
        report("cuMemAllocHost", sys::cuMemAllocHost_v2(&mut host, BYTES));
        let status = sys::cuMemFree_v2(host as CUdeviceptr); // cuda_lint::mismatched_free
        refused += (report("cuMemFree (pinned)", status) != CUresult::CUDA_SUCCESS) as u32;
        report("cuMemFreeHost (the right one)", sys::cuMemFreeHost(host));

        println!("2. cuMemFreeHost of device memory:");
        let mut dev: CUdeviceptr = 0;
        report("cuMemAlloc", sys::cuMemAlloc_v2(&mut dev, BYTES));
        let status = sys::cuMemFreeHost(dev as *mut c_void); // cuda_lint::mismatched_free
        refused += (report("cuMemFreeHost (device)", status) != CUresult::CUDA_SUCCESS) as u32;
        report("cuMemFree (the right one)", sys::cuMemFree_v2(dev));

        println!("3. cuMemHostUnregister of memory never registered:");
        let mut pinned: *mut c_void = null_mut();
        report("cuMemAllocHost", sys::cuMemAllocHost_v2(&mut pinned, BYTES));
        let status = sys::cuMemHostUnregister(pinned); // cuda_lint::mismatched_free
        refused += (report("cuMemHostUnregister", status) != CUresult::CUDA_SUCCESS) as u32;
        report("cuMemFreeHost", sys::cuMemFreeHost(pinned));
    }
    println!("4. cuMemFree of a module's global (cudarc):");
    match free_a_global() {
        Ok(status) => refused += (status != CUresult::CUDA_SUCCESS) as u32,
        Err(e) => println!("  cudarc: {e:?}"),
    }
    println!("=> the driver refused {refused} of the 4 releases");
    Ok(())
}

fn free_a_global() -> Result<CUresult, cudarc::driver::DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let module = ctx.load_module(compile_ptx(SRC).expect("the kernel compiles"))?;
    let global = module.get_global("table", &stream)?;
    let (ptr, guard) = global.device_ptr(&stream);
    drop(guard);
    let status = unsafe { sys::cuMemFree_v2(ptr) }; // cuda_lint::mismatched_free
    Ok(report("cuMemFree (module global)", status))
}
