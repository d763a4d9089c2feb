// unallocated_pointer through cudarc: the `cudarc::driver::result` layer given a `CUdeviceptr`
// of 0 never passed to an allocation (memcpy_htod_sync, memcpy_dtoh_sync, memcpy_dtod_sync,
// memset_d8_sync), a `static mut` device pointer never assigned, and kernel launches through
// `launch_builder` of a kernel compiled from the string below with `compile_ptx`, where the
// kernel dereferences the parameter without testing it. Near misses: allocated on every path,
// allocated under the same condition as the use, a static assigned by an init function called
// first, `free_sync(0)` (cuMemFree of 0), a kernel that tests its optional pointer.

use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg, result};
use cudarc::nvrtc::compile_ptx;
use std::mem::size_of;

const N: usize = 1024;
const BYTES: usize = N * size_of::<f32>();

const KERNELS: &str = r#"
extern "C" __global__ void scale(float *out, const float *in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = 2.0f * in[i];
    }
}

extern "C" __global__ void add_bias(float *out, const float *bias, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && bias != nullptr) {
        out[i] += bias[i];
    }
}
"#;

static mut D_UPLOAD: CUdeviceptr = 0;
static mut D_WEIGHTS: CUdeviceptr = 0;

fn fires_htod_sync_to_zero_dptr() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let host = vec![1.0f32; N];
    let d: CUdeviceptr = 0;
    let _ = unsafe { result::memcpy_htod_sync(d, &host) };
    //~^ unallocated_pointer
    Ok(())
}

fn fires_memset_d8_sync_zero_dptr() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let d: CUdeviceptr = 0;
    let _ = unsafe { result::memset_d8_sync(d, 0, BYTES) };
    //~^ unallocated_pointer
    Ok(())
}

fn fires_dtoh_sync_from_zero_dptr() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let mut host = vec![0.0f32; N];
    let src: CUdeviceptr = 0;
    let _ = unsafe { result::memcpy_dtoh_sync(&mut host, src) };
    //~^ unallocated_pointer
    println!("{}", host[0]);
    Ok(())
}

// The source is allocated and written; the destination's allocation was left out.
fn fires_dtod_sync_into_zero_dptr() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let src = unsafe { result::malloc_sync(BYTES) }?;
    let dst: CUdeviceptr = 0;
    let _ = unsafe { result::memset_d8_sync(src, 0, BYTES) };
    let _ = unsafe { result::memcpy_dtod_sync(dst, src, BYTES) };
    //~^ unallocated_pointer
    let _ = unsafe { result::free_sync(src) };
    Ok(())
}

// A static device pointer nothing assigns (and whose address nothing takes).
fn fires_static_mut_never_assigned() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let host = [0.0f32; N];
    let _ = unsafe { result::memcpy_htod_sync(D_UPLOAD, &host) };
    //~^ unallocated_pointer
    Ok(())
}

// `scale` reads `in[i]` without testing `in`: a 0 input faults.
fn fires_launch_null_input() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let scale = module.load_function("scale")?;
    let mut out = stream.alloc_zeros::<f32>(N)?;
    let input: CUdeviceptr = 0;
    let n = N as i32;
    let mut launch = stream.launch_builder(&scale);
    launch.arg(&mut out);
    launch.arg(&input);
    launch.arg(&n);
    unsafe { launch.launch(LaunchConfig::for_num_elems(N as u32)) }?;
    //~^ unallocated_pointer
    stream.synchronize()?;
    Ok(())
}

// `scale` writes `out[i]` without testing `out`.
fn fires_launch_null_output() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let scale = module.load_function("scale")?;
    let input = stream.alloc_zeros::<f32>(N)?;
    let out: CUdeviceptr = 0;
    let n = N as i32;
    let mut launch = stream.launch_builder(&scale);
    launch.arg(&out);
    launch.arg(&input);
    launch.arg(&n);
    unsafe { launch.launch(LaunchConfig::for_num_elems(N as u32)) }?;
    //~^ unallocated_pointer
    stream.synchronize()?;
    Ok(())
}

fn ok_htod_sync_after_malloc() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let host = vec![1.0f32; N];
    let d = unsafe { result::malloc_sync(BYTES) }?;
    let _ = unsafe { result::memcpy_htod_sync(d, &host) };
    let _ = unsafe { result::free_sync(d) };
    Ok(())
}

// Allocated only when there is work, and used under the same condition.
fn ok_allocated_under_same_condition() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let host = vec![1.0f32; N];
    let work = std::env::args().count() > 1;
    let mut d: CUdeviceptr = 0;
    if work {
        d = unsafe { result::malloc_sync(BYTES) }?;
    }
    if work {
        let _ = unsafe { result::memcpy_htod_sync(d, &host) };
        let _ = unsafe { result::free_sync(d) };
    }
    Ok(())
}

// Allocated on both branches, with different sizes.
fn ok_allocated_on_every_branch() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let d: CUdeviceptr = if std::env::args().count() > 1 {
        unsafe { result::malloc_sync(2 * BYTES) }?
    } else {
        unsafe { result::malloc_sync(BYTES) }?
    };
    let _ = unsafe { result::memset_d8_sync(d, 0, BYTES) };
    let _ = unsafe { result::free_sync(d) };
    Ok(())
}

// cuMemFree of 0 does nothing: not a use.
fn ok_free_sync_of_zero() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let d: CUdeviceptr = 0;
    let _ = unsafe { result::free_sync(d) };
    Ok(())
}

fn init_weights() -> Result<(), Box<dyn std::error::Error>> {
    unsafe {
        D_WEIGHTS = result::malloc_sync(BYTES)?;
    }
    Ok(())
}

// The static is assigned by an init function the case calls first.
fn ok_static_mut_assigned_in_init() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    init_weights()?;
    let host = [0.5f32; N];
    unsafe {
        let _ = result::memcpy_htod_sync(D_WEIGHTS, &host);
        let _ = result::free_sync(D_WEIGHTS);
        D_WEIGHTS = 0;
    }
    Ok(())
}

// `add_bias` tests `bias != nullptr`: a 0 bias is an optional argument.
fn ok_launch_optional_null_bias() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let add_bias = module.load_function("add_bias")?;
    let mut out = stream.alloc_zeros::<f32>(N)?;
    let bias: CUdeviceptr = 0;
    let n = N as i32;
    let mut launch = stream.launch_builder(&add_bias);
    launch.arg(&mut out);
    launch.arg(&bias);
    launch.arg(&n);
    unsafe { launch.launch(LaunchConfig::for_num_elems(N as u32)) }?;
    stream.synchronize()?;
    Ok(())
}

// Both arguments are slices cudarc allocated.
fn ok_launch_allocated_slices() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let scale = module.load_function("scale")?;
    let input = stream.alloc_zeros::<f32>(N)?;
    let mut out = stream.alloc_zeros::<f32>(N)?;
    let n = N as i32;
    let mut launch = stream.launch_builder(&scale);
    launch.arg(&mut out);
    launch.arg(&input);
    launch.arg(&n);
    unsafe { launch.launch(LaunchConfig::for_num_elems(N as u32)) }?;
    stream.synchronize()?;
    Ok(())
}

fn main() {}
