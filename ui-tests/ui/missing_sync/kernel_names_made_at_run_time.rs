//@no-rustfix
// A kernel named by a `CString` made from a constant (`CString::new("bm25")?`, `.unwrap()`) in
// a module loaded from PTX text (`CString::new(compile_ptx(SRC)?.to_src())?`) is that kernel:
// its source says what it writes. A blocking copy on the legacy stream does not wait for it on a
// non-blocking stream.
#![cfg_attr(cuda_lint, allow(cuda_lint::device_memory_leak))] // another lint's subject: the test code leaks
use std::ffi::{CString, c_void};

use cudarc::driver::result as drv;
use cudarc::driver::sys;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

const SRC: &str = r#"
extern "C" __global__ void fill(float* out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (float)i;
}
"#;

fn kernel() -> Res<sys::CUfunction> {
    let image = CString::new(cudarc::nvrtc::compile_ptx(SRC)?.to_src())?;
    let module = unsafe { drv::module::load_data(image.as_ptr().cast()) }?;
    Ok(unsafe { drv::module::get_function(module, CString::new("fill")?) }?)
}

fn fires_blocking_copy_over_a_non_blocking_kernel(n: usize) -> Res<Vec<f32>> {
    let f = kernel()?;
    let stream = drv::stream::create(drv::stream::StreamKind::NonBlocking)?;
    let out = unsafe { drv::malloc_sync(n * 4) }?;
    let (mut o, mut len) = (out, n as u32);
    let mut params: [*mut c_void; 2] = [(&mut o as *mut u64).cast(), (&mut len as *mut u32).cast()];
    unsafe { drv::launch_kernel(f, (len.div_ceil(256), 1, 1), (256, 1, 1), 0, stream, &mut params) }?;
    let mut host = vec![0f32; n];
    unsafe { drv::memcpy_dtoh_sync(&mut host, out) }?; //~ missing_sync
    Ok(host)
}

fn ok_blocking_copy_after_the_stream_is_waited_for(n: usize) -> Res<Vec<f32>> {
    let f = kernel()?;
    let stream = drv::stream::create(drv::stream::StreamKind::NonBlocking)?;
    let out = unsafe { drv::malloc_sync(n * 4) }?;
    let (mut o, mut len) = (out, n as u32);
    let mut params: [*mut c_void; 2] = [(&mut o as *mut u64).cast(), (&mut len as *mut u32).cast()];
    unsafe { drv::launch_kernel(f, (len.div_ceil(256), 1, 1), (256, 1, 1), 0, stream, &mut params) }?;
    unsafe { drv::stream::synchronize(stream) }?;
    let mut host = vec![0f32; n];
    unsafe { drv::memcpy_dtoh_sync(&mut host, out) }?;
    Ok(host)
}

fn main() {}
