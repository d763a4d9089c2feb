//! case: zero-copy anomaly flags for a vibration monitor: a cuMemHostAlloc(DEVICEMAP) buffer (no write-combining) is written by the kernel through the pointer from cuMemHostGetDevicePointer and read by the host through its host pointer after cuStreamSynchronize
//! expect: none

use std::error::Error;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use cudarc::driver::sys::{self, CUdeviceptr};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const ANOMALY_SRC: &str = r#"
// Per channel: RMS over a window, flag when above the channel's threshold.
extern "C" __global__ void rms_flags(const float* samples, unsigned channels, unsigned window,
                                     const float* thresholds, unsigned char* flags, float* rms_out) {
    unsigned ch = blockIdx.x * blockDim.x + threadIdx.x;
    if (ch >= channels) return;
    float acc = 0.f;
    for (unsigned k = 0; k < window; ++k) { float s = samples[k * channels + ch]; acc += s * s; }
    float rms = sqrtf(acc / window);
    rms_out[ch] = rms;
    flags[ch] = rms > thresholds[ch] ? 1 : 0;
}
"#;

#[repr(C)]
struct MappedBlock {
    host: *mut u8,
    dev: CUdeviceptr,
    bytes: usize,
}

impl MappedBlock {
    fn new(bytes: usize) -> Result<Self> {
        let mut host: *mut c_void = null_mut();
        let mut dev = 0;
        unsafe {
            sys::cuMemHostAlloc(&mut host, bytes, sys::CU_MEMHOSTALLOC_DEVICEMAP | sys::CU_MEMHOSTALLOC_PORTABLE).result()?;
            sys::cuMemHostGetDevicePointer_v2(&mut dev, host, 0).result()?;
        }
        Ok(Self { host: host.cast(), dev, bytes })
    }
}

impl Drop for MappedBlock {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuMemFreeHost(self.host.cast());
        }
    }
}

pub struct VibrationMonitor {
    stream: sys::CUstream,
    module: sys::CUmodule,
    kernel: sys::CUfunction,
    thresholds: MappedBlock,
    flags: MappedBlock,
    rms: MappedBlock,
    channels: u32,
}

impl VibrationMonitor {
    pub fn new(thresholds: &[f32]) -> Result<Self> {
        let mut dev = 0;
        let mut ctx = null_mut();
        let (mut stream, mut module, mut kernel) = (null_mut(), null_mut(), null_mut());
        let ptx = cudarc::nvrtc::compile_ptx(ANOMALY_SRC)?;
        let image = CString::new(ptx.to_src())?;
        unsafe {
            sys::cuInit(0).result()?;
            sys::cuDeviceGet(&mut dev, 0).result()?;
            sys::cuDevicePrimaryCtxRetain(&mut ctx, dev).result()?;
            sys::cuCtxSetCurrent(ctx).result()?;
            sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
            sys::cuModuleLoadData(&mut module, image.as_ptr().cast()).result()?;
            sys::cuModuleGetFunction(&mut kernel, module, c"rms_flags".as_ptr()).result()?;
        }
        let channels = thresholds.len();
        let t = MappedBlock::new(channels * 4)?;
        unsafe { std::ptr::copy_nonoverlapping(thresholds.as_ptr(), t.host.cast::<f32>(), channels) };
        Ok(Self {
            stream, module, kernel,
            thresholds: t,
            flags: MappedBlock::new(channels)?,
            rms: MappedBlock::new(channels * 4)?,
            channels: channels as u32,
        })
    }

    /// `d_window`: `window x channels` samples on the device. Returns the alarming channels
    /// with their RMS.
    pub fn check(&self, d_window: CUdeviceptr, window: u32) -> Result<Vec<(usize, f32)>> {
        let (mut s, mut th, mut fl, mut rm) = (d_window, self.thresholds.dev, self.flags.dev, self.rms.dev);
        let (mut ch, mut w) = (self.channels, window);
        let mut params: [*mut c_void; 6] = [
            (&mut s as *mut u64).cast(),
            (&mut ch as *mut u32).cast(),
            (&mut w as *mut u32).cast(),
            (&mut th as *mut u64).cast(),
            (&mut fl as *mut u64).cast(),
            (&mut rm as *mut u64).cast(),
        ];
        unsafe {
            sys::cuLaunchKernel(self.kernel, ch.div_ceil(128), 1, 1, 128, 1, 1, 0, self.stream, params.as_mut_ptr(), null_mut()).result()?;
            sys::cuStreamSynchronize(self.stream).result()?;
        }
        let flags = unsafe { std::slice::from_raw_parts(self.flags.host, self.flags.bytes) };
        let rms = unsafe { std::slice::from_raw_parts(self.rms.host.cast::<f32>(), self.channels as usize) };
        Ok(flags.iter().zip(rms).enumerate().filter(|(_, (f, _))| **f != 0).map(|(i, (_, r))| (i, *r)).collect())
    }
}

impl Drop for VibrationMonitor {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuModuleUnload(self.module);
            let _ = sys::cuStreamDestroy_v2(self.stream);
        }
    }
}
