// uninitialized_device_read through cudarc's safe API and its `result` layer: `CudaStream::alloc`
// (unsafe, contents unspecified) read by `clone_dtoh`, `memcpy_dtoh`, `memcpy_dtod` or a kernel
// whose source only loads through the parameter; near misses: `alloc_zeros`, `clone_htod`,
// `memcpy_htod` (of all or part), `memset_zeros`, an init kernel, an in-place kernel, cuBLAS
// writing the output, and the `result` layer's memset.
#![cfg_attr(cuda_lint, allow(cuda_lint::pageable_async_copy))] // another lint's subject
use std::error::Error;

use cudarc::cublas::{CudaBlas, Gemv, GemvConfig, sys::cublasOperation_t};
use cudarc::driver::{CudaContext, DevicePtrMut, LaunchConfig, PushKernelArg, result};
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

extern "C" __global__ void axpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += a * x[i];
}

extern "C" __global__ void add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
"#;

// A library function whose body the analysis cannot see.
unsafe extern "C" {
    fn fill_uniform(ptr: u64, n: usize, seed: u64) -> i32;
}

// The buffer is allocated and copied straight back: nothing wrote it.
fn fires_clone_dtoh_of_alloc() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let d = unsafe { stream.alloc::<f32>(N) }?;
    let host = stream.clone_dtoh(&d)?;
    //~^ uninitialized_device_read
    println!("{}", host[0]);
    Ok(())
}

// The kernel loads `in` only, and `input` was never uploaded.
fn fires_kernel_reads_alloc() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let scale = ctx.load_module(compile_ptx(SRC)?)?.load_function("scale")?;
    let input = unsafe { stream.alloc::<f32>(N) }?;
    let mut out = stream.alloc_zeros::<f32>(N)?;
    let n = N as i32;
    unsafe { stream.launch_builder(&scale).arg(&input).arg(&mut out).arg(&n).launch(LaunchConfig::for_num_elems(N as u32)) }?;
    //~^ uninitialized_device_read
    let host = stream.clone_dtoh(&out)?;
    println!("{}", host[0]);
    Ok(())
}

// A copy into an existing host vector reads the device buffer just the same.
fn fires_memcpy_dtoh_into_vec() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let d = unsafe { stream.alloc::<f32>(N) }?;
    let mut host = vec![0.0f32; N];
    stream.memcpy_dtoh(&d, &mut host)?;
    //~^ uninitialized_device_read
    println!("{}", host[0]);
    Ok(())
}

// A device-to-device copy out of an unwritten buffer.
fn fires_dtod_from_alloc() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let src = unsafe { stream.alloc::<f32>(N) }?;
    let mut dst = stream.alloc_zeros::<f32>(N)?;
    stream.memcpy_dtod(&src, &mut dst)?;
    //~^ uninitialized_device_read
    let host = stream.clone_dtoh(&dst)?;
    println!("{}", host[0]);
    Ok(())
}

// DRACC 010: the upload of `b` went into `a` a second time; `add` reads `b` anyway.
fn fires_upload_made_into_other_buffer() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let add = ctx.load_module(compile_ptx(SRC)?)?.load_function("add")?;
    let ha = vec![1.0f32; N];
    let hb = vec![2.0f32; N];
    let mut a = unsafe { stream.alloc::<f32>(N) }?;
    let b = unsafe { stream.alloc::<f32>(N) }?;
    let mut c = stream.alloc_zeros::<f32>(N)?;
    stream.memcpy_htod(&ha, &mut a)?;
    stream.memcpy_htod(&hb, &mut a)?;
    let n = N as i32;
    unsafe { stream.launch_builder(&add).arg(&a).arg(&b).arg(&mut c).arg(&n).launch(LaunchConfig::for_num_elems(N as u32)) }?;
    //~^ uninitialized_device_read
    let host = stream.clone_dtoh(&c)?;
    println!("{}", host[0]);
    Ok(())
}

// A view into the unwritten buffer is a read of it.
fn fires_clone_dtoh_of_view() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let d = unsafe { stream.alloc::<f32>(N) }?;
    let head = stream.clone_dtoh(&d.slice(0..16))?;
    //~^ uninitialized_device_read
    println!("{}", head[0]);
    Ok(())
}

// The `result` layer: `malloc_sync` then a synchronous copy out, no upload in between.
fn fires_result_layer_dtoh() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    ctx.bind_to_thread()?;
    let mut host = vec![0.0f32; N];
    let d = unsafe { result::malloc_sync(N * std::mem::size_of::<f32>()) }?;
    let copied = unsafe { result::memcpy_dtoh_sync(&mut host, d) };
    //~^ uninitialized_device_read
    let freed = unsafe { result::free_sync(d) };
    copied?;
    freed?;
    println!("{}", host[0]);
    Ok(())
}

// `alloc_zeros` memsets the buffer: it is written.
fn ok_alloc_zeros_then_dtoh() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let d = stream.alloc_zeros::<f32>(N)?;
    let host = stream.clone_dtoh(&d)?;
    println!("{}", host[0]);
    Ok(())
}

// Uploaded before the kernel reads it.
fn ok_htod_before_kernel() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let scale = ctx.load_module(compile_ptx(SRC)?)?.load_function("scale")?;
    let h = vec![3.0f32; N];
    let mut input = unsafe { stream.alloc::<f32>(N) }?;
    stream.memcpy_htod(&h, &mut input)?;
    let mut out = unsafe { stream.alloc::<f32>(N) }?;
    let n = N as i32;
    unsafe { stream.launch_builder(&scale).arg(&input).arg(&mut out).arg(&n).launch(LaunchConfig::for_num_elems(N as u32)) }?;
    let host = stream.clone_dtoh(&out)?;
    println!("{}", host[0]);
    Ok(())
}

// `clone_htod` allocates and uploads in one call.
fn ok_clone_htod_then_kernel() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let scale = ctx.load_module(compile_ptx(SRC)?)?.load_function("scale")?;
    let input = stream.clone_htod(&vec![1.5f32; N])?;
    let mut out = stream.alloc_zeros::<f32>(N)?;
    let n = N as i32;
    unsafe { stream.launch_builder(&scale).arg(&input).arg(&mut out).arg(&n).launch(LaunchConfig::for_num_elems(N as u32)) }?;
    let host = stream.clone_dtoh(&out)?;
    println!("{}", host[0]);
    Ok(())
}

// An init kernel stores through the buffer before it is copied out.
fn ok_fill_kernel_first() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let fill = ctx.load_module(compile_ptx(SRC)?)?.load_function("fill")?;
    let mut d = unsafe { stream.alloc::<f32>(N) }?;
    let v = 7.0f32;
    let n = N as i32;
    unsafe { stream.launch_builder(&fill).arg(&mut d).arg(&v).arg(&n).launch(LaunchConfig::for_num_elems(N as u32)) }?;
    let host = stream.clone_dtoh(&d)?;
    println!("{}", host[0]);
    Ok(())
}

// `memset_zeros` writes the buffer.
fn ok_memset_zeros_first() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let mut d = unsafe { stream.alloc::<f32>(N) }?;
    stream.memset_zeros(&mut d)?;
    let host = stream.clone_dtoh(&d)?;
    println!("{}", host[0]);
    Ok(())
}

// `axpy` reads and writes `y` in place: it may write before it reads, no finding.
fn ok_in_place_kernel() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let axpy = ctx.load_module(compile_ptx(SRC)?)?.load_function("axpy")?;
    let x = stream.clone_htod(&vec![1.0f32; N])?;
    let mut y = unsafe { stream.alloc::<f32>(N) }?;
    let a = 2.0f32;
    let n = N as i32;
    unsafe { stream.launch_builder(&axpy).arg(&a).arg(&x).arg(&mut y).arg(&n).launch(LaunchConfig::for_num_elems(N as u32)) }?;
    let host = stream.clone_dtoh(&y)?;
    println!("{}", host[0]);
    Ok(())
}

// Only the first half is uploaded: a write of part of the buffer counts as a write.
fn ok_partial_upload() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let half = vec![1.0f32; N / 2];
    let mut d = unsafe { stream.alloc::<f32>(N) }?;
    stream.memcpy_htod(&half, &mut d.slice_mut(0..N / 2))?;
    let host = stream.clone_dtoh(&d)?;
    println!("{}", host[0]);
    Ok(())
}

// cuBLAS writes `y` (beta = 0) before it is copied out.
fn ok_cublas_writes_output() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let blas = CudaBlas::new(stream.clone())?;
    let m = 16usize;
    let a = stream.clone_htod(&vec![1.0f32; m * m])?;
    let x = stream.clone_htod(&vec![1.0f32; m])?;
    let mut y = unsafe { stream.alloc::<f32>(m) }?;
    let cfg = GemvConfig { trans: cublasOperation_t::CUBLAS_OP_N, m: m as i32, n: m as i32, alpha: 1.0f32, lda: m as i32, incx: 1, beta: 0.0f32, incy: 1 };
    unsafe { blas.gemv(cfg, &a, &x, &mut y) }?;
    let host = stream.clone_dtoh(&y)?;
    println!("{}", host[0]);
    Ok(())
}

// The `result` layer: a memset before the synchronous copy out.
fn ok_result_layer_memset_first() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    ctx.bind_to_thread()?;
    let mut host = vec![0.0f32; N];
    let d = unsafe { result::malloc_sync(N * std::mem::size_of::<f32>()) }?;
    let set = unsafe { result::memset_d8_sync(d, 0, N * std::mem::size_of::<f32>()) };
    let copied = unsafe { result::memcpy_dtoh_sync(&mut host, d) };
    let freed = unsafe { result::free_sync(d) };
    set?;
    copied?;
    freed?;
    println!("{}", host[0]);
    Ok(())
}

// The raw pointer of the slice goes to code the analysis cannot see, which may write it.
fn ok_pointer_given_to_library() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let mut d = unsafe { stream.alloc::<f32>(N) }?;
    {
        let (ptr, _record) = d.device_ptr_mut(&stream);
        let status = unsafe { fill_uniform(ptr, N, 42) };
        assert_eq!(status, 0);
    }
    stream.synchronize()?;
    let host = stream.clone_dtoh(&d)?;
    println!("{}", host[0]);
    Ok(())
}

fn main() {}
