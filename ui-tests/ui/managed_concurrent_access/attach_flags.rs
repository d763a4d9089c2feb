//@no-rustfix
// Attach flags of managed memory. Without concurrent managed access, a running kernel takes
// all managed memory attached globally (`CU_MEM_ATTACH_GLOBAL`, `cudaMemAttachGlobal`, cudarc's
// `alloc_unified(n, true)`), whatever it uses; memory attached to the host is never taken, and
// memory attached to one stream only while that stream has work ("the CPU may access it as long
// as all operations in the stream have completed, regardless of whether other streams are
// active"). The kernels here use other memory; each attachment is waited for before the kernel,
// as the CUDA Programming Guide's examples do.
#![cfg_attr(cuda_lint, allow(cuda_lint::device_memory_leak))] // other lints' subject: the test code leaks, or reads memory it never wrote
use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::Arc;

use cudarc::driver::sys::{self as drv, CUdeviceptr, CUfunction, CUmemAttach_flags, CUstream};
use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::sys::{self as rt, cudaStream_t, dim3};

const N: usize = 1 << 20;
const BYTES: usize = 1 << 22;
const SRC: &str = r#"
extern "C" __global__ void scale(float* x, float a, unsigned int n) {
    unsigned int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n) x[i] *= a;
}
"#;

// ---- cudarc ----

fn kernel(ctx: &Arc<CudaContext>) -> Result<CudaFunction, DriverError> {
    ctx.load_module(compile_ptx(SRC).expect("compiles"))?.load_function("scale")
}

fn scale(stream: &Arc<CudaStream>, f: &CudaFunction, x: &mut CudaSlice<f32>) -> Result<(), DriverError> {
    let n = N as u32;
    let mut launch = stream.launch_builder(f);
    launch.arg(x).arg(&2.0f32).arg(&n);
    unsafe { launch.launch(LaunchConfig::for_num_elems(n)) }?;
    Ok(())
}

/// Per-step counters the host reads while the solver's kernels run.
struct Telemetry {
    counters: UnifiedSlice<u32>,
}

impl Telemetry {
    fn new(ctx: &Arc<CudaContext>, attach_global: bool) -> Result<Telemetry, DriverError> {
        Ok(Telemetry { counters: unsafe { ctx.alloc_unified::<u32>(64, attach_global)? } })
    }

    fn steps(&self) -> Result<u32, DriverError> {
        Ok(self.counters.as_slice()?[0])
    }
}

fn fires_globally_attached_telemetry_read_during_a_solver_kernel() -> Result<u32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let f = kernel(&ctx)?;
    let mut field = stream.alloc_zeros::<f32>(N)?;
    let telemetry = Telemetry::new(&ctx, true)?;
    scale(&stream, &f, &mut field)?;
    let steps = telemetry.steps()?;
    //~^ managed_concurrent_access
    stream.synchronize()?;
    Ok(steps)
}

fn ok_host_attached_telemetry_read_during_a_solver_kernel() -> Result<u32, DriverError> {
    // `alloc_unified(len, false)` is `CU_MEM_ATTACH_HOST`: no kernel takes it.
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let f = kernel(&ctx)?;
    let mut field = stream.alloc_zeros::<f32>(N)?;
    let telemetry = Telemetry::new(&ctx, false)?;
    scale(&stream, &f, &mut field)?;
    let steps = telemetry.steps()?;
    stream.synchronize()?;
    Ok(steps)
}

fn ok_unified_attached_to_a_side_stream_read_during_a_kernel_elsewhere() -> Result<u32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let compute = ctx.new_stream()?;
    let side = ctx.new_stream()?;
    let f = kernel(&ctx)?;
    let mut field = compute.alloc_zeros::<f32>(N)?;
    let mut counters = unsafe { ctx.alloc_unified::<u32>(64, true)? };
    counters.attach(&side, CUmemAttach_flags::CU_MEM_ATTACH_SINGLE)?;
    side.synchronize()?;
    scale(&compute, &f, &mut field)?;
    let v = counters.as_slice()?[0];
    compute.synchronize()?;
    Ok(v)
}

// Known false positive: cudarc's `as_slice` on a slice attached `SINGLE` synchronizes that
// stream first; the analysis does not model that wait.
fn known_fp_unified_attached_to_the_kernels_stream_read_through_as_slice() -> Result<u32, DriverError> {
    // Attached to `stream`, which runs the kernel: cudarc's `as_slice` synchronizes the stream
    // a `CU_MEM_ATTACH_SINGLE` slice is attached to before it hands out the slice.
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let f = kernel(&ctx)?;
    let mut field = stream.alloc_zeros::<f32>(N)?;
    let mut counters = unsafe { ctx.alloc_unified::<u32>(64, true)? };
    counters.attach(&stream, CUmemAttach_flags::CU_MEM_ATTACH_SINGLE)?;
    stream.synchronize()?;
    scale(&stream, &f, &mut field)?;
    Ok(counters.as_slice()?[0])
    //~^ managed_concurrent_access
}

fn fires_unified_reattached_globally_read_during_a_kernel() -> Result<u32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let f = kernel(&ctx)?;
    let mut field = stream.alloc_zeros::<f32>(N)?;
    let mut counters = unsafe { ctx.alloc_unified::<u32>(64, false)? };
    counters.attach(&stream, CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL)?;
    stream.synchronize()?;
    scale(&stream, &f, &mut field)?;
    let v = counters.as_slice()?[0];
    //~^ managed_concurrent_access
    stream.synchronize()?;
    Ok(v)
}

// ---- driver API (cudarc::driver::sys) ----

unsafe fn new_stream() -> CUstream {
    let mut s: CUstream = null_mut();
    unsafe { drv::cuStreamCreate(&mut s, 1) };
    s
}

unsafe fn launch_on(k: CUfunction, s: CUstream, mut data: CUdeviceptr) {
    unsafe {
        let mut params = [&mut data as *mut CUdeviceptr as *mut c_void];
        drv::cuLaunchKernel(k, 1024, 1, 1, 1024, 1, 1, 0, s, params.as_mut_ptr(), null_mut());
    }
}

fn fires_driver_managed_attached_globally_read_during_a_kernel(k: CUfunction) -> u32 {
    unsafe {
        let s = new_stream();
        let mut work: CUdeviceptr = 0;
        let mut flags: CUdeviceptr = 0;
        drv::cuMemAlloc_v2(&mut work, BYTES);
        drv::cuMemAllocManaged(&mut flags, 64, CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32);
        launch_on(k, s, work);
        let v = *(flags as *const u32);
        //~^ managed_concurrent_access
        drv::cuStreamSynchronize(s);
        v
    }
}

fn ok_driver_managed_attached_to_the_host_read_during_a_kernel(k: CUfunction) -> u32 {
    unsafe {
        let s = new_stream();
        let mut work: CUdeviceptr = 0;
        let mut flags: CUdeviceptr = 0;
        drv::cuMemAlloc_v2(&mut work, BYTES);
        drv::cuMemAllocManaged(&mut flags, 64, CUmemAttach_flags::CU_MEM_ATTACH_HOST as u32);
        launch_on(k, s, work);
        let v = *(flags as *const u32);
        drv::cuStreamSynchronize(s);
        v
    }
}

fn ok_driver_managed_attached_to_one_stream_read_while_another_runs(k: CUfunction) -> u32 {
    unsafe {
        let (mine, theirs) = (new_stream(), new_stream());
        let mut work: CUdeviceptr = 0;
        let mut flags: CUdeviceptr = 0;
        drv::cuMemAlloc_v2(&mut work, BYTES);
        drv::cuMemAllocManaged(&mut flags, 64, CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32);
        drv::cuStreamAttachMemAsync(mine, flags, 0, CUmemAttach_flags::CU_MEM_ATTACH_SINGLE as u32);
        drv::cuStreamSynchronize(mine);
        launch_on(k, theirs, work);
        let v = *(flags as *const u32);
        drv::cuStreamSynchronize(theirs);
        v
    }
}

fn fires_driver_managed_attached_to_the_stream_that_runs_the_kernel(k: CUfunction) -> u32 {
    // Attached to `s`: the host may touch it only while `s` is idle, and `s` runs the kernel.
    unsafe {
        let s = new_stream();
        let mut work: CUdeviceptr = 0;
        let mut flags: CUdeviceptr = 0;
        drv::cuMemAlloc_v2(&mut work, BYTES);
        drv::cuMemAllocManaged(&mut flags, 64, CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32);
        drv::cuStreamAttachMemAsync(s, flags, 0, CUmemAttach_flags::CU_MEM_ATTACH_SINGLE as u32);
        drv::cuStreamSynchronize(s);
        launch_on(k, s, work);
        let v = *(flags as *const u32);
        //~^ managed_concurrent_access
        drv::cuStreamSynchronize(s);
        v
    }
}

fn fires_driver_host_attached_then_attached_globally(k: CUfunction) {
    unsafe {
        let s = new_stream();
        let mut work: CUdeviceptr = 0;
        let mut flags: CUdeviceptr = 0;
        drv::cuMemAlloc_v2(&mut work, BYTES);
        drv::cuMemAllocManaged(&mut flags, 64, CUmemAttach_flags::CU_MEM_ATTACH_HOST as u32);
        drv::cuStreamAttachMemAsync(s, flags, 0, CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32);
        drv::cuStreamSynchronize(s);
        launch_on(k, s, work);
        *(flags as *mut u32) = 1;
        //~^ managed_concurrent_access
        drv::cuStreamSynchronize(s);
    }
}

fn ok_driver_global_then_attached_to_the_host(k: CUfunction) {
    unsafe {
        let s = new_stream();
        let mut work: CUdeviceptr = 0;
        let mut flags: CUdeviceptr = 0;
        drv::cuMemAlloc_v2(&mut work, BYTES);
        drv::cuMemAllocManaged(&mut flags, 64, CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32);
        drv::cuStreamAttachMemAsync(s, flags, 0, CUmemAttach_flags::CU_MEM_ATTACH_HOST as u32);
        drv::cuStreamSynchronize(s);
        launch_on(k, s, work);
        *(flags as *mut u32) = 1;
        drv::cuStreamSynchronize(s);
    }
}

// ---- runtime API (cudarc::runtime::sys) ----

unsafe fn rt_stream() -> cudaStream_t {
    let mut s: cudaStream_t = null_mut();
    unsafe { rt::cudaStreamCreateWithFlags(&mut s, 1) };
    s
}

unsafe fn rt_launch(k: *const c_void, s: cudaStream_t, mut data: *mut c_void) {
    unsafe {
        let mut args = [&mut data as *mut *mut c_void as *mut c_void];
        let grid = dim3 { x: 1024, y: 1, z: 1 };
        let block = dim3 { x: 1024, y: 1, z: 1 };
        rt::cudaLaunchKernel(k, grid, block, args.as_mut_ptr(), 0, s);
    }
}

fn fires_runtime_managed_attached_globally_read_during_a_kernel(k: *const c_void) -> u32 {
    unsafe {
        let s = rt_stream();
        let mut work: *mut c_void = null_mut();
        let mut counter: *mut c_void = null_mut();
        rt::cudaMalloc(&mut work, BYTES);
        rt::cudaMallocManaged(&mut counter, 64, rt::cudaMemAttachGlobal);
        rt_launch(k, s, work);
        let v = *(counter as *const u32);
        //~^ managed_concurrent_access
        rt::cudaStreamSynchronize(s);
        v
    }
}

fn ok_runtime_managed_attached_to_the_host_read_during_a_kernel(k: *const c_void) -> u32 {
    unsafe {
        let s = rt_stream();
        let mut work: *mut c_void = null_mut();
        let mut counter: *mut c_void = null_mut();
        rt::cudaMalloc(&mut work, BYTES);
        rt::cudaMallocManaged(&mut counter, 64, rt::cudaMemAttachHost);
        rt_launch(k, s, work);
        let v = *(counter as *const u32);
        rt::cudaStreamSynchronize(s);
        v
    }
}

fn ok_runtime_managed_attached_to_a_side_stream_written_during_a_kernel(k: *const c_void) {
    unsafe {
        let (side, compute) = (rt_stream(), rt_stream());
        let mut work: *mut c_void = null_mut();
        let mut counter: *mut c_void = null_mut();
        rt::cudaMalloc(&mut work, BYTES);
        rt::cudaMallocManaged(&mut counter, 64, rt::cudaMemAttachGlobal);
        rt::cudaStreamAttachMemAsync(side, counter, 0, rt::cudaMemAttachSingle);
        rt::cudaStreamSynchronize(side);
        rt_launch(k, compute, work);
        *(counter as *mut u32) = 0;
        rt::cudaStreamSynchronize(compute);
    }
}

fn fires_runtime_managed_attached_to_the_kernels_stream(k: *const c_void) {
    unsafe {
        let s = rt_stream();
        let mut work: *mut c_void = null_mut();
        let mut counter: *mut c_void = null_mut();
        rt::cudaMalloc(&mut work, BYTES);
        rt::cudaMallocManaged(&mut counter, 64, rt::cudaMemAttachHost);
        rt::cudaStreamAttachMemAsync(s, counter, 0, rt::cudaMemAttachSingle);
        rt::cudaStreamSynchronize(s);
        rt_launch(k, s, work);
        *(counter as *mut u32) = 0;
        //~^ managed_concurrent_access
        rt::cudaStreamSynchronize(s);
    }
}

fn main() {}
