//! case: a small program's main: a Mandelbrot kernel on a created stream writes iteration counts, cudaMemcpyAsync copies them into pinned memory, and at the end cudaDeviceSynchronize comes before the host reads the counts and before every cudaFree/cudaFreeHost
//! expect: none

use std::error::Error;
use std::ffi::{CString, c_void};
use std::ptr;

use cudarc::driver::result as drv;
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::result::launch_kernel;
use cudarc::runtime::sys::{self as rt, cudaMemcpyKind, cudaStream_t};

const WIDTH: usize = 1024;
const HEIGHT: usize = 768;

const SRC: &str = r#"
extern "C" __global__ void mandelbrot(unsigned int* iters, int width, int height, int max_iter) {
    int px = blockIdx.x * blockDim.x + threadIdx.x;
    int py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= width || py >= height) return;
    float cx = -2.0f + 3.0f * px / width;
    float cy = -1.2f + 2.4f * py / height;
    float x = 0.0f, y = 0.0f;
    int k = 0;
    while (k < max_iter && x * x + y * y < 4.0f) {
        float t = x * x - y * y + cx;
        y = 2.0f * x * y + cy;
        x = t;
        ++k;
    }
    iters[py * width + px] = k;
}
"#;

pub fn main() -> Result<(), Box<dyn Error>> {
    let bytes = WIDTH * HEIGHT * std::mem::size_of::<u32>();
    unsafe { rt::cudaSetDevice(0).result()? };
    let ptx = compile_ptx(SRC)?;
    let image = CString::new(ptx.to_src())?;
    let module = unsafe { drv::module::load_data(image.as_ptr().cast())? };
    let f = unsafe { drv::module::get_function(module, CString::new("mandelbrot")?)? };

    unsafe {
        let mut stream: cudaStream_t = ptr::null_mut();
        let mut d_iters: *mut c_void = ptr::null_mut();
        let mut h_iters: *mut c_void = ptr::null_mut();
        rt::cudaStreamCreate(&mut stream).result()?;
        let a1 = rt::cudaMalloc(&mut d_iters, bytes);
        let a2 = rt::cudaMallocHost(&mut h_iters, bytes);
        if let Err(e) = a1.result().and(a2.result()) {
            rt::cudaFree(d_iters);
            rt::cudaFreeHost(h_iters);
            rt::cudaStreamDestroy(stream);
            return Err(e.into());
        }

        let (mut p, mut w, mut h, mut max_iter) = (d_iters, WIDTH as i32, HEIGHT as i32, 256i32);
        let mut args: [*mut c_void; 4] = [(&raw mut p).cast(), (&raw mut w).cast(), (&raw mut h).cast(), (&raw mut max_iter).cast()];
        let grid = (WIDTH.div_ceil(16) as u32, HEIGHT.div_ceil(16) as u32, 1);
        let launched = launch_kernel(f, grid, (16, 16, 1), 0, stream, &mut args);
        let copied = rt::cudaMemcpyAsync(h_iters, d_iters, bytes, cudaMemcpyKind::cudaMemcpyDeviceToHost, stream).result();

        let synced = rt::cudaDeviceSynchronize().result();
        if launched.is_ok() && copied.is_ok() && synced.is_ok() {
            let iters = std::slice::from_raw_parts(h_iters as *const u32, WIDTH * HEIGHT);
            let inside = iters.iter().filter(|&&k| k == 256).count();
            println!("{inside} of {} points inside", WIDTH * HEIGHT);
        }
        rt::cudaFree(d_iters);
        rt::cudaFreeHost(h_iters);
        rt::cudaStreamDestroy(stream);
        let _ = drv::module::unload(module);
        launched?;
        copied?;
        synced?;
    }
    Ok(())
}
