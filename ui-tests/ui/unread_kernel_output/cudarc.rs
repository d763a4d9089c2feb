// unread_kernel_output through cudarc's safe API: a `CudaSlice` a kernel stored into (by
// `launch_builder(..).launch(..)`) and then dropped with `drop(..)` while nothing read it since the
// launch: no copy back, the input copied back instead, a copy made before the launch, an atomic
// total, the second of two outputs, a result written again after its copy; near misses:
// `clone_dtoh`/`memcpy_dtoh` before the drop, a second kernel reducing it, cuBLAS reading it, a
// device-to-device copy that is copied back, a buffer the kernel only reads, no kernel at all.
#![cfg_attr(cuda_lint, warn(cuda_lint::unread_kernel_output))]
#![cfg_attr(cuda_lint, allow(cuda_lint::pageable_async_copy))] // another lint's subject

use std::error::Error;

use cudarc::cublas::{Asum, AsumConfig, CudaBlas};
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const N: usize = 256;

const SRC: &str = r#"
extern "C" __global__ void scale(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[i];
}

extern "C" __global__ void fill(float* out, float v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = v;
}

extern "C" __global__ void sum(const float* in, float* total, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(total, in[i]);
}

extern "C" __global__ void minmax(const float* in, float* lo, float* hi, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        lo[i] = fminf(in[i], 0.0f);
        hi[i] = fmaxf(in[i], 0.0f);
    }
}
"#;

// DRACC 012: the result is computed and dropped, never copied back.
fn fires_result_dropped() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let scale = ctx.load_module(compile_ptx(SRC)?)?.load_function("scale")?;
    let input = stream.clone_htod(&vec![1.0f32; N])?;
    let mut out = stream.alloc_zeros::<f32>(N)?;
    let n = N as i32;
    unsafe { stream.launch_builder(&scale).arg(&input).arg(&mut out).arg(&n).launch(LaunchConfig::for_num_elems(N as u32)) }?;
    drop(out);
    //~^ unread_kernel_output
    Ok(())
}

// The copy back was made from the input instead of the output.
fn fires_input_copied_back_instead() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let scale = ctx.load_module(compile_ptx(SRC)?)?.load_function("scale")?;
    let input = stream.clone_htod(&vec![1.0f32; N])?;
    let mut out = stream.alloc_zeros::<f32>(N)?;
    let n = N as i32;
    unsafe { stream.launch_builder(&scale).arg(&input).arg(&mut out).arg(&n).launch(LaunchConfig::for_num_elems(N as u32)) }?;
    let host = stream.clone_dtoh(&input)?;
    println!("{}", host[0]);
    drop(out);
    //~^ unread_kernel_output
    Ok(())
}

// The copy back comes before the launch: it reads the old contents, not the result.
fn fires_copy_before_launch() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let scale = ctx.load_module(compile_ptx(SRC)?)?.load_function("scale")?;
    let input = stream.clone_htod(&vec![1.0f32; N])?;
    let mut out = stream.alloc_zeros::<f32>(N)?;
    let host = stream.clone_dtoh(&out)?;
    let n = N as i32;
    unsafe { stream.launch_builder(&scale).arg(&input).arg(&mut out).arg(&n).launch(LaunchConfig::for_num_elems(N as u32)) }?;
    println!("{}", host[0]);
    drop(out);
    //~^ unread_kernel_output
    Ok(())
}

// An atomic is a store: the total is output, and it is dropped unread.
fn fires_atomic_total_dropped() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let sum = ctx.load_module(compile_ptx(SRC)?)?.load_function("sum")?;
    let input = stream.clone_htod(&vec![1.0f32; N])?;
    let mut total = stream.alloc_zeros::<f32>(1)?;
    let n = N as i32;
    unsafe { stream.launch_builder(&sum).arg(&input).arg(&mut total).arg(&n).launch(LaunchConfig::for_num_elems(N as u32)) }?;
    drop(total);
    //~^ unread_kernel_output
    Ok(())
}

// Two outputs; only `lo` is copied back.
fn fires_second_output_dropped() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let minmax = ctx.load_module(compile_ptx(SRC)?)?.load_function("minmax")?;
    let input = stream.clone_htod(&vec![1.0f32; N])?;
    let mut lo = stream.alloc_zeros::<f32>(N)?;
    let mut hi = stream.alloc_zeros::<f32>(N)?;
    let n = N as i32;
    unsafe { stream.launch_builder(&minmax).arg(&input).arg(&mut lo).arg(&mut hi).arg(&n).launch(LaunchConfig::for_num_elems(N as u32)) }?;
    let host_lo = stream.clone_dtoh(&lo)?;
    println!("{}", host_lo[0]);
    drop(lo);
    drop(hi);
    //~^ unread_kernel_output
    Ok(())
}

// Copied back after the first kernel, then written again by `fill` and dropped unread.
fn fires_rewritten_after_copy() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let module = ctx.load_module(compile_ptx(SRC)?)?;
    let scale = module.load_function("scale")?;
    let fill = module.load_function("fill")?;
    let input = stream.clone_htod(&vec![1.0f32; N])?;
    let mut out = stream.alloc_zeros::<f32>(N)?;
    let n = N as i32;
    let v = 0.0f32;
    unsafe { stream.launch_builder(&scale).arg(&input).arg(&mut out).arg(&n).launch(LaunchConfig::for_num_elems(N as u32)) }?;
    let host = stream.clone_dtoh(&out)?;
    println!("{}", host[0]);
    unsafe { stream.launch_builder(&fill).arg(&mut out).arg(&v).arg(&n).launch(LaunchConfig::for_num_elems(N as u32)) }?;
    drop(out);
    //~^ unread_kernel_output
    Ok(())
}

// Copied back before the drop.
fn ok_copied_back_before_drop() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let scale = ctx.load_module(compile_ptx(SRC)?)?.load_function("scale")?;
    let input = stream.clone_htod(&vec![1.0f32; N])?;
    let mut out = stream.alloc_zeros::<f32>(N)?;
    let n = N as i32;
    unsafe { stream.launch_builder(&scale).arg(&input).arg(&mut out).arg(&n).launch(LaunchConfig::for_num_elems(N as u32)) }?;
    let host = stream.clone_dtoh(&out)?;
    drop(out);
    println!("{}", host[0]);
    Ok(())
}

// Copied into an existing host buffer before the drop.
fn ok_memcpy_dtoh_before_drop() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let scale = ctx.load_module(compile_ptx(SRC)?)?.load_function("scale")?;
    let input = stream.clone_htod(&vec![1.0f32; N])?;
    let mut out = stream.alloc_zeros::<f32>(N)?;
    let mut host = vec![0.0f32; N];
    let n = N as i32;
    unsafe { stream.launch_builder(&scale).arg(&input).arg(&mut out).arg(&n).launch(LaunchConfig::for_num_elems(N as u32)) }?;
    stream.memcpy_dtoh(&out, &mut host)?;
    drop(out);
    println!("{}", host[0]);
    Ok(())
}

// `sum` reduces the scaled values and the total is copied back: `tmp` was read.
fn ok_reduced_by_second_kernel() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let module = ctx.load_module(compile_ptx(SRC)?)?;
    let scale = module.load_function("scale")?;
    let sum = module.load_function("sum")?;
    let input = stream.clone_htod(&vec![1.0f32; N])?;
    let mut tmp = stream.alloc_zeros::<f32>(N)?;
    let mut total = stream.alloc_zeros::<f32>(1)?;
    let n = N as i32;
    unsafe { stream.launch_builder(&scale).arg(&input).arg(&mut tmp).arg(&n).launch(LaunchConfig::for_num_elems(N as u32)) }?;
    unsafe { stream.launch_builder(&sum).arg(&tmp).arg(&mut total).arg(&n).launch(LaunchConfig::for_num_elems(N as u32)) }?;
    let host = stream.clone_dtoh(&total)?;
    drop(tmp);
    drop(total);
    println!("{}", host[0]);
    Ok(())
}

// The dropped buffer is the kernel's input: the kernel only loads from it.
fn ok_input_only_read() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let scale = ctx.load_module(compile_ptx(SRC)?)?.load_function("scale")?;
    let input = stream.clone_htod(&vec![1.0f32; N])?;
    let mut out = stream.alloc_zeros::<f32>(N)?;
    let n = N as i32;
    unsafe { stream.launch_builder(&scale).arg(&input).arg(&mut out).arg(&n).launch(LaunchConfig::for_num_elems(N as u32)) }?;
    drop(input);
    let host = stream.clone_dtoh(&out)?;
    println!("{}", host[0]);
    Ok(())
}

// cuBLAS reads the result (a call the analysis cannot see) before the drop.
fn ok_read_by_cublas() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let blas = CudaBlas::new(stream.clone())?;
    let scale = ctx.load_module(compile_ptx(SRC)?)?.load_function("scale")?;
    let input = stream.clone_htod(&vec![1.0f32; N])?;
    let mut out = stream.alloc_zeros::<f32>(N)?;
    let n = N as i32;
    unsafe { stream.launch_builder(&scale).arg(&input).arg(&mut out).arg(&n).launch(LaunchConfig::for_num_elems(N as u32)) }?;
    let mut norm1 = 0.0f32;
    unsafe { blas.asum(AsumConfig { n, incx: 1 }, &out, &mut norm1) }?;
    drop(out);
    println!("{norm1}");
    Ok(())
}

// Copied device-to-device into a staging buffer that is copied back.
fn ok_dtod_then_copied_back() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let scale = ctx.load_module(compile_ptx(SRC)?)?.load_function("scale")?;
    let input = stream.clone_htod(&vec![1.0f32; N])?;
    let mut out = stream.alloc_zeros::<f32>(N)?;
    let mut staging = stream.alloc_zeros::<f32>(N)?;
    let n = N as i32;
    unsafe { stream.launch_builder(&scale).arg(&input).arg(&mut out).arg(&n).launch(LaunchConfig::for_num_elems(N as u32)) }?;
    stream.memcpy_dtod(&out, &mut staging)?;
    drop(out);
    let host = stream.clone_dtoh(&staging)?;
    drop(staging);
    println!("{}", host[0]);
    Ok(())
}

// No kernel wrote the buffer: only an upload, then the drop.
fn ok_no_kernel_write() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let mut d = stream.alloc_zeros::<f32>(N)?;
    stream.memcpy_htod(&vec![1.0f32; N], &mut d)?;
    drop(d);
    Ok(())
}

fn main() {}
