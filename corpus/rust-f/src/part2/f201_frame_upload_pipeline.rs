//! case: video frame pipeline on raw driver calls: a pageable luma preview read back (blocking in effect, read at once) and a histogram copied into pinned staging that is read before the stream is synchronized
//! expect: missing_sync=1, pageable_async_copy=1
use cudarc::driver::result as drv;
use cudarc::driver::sys;
use std::ffi::{CString, c_void};

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

const LUMA_SRC: &str = r#"
extern "C" __global__ void luma_hist(const unsigned char* rgb, unsigned char* luma,
                                     unsigned int* hist, unsigned int pixels) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= pixels) return;
    float y = 0.299f * rgb[3 * i] + 0.587f * rgb[3 * i + 1] + 0.114f * rgb[3 * i + 2];
    unsigned char v = (unsigned char)fminf(y, 255.0f);
    luma[i] = v;
    atomicAdd(&hist[v], 1u);
}
"#;

pub struct FrameStats {
    pub mean_luma: f64,
    pub p95_bin: usize,
}

pub struct FrameUploader {
    stream: sys::CUstream,
    module: sys::CUmodule,
    func: sys::CUfunction,
    width: usize,
    height: usize,
    staging_rgb: *mut u8,
    hist_host: *mut u32,
    d_rgb: sys::CUdeviceptr,
    d_luma: sys::CUdeviceptr,
    d_hist: sys::CUdeviceptr,
}

impl FrameUploader {
    pub fn new(width: usize, height: usize) -> Res<Self> {
        drv::init()?;
        let dev = drv::device::get(0)?;
        let ctx = unsafe { drv::primary_ctx::retain(dev) }?;
        unsafe { drv::ctx::set_current(ctx) }?;
        let ptx = cudarc::nvrtc::compile_ptx(LUMA_SRC)?;
        let image = CString::new(ptx.to_src())?;
        let module = unsafe { drv::module::load_data(image.as_ptr().cast()) }?;
        let func = unsafe { drv::module::get_function(module, CString::new("luma_hist")?) }?;
        let mut stream: sys::CUstream = std::ptr::null_mut();
        unsafe { sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) }.result()?;

        let pixels = width * height;
        let mut staging: *mut c_void = std::ptr::null_mut();
        unsafe { sys::cuMemAllocHost_v2(&mut staging, pixels * 3) }.result()?;
        let mut hist: *mut c_void = std::ptr::null_mut();
        unsafe { sys::cuMemAllocHost_v2(&mut hist, 256 * 4) }.result()?;
        let (mut d_rgb, mut d_luma, mut d_hist) = (0, 0, 0);
        unsafe {
            sys::cuMemAlloc_v2(&mut d_rgb, pixels * 3).result()?;
            sys::cuMemAlloc_v2(&mut d_luma, pixels).result()?;
            sys::cuMemAlloc_v2(&mut d_hist, 256 * 4).result()?;
        }
        Ok(FrameUploader {
            stream,
            module,
            func,
            width,
            height,
            staging_rgb: staging.cast(),
            hist_host: hist.cast(),
            d_rgb,
            d_luma,
            d_hist,
        })
    }

    fn pixels(&self) -> usize {
        self.width * self.height
    }

    pub fn process(&mut self, frame: &[u8]) -> Res<FrameStats> {
        let pixels = self.pixels();
        assert_eq!(frame.len(), pixels * 3);
        // The previous frame ended with a stream synchronize, so the staging buffer is free.
        let staging = unsafe { std::slice::from_raw_parts_mut(self.staging_rgb, pixels * 3) };
        staging.copy_from_slice(frame);
        unsafe {
            sys::cuMemcpyHtoDAsync_v2(self.d_rgb, self.staging_rgb.cast(), pixels * 3, self.stream).result()?;
            sys::cuMemsetD32Async(self.d_hist, 0, 256, self.stream).result()?;
        }

        let mut rgb = self.d_rgb;
        let mut luma = self.d_luma;
        let mut hist = self.d_hist;
        let mut n = pixels as u32;
        let mut params: [*mut c_void; 4] = [
            (&mut rgb as *mut u64).cast(),
            (&mut luma as *mut u64).cast(),
            (&mut hist as *mut u64).cast(),
            (&mut n as *mut u32).cast(),
        ];
        let blocks = n.div_ceil(256);
        unsafe {
            sys::cuLaunchKernel(self.func, blocks, 1, 1, 256, 1, 1, 0, self.stream, params.as_mut_ptr(), std::ptr::null_mut())
                .result()?;
        }

        // Preview plane for the UI thumbnail.
        let mut preview = vec![0u8; pixels];
        unsafe { sys::cuMemcpyDtoHAsync_v2(preview.as_mut_ptr().cast(), self.d_luma, preview.len(), self.stream) }.result()?; // EXPECT: pageable_async_copy
        let mean_luma = preview.iter().map(|&v| v as f64).sum::<f64>() / pixels as f64;

        unsafe { sys::cuMemcpyDtoHAsync_v2(self.hist_host.cast(), self.d_hist, 256 * 4, self.stream) }.result()?;
        let total: u64 = unsafe { std::slice::from_raw_parts(self.hist_host, 256) }.iter().map(|&c| c as u64).sum(); // EXPECT: missing_sync
        let hist_host = unsafe { std::slice::from_raw_parts(self.hist_host, 256) };
        let mut acc = 0u64;
        let p95_bin = hist_host
            .iter()
            .position(|&c| {
                acc += c as u64;
                acc * 100 >= total * 95
            })
            .unwrap_or(255);

        unsafe { sys::cuStreamSynchronize(self.stream) }.result()?;
        Ok(FrameStats { mean_luma, p95_bin })
    }
}

impl Drop for FrameUploader {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuMemFree_v2(self.d_rgb);
            let _ = sys::cuMemFree_v2(self.d_luma);
            let _ = sys::cuMemFree_v2(self.d_hist);
            let _ = sys::cuMemFreeHost(self.staging_rgb.cast());
            let _ = sys::cuMemFreeHost(self.hist_host.cast());
            let _ = sys::cuStreamDestroy_v2(self.stream);
            let _ = drv::module::unload(self.module);
        }
    }
}

pub fn run_clip(frames: &[Vec<u8>], width: usize, height: usize) -> Res<Vec<FrameStats>> {
    let mut up = FrameUploader::new(width, height)?;
    frames.iter().map(|f| up.process(f)).collect()
}
