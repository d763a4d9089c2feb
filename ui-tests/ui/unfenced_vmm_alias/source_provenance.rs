// Kernel source followed to the constant it is: through a helper that takes the source (or the
// module, or the kernel name) as a parameter, through `compile_ptx_with_opts`, and from a
// `const` in another module. A helper that only sees a parameter does not report on its own:
// its callers, which see the constant, do.
use std::sync::Arc;

use cuda_lint_runtime::{Context, Error, Kernel, LaunchConfig, Mapping, PhysicalAllocation, Stream, VirtualRange};
use cudarc::driver::sys::{self, CUdeviceptr, CUmemGenericAllocationHandle};
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DriverError, PushKernelArg};
use cudarc::nvrtc::{CompileOptions, compile_ptx_with_opts};

mod kernels {
    pub const UNFENCED: &str = r#"
extern "C" __global__ void ring_update(int* head, const int* tail, int* out) {
    head[threadIdx.x] = 1; out[threadIdx.x] = tail[threadIdx.x]; }
"#;
    pub const FENCED: &str = r#"
extern "C" __global__ void ring_update(int* head, const int* tail, int* out) {
    head[threadIdx.x] = 1; asm volatile("fence.proxy.alias;" ::: "memory"); out[threadIdx.x] = tail[threadIdx.x]; }
"#;
}

fn double_map(ctx: &Context) -> Result<(PhysicalAllocation, Mapping, Mapping), Error> {
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let a = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let b = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    Ok((phys, a, b))
}

/// Compiles `source` and launches its `ring_update` on two mappings of one allocation.
fn launch_from_source(ctx: &Context, stream: &Stream, source: &str) -> Result<(), Error> {
    let (_phys, head, tail) = double_map(ctx)?;
    let out = ctx.alloc::<i32>(256)?;
    let module = ctx.load_cuda(source)?;
    let k = module.function("ring_update")?;
    unsafe { stream.launch(&k, LaunchConfig::for_num_elems(256), &[&head, &tail, &out])? };
    stream.synchronize()
}

/// Launches a kernel the caller loaded.
fn launch_kernel(ctx: &Context, stream: &Stream, k: &Kernel) -> Result<(), Error> {
    let (_phys, head, tail) = double_map(ctx)?;
    let out = ctx.alloc::<i32>(256)?;
    unsafe { stream.launch(k, LaunchConfig::for_num_elems(256), &[&head, &tail, &out])? };
    stream.synchronize()
}

/// Looks the kernel up by a name the caller gives.
fn launch_named(ctx: &Context, stream: &Stream, name: &str) -> Result<(), Error> {
    let (_phys, head, tail) = double_map(ctx)?;
    let out = ctx.alloc::<i32>(256)?;
    let module = ctx.load_cuda(kernels::UNFENCED)?;
    let k = module.function(name)?;
    unsafe { stream.launch(&k, LaunchConfig::for_num_elems(256), &[&head, &tail, &out])? };
    stream.synchronize()
}

fn fires_source_passed_to_a_helper(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    launch_from_source(ctx, stream, kernels::UNFENCED)
    //~^ unfenced_vmm_alias
}

fn fires_kernel_passed_to_a_helper(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let module = ctx.load_cuda(kernels::UNFENCED)?;
    let k = module.function("ring_update")?;
    launch_kernel(ctx, stream, &k)
    //~^ unfenced_vmm_alias
}

fn fires_name_passed_to_a_helper(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    launch_named(ctx, stream, "ring_update")
    //~^ unfenced_vmm_alias
}

fn fires_const_of_another_module(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let (_phys, head, tail) = double_map(ctx)?;
    let out = ctx.alloc::<i32>(256)?;
    let module = ctx.load_cuda(kernels::UNFENCED)?;
    let k = module.function("ring_update")?;
    unsafe { stream.launch(&k, LaunchConfig::for_num_elems(256), &[&head, &tail, &out])? };
    //~^ unfenced_vmm_alias
    stream.synchronize()
}

fn ok_fenced_source_passed_to_a_helper(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    launch_from_source(ctx, stream, kernels::FENCED)
}

fn ok_fenced_kernel_passed_to_a_helper(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let module = ctx.load_cuda(kernels::FENCED)?;
    let k = module.function("ring_update")?;
    launch_kernel(ctx, stream, &k)
}

fn ok_source_through_two_helpers(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    fn outer(ctx: &Context, stream: &Stream, src: &str) -> Result<(), Error> {
        launch_from_source(ctx, stream, src)
    }
    outer(ctx, stream, kernels::FENCED)
}

// cudarc: NVRTC with options, the source given by the caller.

unsafe fn mapped_pair(stream: &Arc<CudaStream>) -> (CudaSlice<i32>, CudaSlice<i32>) {
    unsafe {
        let mut prop: sys::CUmemAllocationProp = std::mem::zeroed();
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        let mut handle: CUmemGenericAllocationHandle = 0;
        sys::cuMemCreate(&mut handle, 2 << 20, &prop, 0);
        let (mut va, mut vb): (CUdeviceptr, CUdeviceptr) = (0, 0);
        sys::cuMemAddressReserve(&mut va, 2 << 20, 0, 0, 0);
        sys::cuMemAddressReserve(&mut vb, 2 << 20, 0, 0, 0);
        sys::cuMemMap(va, 2 << 20, 0, handle, 0);
        sys::cuMemMap(vb, 2 << 20, 0, handle, 0);
        let mut access: sys::CUmemAccessDesc = std::mem::zeroed();
        access.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        access.flags = sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        sys::cuMemSetAccess(va, 2 << 20, &access, 1);
        sys::cuMemSetAccess(vb, 2 << 20, &access, 1);
        (
            stream.upgrade_device_ptr::<i32>(va, 256),
            stream.upgrade_device_ptr::<i32>(vb, 256),
        )
    }
}

fn cudarc_launch(source: &str) -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let ptx = compile_ptx_with_opts(source, CompileOptions::default()).expect("compiles");
    let f = ctx.load_module(ptx)?.load_function("ring_update")?;
    let (mut head, tail) = unsafe { mapped_pair(&stream) };
    let mut out = stream.alloc_zeros::<i32>(256)?;
    let mut b = stream.launch_builder(&f);
    b.arg(&mut head).arg(&tail).arg(&mut out);
    unsafe { b.launch(cudarc::driver::LaunchConfig::for_num_elems(256))? };
    stream.synchronize()?;
    head.leak();
    tail.leak();
    Ok(())
}

fn fires_cudarc_compile_ptx_with_opts_in_a_helper() -> Result<(), DriverError> {
    cudarc_launch(kernels::UNFENCED)
    //~^ unfenced_vmm_alias
}

fn ok_cudarc_compile_ptx_with_opts_fenced() -> Result<(), DriverError> {
    cudarc_launch(kernels::FENCED)
}

fn main() {}
