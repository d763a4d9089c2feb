//! The `vmm_lifecycle` misuses, really happening, through the raw driver API (cudarc's
//! `driver::sys`; this project's runtime layer sets access and tears down in order by itself):
//!
//! 1. a reserved range freed (`cuMemAddressFree`) while it is still mapped: the driver refuses,
//!    and the range stays reserved;
//! 2. a mapping used by the device before `cuMemSetAccess` grants access to it: a memset of a
//!    fresh mapping (the driver refuses the call), then a kernel that writes one (the kernel
//!    faults; run last, as the fault ends the context).
//!
//! The program prints the status the driver returns for each call, by CUDA's name for it. The
//! fix (`vmm_lifecycle_fixed`) unmaps before freeing the range and sets access before the use.

use std::ptr::null_mut;

use cuda_lint_examples::open_gpu;
use cuda_lint_runtime::Error;
use cudarc::driver::sys::{self, CUdeviceptr, CUmemGenericAllocationHandle, CUresult};
use cudarc::driver::{CudaContext, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const FILL: &str = r#"
extern "C" __global__ void fill(unsigned int* out, unsigned int v, unsigned int n) {
    unsigned int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n) out[i] = v;
}
"#;

unsafe fn create(size: usize, ordinal: i32) -> CUmemGenericAllocationHandle {
    unsafe {
        let mut prop: sys::CUmemAllocationProp = std::mem::zeroed();
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = ordinal;
        let mut handle: CUmemGenericAllocationHandle = 0;
        report("cuMemCreate", sys::cuMemCreate(&mut handle, size, &prop, 0));
        handle
    }
}

fn report(call: &str, status: CUresult) -> CUresult {
    println!("  {call}: {status:?}");
    status
}

fn main() -> Result<(), Error> {
    println!("vmm_lifecycle (bug): a mapped range freed, a mapping used without access");
    let Some(ctx) = open_gpu("vmm_lifecycle_bug")? else {
        return Ok(());
    };
    if !ctx.vmm_supported()? {
        println!("SKIP vmm_lifecycle_bug: this device does not support VMM (cuMemMap)");
        return Ok(());
    }
    let size = ctx.vmm_granularity()?;
    let ordinal = ctx.ordinal() as i32;
    // Makes the context current on this thread for the raw calls below.
    ctx.synchronize()?;
    unsafe {
        println!("1. cuMemAddressFree while the range is mapped:");
        let handle = create(size, ordinal);
        let mut va: CUdeviceptr = 0;
        report("cuMemAddressReserve", sys::cuMemAddressReserve(&mut va, size, 0, 0, 0));
        report("cuMemMap", sys::cuMemMap(va, size, 0, handle, 0));
        report("cuMemRelease", sys::cuMemRelease(handle));
        let freed = sys::cuMemAddressFree(va, size); // cuda_lint::vmm_lifecycle
        report("cuMemAddressFree (still mapped)", freed);
        if freed != CUresult::CUDA_SUCCESS {
            println!("=> the driver refused to free a mapped range: {freed:?}; it stays reserved");
        }
        // Clean up in the documented order (what the fix does in the first place).
        report("cuMemUnmap", sys::cuMemUnmap(va, size));
        report("cuMemAddressFree (after the unmap)", sys::cuMemAddressFree(va, size));

        println!("2. a memset of a mapping no cuMemSetAccess granted access to:");
        let handle = create(size, ordinal);
        let mut va: CUdeviceptr = 0;
        report("cuMemAddressReserve", sys::cuMemAddressReserve(&mut va, size, 0, 0, 0));
        report("cuMemMap", sys::cuMemMap(va, size, 0, handle, 0));
        report("cuMemRelease", sys::cuMemRelease(handle));
        let launched = sys::cuMemsetD32Async(va, 7, size / 4, null_mut()); // cuda_lint::vmm_lifecycle
        report("cuMemsetD32Async (no access)", launched);
        let done = report("cuCtxSynchronize", sys::cuCtxSynchronize());
        if launched != CUresult::CUDA_SUCCESS || done != CUresult::CUDA_SUCCESS {
            println!(
                "=> the device could not use the mapping: {:?}",
                if launched != CUresult::CUDA_SUCCESS {
                    launched
                } else {
                    done
                }
            );
        } else {
            println!("=> no error this time (the driver let the memset through)");
        }
        report("cuMemUnmap", sys::cuMemUnmap(va, size));
        report("cuMemAddressFree", sys::cuMemAddressFree(va, size));

        println!("3. a kernel writing a mapping no cuMemSetAccess granted access to (cudarc):");
        let handle = create(size, ordinal);
        let mut va: CUdeviceptr = 0;
        report("cuMemAddressReserve", sys::cuMemAddressReserve(&mut va, size, 0, 0, 0));
        report("cuMemMap", sys::cuMemMap(va, size, 0, handle, 0));
        report("cuMemRelease", sys::cuMemRelease(handle));
        // The kernel inside faults (reported here, where the mapping is known).
        let filled = fill_with_a_kernel(ordinal as usize, va, size / 4); // cuda_lint::vmm_lifecycle
        match filled {
            Ok(()) => println!("=> no error this time (the kernel ran)"),
            Err(e) => println!("=> the kernel faulted: {e:?}"),
        }
    }
    Ok(())
}

/// Launches `fill` over `n` words at `va` with cudarc and waits for it.
fn fill_with_a_kernel(ordinal: usize, va: CUdeviceptr, n: usize) -> Result<(), DriverError> {
    let ctx = CudaContext::new(ordinal)?;
    let stream = ctx.default_stream();
    let f = ctx
        .load_module(compile_ptx(FILL).expect("the kernel compiles"))?
        .load_function("fill")?;
    // SAFETY: `va` holds `n` words (mapped); cudarc must not free it (leaked below).
    let mut out = unsafe { stream.upgrade_device_ptr::<u32>(va, n) };
    let (v, len) = (7u32, n as u32);
    let mut launch = stream.launch_builder(&f);
    launch.arg(&mut out).arg(&v).arg(&len);
    let launched = unsafe { launch.launch(LaunchConfig::for_num_elems(len)) };
    println!(
        "  cuLaunchKernel (no access): {:?}",
        launched.as_ref().map(|_| "CUDA_SUCCESS")
    );
    let done = stream.synchronize();
    println!("  cuStreamSynchronize: {:?}", done.as_ref().map(|_| "CUDA_SUCCESS"));
    out.leak();
    launched.map(|_| ())?;
    done
}
