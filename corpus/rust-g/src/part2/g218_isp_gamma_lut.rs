//! case: camera ISP stage (demosaic-free gamma + white balance) whose gamma LUT is a __device__ global of the NVRTC module, found with cuModuleGetGlobal and filled from pinned memory; the stage's Drop releases the LUT with cuMemFree alongside the buffers it did allocate
//! expect: mismatched_free=1

use std::error::Error;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use cudarc::driver::result;
use cudarc::driver::sys::{self, CUdeviceptr};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const ISP_SRC: &str = r#"
__device__ float g_gamma_lut[4096];

extern "C" __global__ void gamma_wb(const unsigned short* raw12, unsigned char* out8, unsigned n,
                                    float gain_r, float gain_g, float gain_b) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float gain = (i % 3 == 0) ? gain_r : (i % 3 == 1) ? gain_g : gain_b;
    unsigned v = min((unsigned)(raw12[i] * gain), 4095u);
    out8[i] = (unsigned char)(255.f * g_gamma_lut[v]);
}
"#;

pub struct GammaStage {
    stream: sys::CUstream,
    module: sys::CUmodule,
    kernel: sys::CUfunction,
    lut: CUdeviceptr,
    lut_bytes: usize,
    d_raw: CUdeviceptr,
    d_out: CUdeviceptr,
    pixels: usize,
}

impl GammaStage {
    pub fn new(pixels: usize, gamma: f32) -> Result<Self> {
        result::init()?;
        let dev = result::device::get(0)?;
        unsafe { result::ctx::set_current(result::primary_ctx::retain(dev)?)? };
        let stream = result::stream::create(result::stream::StreamKind::NonBlocking)?;
        let ptx = cudarc::nvrtc::compile_ptx(ISP_SRC)?;
        let image = CString::new(ptx.to_src())?;
        let module = unsafe { result::module::load_data(image.as_ptr().cast())? };
        let kernel = unsafe { result::module::get_function(module, CString::new("gamma_wb")?)? };
        let (lut, lut_bytes) = unsafe { result::module::get_global(module, CString::new("g_gamma_lut")?)? };

        // Fill the LUT from pinned memory.
        let entries = lut_bytes / 4;
        let staging = unsafe { result::malloc_host(lut_bytes, 0)? };
        let table = unsafe { std::slice::from_raw_parts_mut(staging.cast::<f32>(), entries) };
        for (i, v) in table.iter_mut().enumerate() {
            *v = (i as f32 / (entries - 1) as f32).powf(1.0 / gamma);
        }
        unsafe {
            sys::cuMemcpyHtoDAsync_v2(lut, staging, lut_bytes, stream).result()?;
            result::stream::synchronize(stream)?;
            result::free_host(staging)?;
        }
        let d_raw = unsafe { result::malloc_sync(pixels * 3 * 2)? };
        let d_out = unsafe { result::malloc_sync(pixels * 3)? };
        Ok(Self { stream, module, kernel, lut, lut_bytes, d_raw, d_out, pixels })
    }

    /// `raw_pinned`: 3 * pixels 12-bit samples in page-locked memory; `out_pinned` likewise.
    pub fn process(&self, raw_pinned: *const u16, out_pinned: *mut u8, wb: [f32; 3]) -> Result<()> {
        let n = (self.pixels * 3) as u32;
        let (mut raw, mut out, mut n_) = (self.d_raw, self.d_out, n);
        let (mut r, mut g, mut b) = (wb[0], wb[1], wb[2]);
        let mut params: [*mut c_void; 6] = [
            (&mut raw as *mut u64).cast(),
            (&mut out as *mut u64).cast(),
            (&mut n_ as *mut u32).cast(),
            (&mut r as *mut f32).cast(),
            (&mut g as *mut f32).cast(),
            (&mut b as *mut f32).cast(),
        ];
        unsafe {
            sys::cuMemcpyHtoDAsync_v2(self.d_raw, raw_pinned.cast(), self.pixels * 6, self.stream).result()?;
            result::launch_kernel(self.kernel, (n.div_ceil(256), 1, 1), (256, 1, 1), 0, self.stream, &mut params)?;
            sys::cuMemcpyDtoHAsync_v2(out_pinned.cast(), self.d_out, self.pixels * 3, self.stream).result()?;
            result::stream::synchronize(self.stream)?;
        }
        Ok(())
    }
}

impl Drop for GammaStage {
    fn drop(&mut self) {
        unsafe {
            let _ = result::stream::synchronize(self.stream);
            let _ = sys::cuMemFree_v2(self.d_raw);
            let _ = sys::cuMemFree_v2(self.d_out);
            let _ = sys::cuMemFree_v2(self.lut); // EXPECT: mismatched_free
            let _ = result::module::unload(self.module);
            let _ = result::stream::destroy(self.stream);
        }
    }
}

pub fn develop(frames: &[(*const u16, *mut u8)], pixels: usize) -> Result<usize> {
    let stage = GammaStage::new(pixels, 2.2)?;
    for &(raw, out) in frames {
        stage.process(raw, out, [1.9, 1.0, 1.6])?;
    }
    Ok(stage.lut_bytes)
}
