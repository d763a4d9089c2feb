//! case: overlap-save FIR convolution of an audio capture: each block is uploaded straight from the caller's Vec with cuMemcpyHtoDAsync, and the filtered block is read back into cuMemHostAlloc memory allocated write-combined, which the host then scans for the peak
//! expect: pageable_async_copy=1, write_combined_host_read=1

use std::error::Error;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use cudarc::driver::sys::{self, CUdeviceptr};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const FIR_SRC: &str = r#"
extern "C" __global__ void fir_overlap_save(const float* __restrict__ x, const float* __restrict__ taps,
                                            float* __restrict__ y, unsigned block, unsigned ntaps) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= block) return;
    // x holds ntaps-1 samples of history followed by `block` new samples.
    float acc = 0.f;
    for (unsigned k = 0; k < ntaps; ++k) acc += taps[k] * x[i + ntaps - 1 - k];
    y[i] = acc;
}
"#;

pub struct FirPipeline {
    stream: sys::CUstream,
    module: sys::CUmodule,
    func: sys::CUfunction,
    d_x: CUdeviceptr,
    d_taps: CUdeviceptr,
    d_y: CUdeviceptr,
    out_host: *mut f32,
    block: usize,
    ntaps: usize,
}

impl FirPipeline {
    pub fn new(taps: &[f32], block: usize) -> Result<Self> {
        unsafe { sys::cuInit(0).result()? };
        let mut dev = 0;
        let mut ctx = null_mut();
        unsafe {
            sys::cuDeviceGet(&mut dev, 0).result()?;
            sys::cuDevicePrimaryCtxRetain(&mut ctx, dev).result()?;
            sys::cuCtxSetCurrent(ctx).result()?;
        }
        let ptx = cudarc::nvrtc::compile_ptx(FIR_SRC)?;
        let image = CString::new(ptx.to_src())?;
        let name = CString::new("fir_overlap_save")?;
        let (mut module, mut func) = (null_mut(), null_mut());
        let mut stream = null_mut();
        unsafe {
            sys::cuModuleLoadData(&mut module, image.as_ptr().cast()).result()?;
            sys::cuModuleGetFunction(&mut func, module, name.as_ptr()).result()?;
            sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
        }
        let ntaps = taps.len();
        let (mut d_x, mut d_taps, mut d_y) = (0, 0, 0);
        let mut out_host: *mut c_void = null_mut();
        let mut taps_pinned: *mut c_void = null_mut();
        unsafe {
            sys::cuMemAlloc_v2(&mut d_x, (block + ntaps - 1) * 4).result()?;
            sys::cuMemAlloc_v2(&mut d_taps, ntaps * 4).result()?;
            sys::cuMemAlloc_v2(&mut d_y, block * 4).result()?;
            sys::cuMemsetD32Async(d_x, 0, block + ntaps - 1, stream).result()?;
            // Pinned output: write-combined for the fastest transfers.
            sys::cuMemHostAlloc(&mut out_host, block * 4, sys::CU_MEMHOSTALLOC_WRITECOMBINED).result()?;
            sys::cuMemAllocHost_v2(&mut taps_pinned, ntaps * 4).result()?;
            std::ptr::copy_nonoverlapping(taps.as_ptr(), taps_pinned.cast::<f32>(), ntaps);
            sys::cuMemcpyHtoDAsync_v2(d_taps, taps_pinned, ntaps * 4, stream).result()?;
            sys::cuStreamSynchronize(stream).result()?;
            sys::cuMemFreeHost(taps_pinned).result()?;
        }
        Ok(Self { stream, module, func, d_x, d_taps, d_y, out_host: out_host.cast(), block, ntaps })
    }

    /// Filters one block of new samples and returns the peak magnitude of the output.
    pub fn process(&mut self, samples: &[f32]) -> Result<f32> {
        assert_eq!(samples.len(), self.block);
        let history = (self.ntaps - 1) * 4;
        unsafe {
            // Keep the last ntaps-1 input samples as history for the next block.
            sys::cuMemcpyDtoDAsync_v2(self.d_x, self.d_x + (self.block * 4) as u64, history, self.stream).result()?;
            sys::cuMemcpyHtoDAsync_v2( // EXPECT: pageable_async_copy
                self.d_x + history as u64,
                samples.as_ptr().cast(),
                self.block * 4,
                self.stream,
            )
            .result()?;
        }
        let (mut x, mut t, mut y) = (self.d_x, self.d_taps, self.d_y);
        let (mut b, mut nt) = (self.block as u32, self.ntaps as u32);
        let mut params: [*mut c_void; 5] = [
            (&mut x as *mut u64).cast(),
            (&mut t as *mut u64).cast(),
            (&mut y as *mut u64).cast(),
            (&mut b as *mut u32).cast(),
            (&mut nt as *mut u32).cast(),
        ];
        unsafe {
            sys::cuLaunchKernel(self.func, b.div_ceil(256), 1, 1, 256, 1, 1, 0, self.stream, params.as_mut_ptr(), null_mut())
                .result()?;
            sys::cuMemcpyDtoHAsync_v2(self.out_host.cast(), self.d_y, self.block * 4, self.stream).result()?;
            sys::cuStreamSynchronize(self.stream).result()?;
        }
        let out = unsafe { std::slice::from_raw_parts(self.out_host, self.block) };
        Ok(out.iter().fold(0.0f32, |m, v| m.max(v.abs()))) // EXPECT: write_combined_host_read
    }
}

impl Drop for FirPipeline {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuMemFree_v2(self.d_x);
            let _ = sys::cuMemFree_v2(self.d_taps);
            let _ = sys::cuMemFree_v2(self.d_y);
            let _ = sys::cuMemFreeHost(self.out_host.cast());
            let _ = sys::cuModuleUnload(self.module);
            let _ = sys::cuStreamDestroy_v2(self.stream);
        }
    }
}

fn lowpass(ntaps: usize, cutoff: f32) -> Vec<f32> {
    let m = (ntaps - 1) as f32 / 2.0;
    (0..ntaps)
        .map(|i| {
            let x = i as f32 - m;
            let sinc = if x == 0.0 { 2.0 * cutoff } else { (2.0 * std::f32::consts::PI * cutoff * x).sin() / (std::f32::consts::PI * x) };
            let hann = 0.5 - 0.5 * (2.0 * std::f32::consts::PI * i as f32 / (ntaps - 1) as f32).cos();
            sinc * hann
        })
        .collect()
}

pub fn filter_capture(capture: &[f32]) -> Result<Vec<f32>> {
    const BLOCK: usize = 1 << 18;
    let mut fir = FirPipeline::new(&lowpass(255, 0.1), BLOCK)?;
    let mut peaks = Vec::new();
    for chunk in capture.chunks_exact(BLOCK) {
        let block: Vec<f32> = chunk.iter().map(|s| s * 0.5).collect();
        peaks.push(fir.process(&block)?);
    }
    Ok(peaks)
}
