//! case: pixels converted from RGB to luma on a created stream and copied with cuMemcpyDtoHAsync_v2 into pinned memory from cuMemAllocHost_v2; the host reads the pinned buffer only after cuStreamSynchronize, then frees everything
//! expect: none

use std::error::Error;
use std::ffi::{CString, c_void};
use std::ptr;

use cudarc::driver::result;
use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void rgb_to_luma(const unsigned char* rgb, float* luma, int pixels) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < pixels) {
        float r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];
        luma[i] = (0.2126f * r + 0.7152f * g + 0.0722f * b) / 255.0f;
    }
}
"#;

pub fn mean_luma(rgb: &[u8]) -> Result<f32, Box<dyn Error>> {
    assert!(rgb.len() % 3 == 0);
    let pixels = rgb.len() / 3;
    let ctx = CudaContext::new(0)?;
    ctx.bind_to_thread()?;
    let ptx = compile_ptx(SRC)?;
    let image = CString::new(ptx.to_src())?;
    let module = unsafe { result::module::load_data(image.as_ptr().cast())? };
    let f = unsafe { result::module::get_function(module, CString::new("rgb_to_luma")?)? };
    let stream = result::stream::create(result::stream::StreamKind::Default)?;

    let mut mean = 0.0f32;
    unsafe {
        let mut d_rgb: CUdeviceptr = 0;
        let mut d_luma: CUdeviceptr = 0;
        let mut h_luma: *mut c_void = ptr::null_mut();
        let a1 = sys::cuMemAlloc_v2(&mut d_rgb, rgb.len());
        let a2 = sys::cuMemAlloc_v2(&mut d_luma, pixels * 4);
        let a3 = sys::cuMemAllocHost_v2(&mut h_luma, pixels * 4);
        if let Err(e) = a1.result().and(a2.result()).and(a3.result()) {
            let _ = sys::cuMemFree_v2(d_rgb);
            let _ = sys::cuMemFree_v2(d_luma);
            let _ = sys::cuMemFreeHost(h_luma);
            return Err(e.into());
        }
        let mut status = result::memcpy_htod_sync(d_rgb, rgb);
        if status.is_ok() {
            let (mut p_rgb, mut p_luma, mut px) = (d_rgb, d_luma, pixels as i32);
            let mut args: [*mut c_void; 3] = [(&raw mut p_rgb).cast(), (&raw mut p_luma).cast(), (&raw mut px).cast()];
            status = result::launch_kernel(f, (pixels.div_ceil(256) as u32, 1, 1), (256, 1, 1), 0, stream, &mut args);
        }
        if status.is_ok() {
            status = sys::cuMemcpyDtoHAsync_v2(h_luma, d_luma, pixels * 4, stream).result();
        }
        let synced = sys::cuStreamSynchronize(stream).result();
        if status.is_ok() && synced.is_ok() {
            let luma = std::slice::from_raw_parts(h_luma as *const f32, pixels);
            mean = luma.iter().sum::<f32>() / pixels.max(1) as f32;
        }
        let _ = sys::cuMemFree_v2(d_rgb);
        let _ = sys::cuMemFree_v2(d_luma);
        let _ = sys::cuMemFreeHost(h_luma);
        let _ = result::stream::destroy(stream);
        let _ = result::module::unload(module);
        status?;
        synced?;
    }
    Ok(mean)
}
