//! `vmm_lifecycle_bug` fixed: the range is unmapped before it is freed, and `cuMemSetAccess`
//! grants the device read-write access to each mapping before its first use. Every call
//! returns `CUDA_SUCCESS`, and the memset's values read back.

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

unsafe fn grant(va: CUdeviceptr, size: usize, ordinal: i32) {
    unsafe {
        let mut access: sys::CUmemAccessDesc = std::mem::zeroed();
        access.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        access.location.id = ordinal;
        access.flags = sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        report("cuMemSetAccess", sys::cuMemSetAccess(va, size, &access, 1));
    }
}

fn report(call: &str, status: CUresult) -> CUresult {
    println!("  {call}: {status:?}");
    status
}

fn main() -> Result<(), Error> {
    println!("vmm_lifecycle (fixed): unmap before freeing the range, set access before the use");
    let Some(ctx) = open_gpu("vmm_lifecycle_fixed")? else {
        return Ok(());
    };
    if !ctx.vmm_supported()? {
        println!("SKIP vmm_lifecycle_fixed: this device does not support VMM (cuMemMap)");
        return Ok(());
    }
    let size = ctx.vmm_granularity()?;
    let ordinal = ctx.ordinal() as i32;
    ctx.synchronize()?;
    let mut failures = 0;
    unsafe {
        println!("1. unmap, release, then free the range:");
        let handle = create(size, ordinal);
        let mut va: CUdeviceptr = 0;
        report("cuMemAddressReserve", sys::cuMemAddressReserve(&mut va, size, 0, 0, 0));
        report("cuMemMap", sys::cuMemMap(va, size, 0, handle, 0));
        report("cuMemUnmap", sys::cuMemUnmap(va, size));
        report("cuMemRelease", sys::cuMemRelease(handle));
        if report("cuMemAddressFree", sys::cuMemAddressFree(va, size)) != CUresult::CUDA_SUCCESS {
            failures += 1;
        }

        println!("2. set access, then the memset:");
        let handle = create(size, ordinal);
        let mut va: CUdeviceptr = 0;
        report("cuMemAddressReserve", sys::cuMemAddressReserve(&mut va, size, 0, 0, 0));
        report("cuMemMap", sys::cuMemMap(va, size, 0, handle, 0));
        report("cuMemRelease", sys::cuMemRelease(handle));
        grant(va, size, ordinal);
        let launched = report("cuMemsetD32Async", sys::cuMemsetD32Async(va, 7, size / 4, null_mut()));
        let done = report("cuCtxSynchronize", sys::cuCtxSynchronize());
        let mut first = [0u32; 4];
        report(
            "cuMemcpyDtoH",
            sys::cuMemcpyDtoH_v2(first.as_mut_ptr().cast(), va, std::mem::size_of_val(&first)),
        );
        println!("  first values: {first:?}");
        if launched != CUresult::CUDA_SUCCESS || done != CUresult::CUDA_SUCCESS || first != [7; 4] {
            failures += 1;
        }
        report("cuMemUnmap", sys::cuMemUnmap(va, size));
        report("cuMemAddressFree", sys::cuMemAddressFree(va, size));

        println!("3. set access, then a kernel writes the mapping (cudarc):");
        let handle = create(size, ordinal);
        let mut va: CUdeviceptr = 0;
        report("cuMemAddressReserve", sys::cuMemAddressReserve(&mut va, size, 0, 0, 0));
        report("cuMemMap", sys::cuMemMap(va, size, 0, handle, 0));
        report("cuMemRelease", sys::cuMemRelease(handle));
        grant(va, size, ordinal);
        match fill_with_a_kernel(ordinal as usize, va, size / 4) {
            Ok(first) => {
                println!("  first values: {first:?}");
                if first != [7; 4] {
                    failures += 1;
                }
            }
            Err(e) => {
                println!("  the kernel failed: {e:?}");
                failures += 1;
            }
        }
        report("cuMemUnmap", sys::cuMemUnmap(va, size));
        report("cuMemAddressFree", sys::cuMemAddressFree(va, size));
    }
    if failures == 0 {
        println!("=> every call succeeded and the memset's values read back");
    } else {
        println!("=> {failures} step(s) failed");
    }
    Ok(())
}

/// Launches `fill` over `n` words at `va` with cudarc, waits, and reads the first four back.
fn fill_with_a_kernel(ordinal: usize, va: CUdeviceptr, n: usize) -> Result<[u32; 4], DriverError> {
    let ctx = CudaContext::new(ordinal)?;
    let stream = ctx.default_stream();
    let f = ctx
        .load_module(compile_ptx(FILL).expect("the kernel compiles"))?
        .load_function("fill")?;
    // SAFETY: `va` holds `n` words (mapped, with access); cudarc must not free it (leaked below).
    let mut out = unsafe { stream.upgrade_device_ptr::<u32>(va, n) };
    let (v, len) = (7u32, n as u32);
    let mut launch = stream.launch_builder(&f);
    launch.arg(&mut out).arg(&v).arg(&len);
    unsafe { launch.launch(LaunchConfig::for_num_elems(len))? };
    // SAFETY: flags 0: plain pinned memory (not write-combined), read by the host below.
    let mut first = unsafe { ctx.alloc_pinned_with_flags::<u32>(4, 0)? };
    stream.memcpy_dtoh(&out.slice(0..4), &mut first)?;
    stream.synchronize()?;
    out.leak();
    let first = first.as_slice()?;
    Ok([first[0], first[1], first[2], first[3]])
}
