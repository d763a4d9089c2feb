//! case: Mandelbrot tile renderer on the raw driver API using only the legacy default stream: palette uploaded with the blocking cuMemcpyHtoD_v2 from a Vec, kernel launched on stream 0, iterations fetched with the blocking cuMemcpyDtoH_v2 into a Vec — synchronous copies, all ordered on one stream (near-miss for missing_sync and pageable_async_copy)
//! expect: none

use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use cudarc::driver::{sys, DriverError};
use cudarc::nvrtc::compile_ptx;

const MANDEL_SRC: &str = r#"
extern "C" __global__ void mandel(unsigned* iters, const unsigned* palette, unsigned* rgba, int w, int h,
                                  double cx, double cy, double scale, int max_it) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= w || y >= h) return;
    double zr = 0, zi = 0, cr = cx + (x - w / 2) * scale, ci = cy + (y - h / 2) * scale;
    int it = 0;
    while (zr * zr + zi * zi < 4.0 && it < max_it) { double t = zr * zr - zi * zi + cr; zi = 2 * zr * zi + ci; zr = t; ++it; }
    iters[y * w + x] = it;
    rgba[y * w + x] = palette[it % 256];
}
"#;

pub struct Tile {
    pub w: usize,
    pub h: usize,
    pub iterations: Vec<u32>,
    pub rgba: Vec<u32>,
}

fn palette() -> Vec<u32> {
    (0..256u32).map(|i| 0xff00_0000 | (i << 16) | ((255 - i) << 8) | (i / 2)).collect()
}

pub fn render_tile(w: usize, h: usize, center: (f64, f64), scale: f64, max_it: i32) -> Result<Tile, Box<dyn std::error::Error>> {
    let image = CString::new(compile_ptx(MANDEL_SRC)?.to_src())?;
    let pal = palette();
    let px = w * h;
    let mut tile = Tile { w, h, iterations: vec![0; px], rgba: vec![0; px] };
    let mut module: sys::CUmodule = null_mut();
    let mut func: sys::CUfunction = null_mut();
    let (mut d_iters, mut d_pal, mut d_rgba): (sys::CUdeviceptr, sys::CUdeviceptr, sys::CUdeviceptr) = (0, 0, 0);
    let null_stream: sys::CUstream = null_mut();
    unsafe {
        sys::cuModuleLoadData(&mut module, image.as_ptr().cast()).result()?;
        sys::cuModuleGetFunction(&mut func, module, c"mandel".as_ptr()).result()?;
        sys::cuMemAlloc_v2(&mut d_iters, px * 4).result()?;
        sys::cuMemAlloc_v2(&mut d_rgba, px * 4).result()?;
        sys::cuMemAlloc_v2(&mut d_pal, pal.len() * 4).result()?;
        sys::cuMemcpyHtoD_v2(d_pal, pal.as_ptr().cast(), pal.len() * 4).result()?;

        let (mut wi, mut hi, mut cx, mut cy, mut sc, mut mi) = (w as i32, h as i32, center.0, center.1, scale, max_it);
        let mut params: [*mut c_void; 9] = [
            (&mut d_iters) as *mut _ as *mut c_void,
            (&mut d_pal) as *mut _ as *mut c_void,
            (&mut d_rgba) as *mut _ as *mut c_void,
            (&mut wi) as *mut i32 as *mut c_void,
            (&mut hi) as *mut i32 as *mut c_void,
            (&mut cx) as *mut f64 as *mut c_void,
            (&mut cy) as *mut f64 as *mut c_void,
            (&mut sc) as *mut f64 as *mut c_void,
            (&mut mi) as *mut i32 as *mut c_void,
        ];
        sys::cuLaunchKernel(func, (w as u32).div_ceil(64), h as u32, 1, 64, 1, 1, 0, null_stream, params.as_mut_ptr(), null_mut()).result()?;
        // Legacy-stream blocking copies: they start after the kernel and return when done.
        sys::cuMemcpyDtoH_v2(tile.iterations.as_mut_ptr().cast(), d_iters, px * 4).result()?;
        sys::cuMemcpyDtoH_v2(tile.rgba.as_mut_ptr().cast(), d_rgba, px * 4).result()?;
        free_all(&[d_iters, d_rgba, d_pal])?;
        sys::cuModuleUnload(module).result()?;
    }
    let escaped = tile.iterations.iter().filter(|&&it| it < max_it as u32).count();
    log_tile(escaped, px);
    Ok(tile)
}

unsafe fn free_all(ptrs: &[sys::CUdeviceptr]) -> Result<(), DriverError> {
    for &p in ptrs {
        unsafe { sys::cuMemFree_v2(p).result()? };
    }
    Ok(())
}

fn log_tile(escaped: usize, px: usize) {
    eprintln!("tile: {:.1}% escaped", 100.0 * escaped as f64 / px as f64);
}
