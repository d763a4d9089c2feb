// One reservation, one physical allocation mapped twice inside it: the mirrored ring buffer
// (`cuMemAddressReserve` of 2 x size, the handle mapped at `base` and at `base + size`), its
// views computed by address arithmetic (a constant offset, a struct's method adding a stored
// size), and the mappings made in a loop. Each view is a mapping of its own. A
// `fence.proxy.alias` in a `//` or `/* */` comment is no fence.
#![cfg_attr(cuda_lint, allow(cuda_lint::device_memory_leak))] // other lints' subject: the test code leaks, or reads memory it never wrote
use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr, CUfunction, CUmemGenericAllocationHandle};
use cudarc::driver::{CudaContext, DriverError};
use cudarc::nvrtc::compile_ptx;

const SIZE: usize = 2 << 20;

const RING_KERNELS: &str = r#"
extern "C" __global__ void wrap_copy(volatile float* head, volatile float* mirror, float* out) {
    int i = threadIdx.x;
    head[i] = 1.0f;
    // asm volatile("fence.proxy.alias;" ::: "memory");
    out[i] = mirror[i];
}
extern "C" __global__ void wrap_copy_block_comment(volatile float* head, volatile float* mirror, float* out) {
    int i = threadIdx.x;
    head[i] = 1.0f;
    /* fence.proxy.alias is needed here */
    out[i] = mirror[i];
}
extern "C" __global__ void wrap_copy_fenced(volatile float* head, volatile float* mirror, float* out) {
    int i = threadIdx.x;
    head[i] = 1.0f;
    asm volatile("fence.proxy.alias;" ::: "memory");
    out[i] = mirror[i];
}
extern "C" __global__ void wrap_sum(const float* head, const float* mirror, float* out) {
    int i = threadIdx.x;
    out[i] = head[i] + mirror[i];
}
"#;

fn kernel(ctx: &Arc<CudaContext>, name: &str) -> Result<CUfunction, DriverError> {
    let f = ctx.load_module(compile_ptx(RING_KERNELS).expect("the kernels compile"))?.load_function(name)?;
    Ok(f.cu_function())
}

unsafe fn physical() -> CUmemGenericAllocationHandle {
    unsafe {
        let mut prop: sys::CUmemAllocationProp = std::mem::zeroed();
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        let mut handle: CUmemGenericAllocationHandle = 0;
        sys::cuMemCreate(&mut handle, SIZE, &prop, 0);
        handle
    }
}

/// Gives this device read-write access to `size` bytes at `va` (a mapping starts with none).
unsafe fn grant(va: CUdeviceptr, size: usize) {
    unsafe {
        let mut access: sys::CUmemAccessDesc = std::mem::zeroed();
        access.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        access.flags = sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        sys::cuMemSetAccess(va, size, &access, 1);
    }
}

unsafe fn launch3(f: CUfunction, mut a: CUdeviceptr, mut b: CUdeviceptr) {
    unsafe {
        let mut out: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut out, SIZE);
        let mut params = [
            &mut a as *mut CUdeviceptr as *mut c_void,
            &mut b as *mut CUdeviceptr as *mut c_void,
            &mut out as *mut CUdeviceptr as *mut c_void,
        ];
        sys::cuLaunchKernel(f, 1, 1, 1, 256, 1, 1, 0, null_mut(), params.as_mut_ptr(), null_mut());
    }
}

/// A mirrored ring buffer: `[base, base + size)` and `[base + size, base + 2 size)` show the
/// same bytes, so a read that runs past the end wraps without a copy.
struct Ring {
    base: CUdeviceptr,
    size: usize,
}

impl Ring {
    fn new(handle: CUmemGenericAllocationHandle, size: usize) -> Ring {
        unsafe {
            let mut base: CUdeviceptr = 0;
            sys::cuMemAddressReserve(&mut base, 2 * size, 0, 0, 0);
            sys::cuMemMap(base, size, 0, handle, 0);
            sys::cuMemMap(base + size as u64, size, 0, handle, 0);
            grant(base, 2 * size);
            Ring { base, size }
        }
    }

    fn head(&self) -> CUdeviceptr {
        self.base
    }

    fn mirror(&self) -> CUdeviceptr {
        self.base + self.size as u64
    }
}

/// Two allocations side by side in one reservation: no alias.
struct TwoChunks {
    base: CUdeviceptr,
    size: usize,
}

impl TwoChunks {
    fn new(size: usize) -> TwoChunks {
        unsafe {
            let mut base: CUdeviceptr = 0;
            sys::cuMemAddressReserve(&mut base, 2 * size, 0, 0, 0);
            sys::cuMemMap(base, size, 0, physical(), 0);
            sys::cuMemMap(base + size as u64, size, 0, physical(), 0);
            grant(base, 2 * size);
            TwoChunks { base, size }
        }
    }

    fn second(&self) -> CUdeviceptr {
        self.base + self.size as u64
    }
}

fn fires_constant_views_of_one_reservation(ctx: &Arc<CudaContext>) -> Result<(), DriverError> {
    let f = kernel(ctx, "wrap_copy")?;
    unsafe {
        let h = physical();
        let mut base: CUdeviceptr = 0;
        sys::cuMemAddressReserve(&mut base, 2 * SIZE, 0, 0, 0);
        sys::cuMemMap(base, SIZE, 0, h, 0);
        sys::cuMemMap(base + SIZE as u64, SIZE, 0, h, 0);
        grant(base, 2 * SIZE);
        launch3(f, base, base + SIZE as u64);
        //~^ unfenced_vmm_alias
        sys::cuCtxSynchronize();
    }
    Ok(())
}

fn fires_views_computed_in_methods(ctx: &Arc<CudaContext>) -> Result<(), DriverError> {
    let f = kernel(ctx, "wrap_copy")?;
    let ring = Ring::new(unsafe { physical() }, SIZE);
    unsafe {
        launch3(f, ring.head(), ring.mirror());
        //~^ unfenced_vmm_alias
        sys::cuCtxSynchronize();
    }
    Ok(())
}

fn fires_fence_only_in_a_block_comment(ctx: &Arc<CudaContext>) -> Result<(), DriverError> {
    let f = kernel(ctx, "wrap_copy_block_comment")?;
    let ring = Ring::new(unsafe { physical() }, SIZE);
    unsafe {
        launch3(f, ring.head(), ring.mirror());
        //~^ unfenced_vmm_alias
        sys::cuCtxSynchronize();
    }
    Ok(())
}

fn fires_mapped_in_a_loop(ctx: &Arc<CudaContext>) -> Result<(), DriverError> {
    let f = kernel(ctx, "wrap_copy")?;
    unsafe {
        let h = physical();
        let mut base: CUdeviceptr = 0;
        sys::cuMemAddressReserve(&mut base, 2 * SIZE, 0, 0, 0);
        for copy in 0..2u64 {
            sys::cuMemMap(base + copy * SIZE as u64, SIZE, 0, h, 0);
        }
        grant(base, 2 * SIZE);
        launch3(f, base, base + SIZE as u64);
        //~^ unfenced_vmm_alias
        sys::cuCtxSynchronize();
    }
    Ok(())
}

fn fires_element_offset_of_a_view(ctx: &Arc<CudaContext>) -> Result<(), DriverError> {
    // 16 floats into the mirror is still the mirror.
    let f = kernel(ctx, "wrap_copy")?;
    let ring = Ring::new(unsafe { physical() }, SIZE);
    unsafe {
        launch3(f, ring.head(), ring.mirror() + 64);
        //~^ unfenced_vmm_alias
        sys::cuCtxSynchronize();
    }
    Ok(())
}

fn ok_two_allocations_in_one_reservation(ctx: &Arc<CudaContext>) -> Result<(), DriverError> {
    let f = kernel(ctx, "wrap_copy")?;
    let chunks = TwoChunks::new(SIZE);
    unsafe {
        launch3(f, chunks.base, chunks.second());
        sys::cuCtxSynchronize();
    }
    Ok(())
}

fn ok_fenced_kernel_on_the_ring(ctx: &Arc<CudaContext>) -> Result<(), DriverError> {
    let f = kernel(ctx, "wrap_copy_fenced")?;
    let ring = Ring::new(unsafe { physical() }, SIZE);
    unsafe {
        launch3(f, ring.head(), ring.mirror());
        sys::cuCtxSynchronize();
    }
    Ok(())
}

fn ok_kernel_only_reads_both_views(ctx: &Arc<CudaContext>) -> Result<(), DriverError> {
    let f = kernel(ctx, "wrap_sum")?;
    let ring = Ring::new(unsafe { physical() }, SIZE);
    unsafe {
        launch3(f, ring.head(), ring.mirror());
        sys::cuCtxSynchronize();
    }
    Ok(())
}

fn ok_one_view_passed_twice(ctx: &Arc<CudaContext>) -> Result<(), DriverError> {
    let f = kernel(ctx, "wrap_copy")?;
    let ring = Ring::new(unsafe { physical() }, SIZE);
    unsafe {
        launch3(f, ring.mirror(), ring.mirror());
        sys::cuCtxSynchronize();
    }
    Ok(())
}

fn ok_only_the_first_half_is_mapped(ctx: &Arc<CudaContext>) -> Result<(), DriverError> {
    // The second half is reserved, not mapped: nothing aliases (the kernel would fault there,
    // which is not this lint's to say).
    let f = kernel(ctx, "wrap_copy")?;
    unsafe {
        let h = physical();
        let mut base: CUdeviceptr = 0;
        sys::cuMemAddressReserve(&mut base, 2 * SIZE, 0, 0, 0);
        sys::cuMemMap(base, SIZE, 0, h, 0);
        grant(base, SIZE);
        launch3(f, base, base + SIZE as u64);
        sys::cuCtxSynchronize();
    }
    Ok(())
}

fn ok_chunks_of_a_pool_at_computed_offsets(ctx: &Arc<CudaContext>, chunks: u64, a: u64, b: u64) -> Result<(), DriverError> {
    // A pool maps a new allocation per chunk; the kernel gets two chunks it computed.
    let f = kernel(ctx, "wrap_copy")?;
    unsafe {
        let mut base: CUdeviceptr = 0;
        sys::cuMemAddressReserve(&mut base, chunks as usize * SIZE, 0, 0, 0);
        for i in 0..chunks {
            sys::cuMemMap(base + i * SIZE as u64, SIZE, 0, physical(), 0);
        }
        grant(base, chunks as usize * SIZE);
        launch3(f, base + a * SIZE as u64, base + b * SIZE as u64);
        sys::cuCtxSynchronize();
    }
    Ok(())
}

fn main() {}
