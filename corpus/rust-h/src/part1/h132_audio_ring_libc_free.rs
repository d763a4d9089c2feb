//! case: multichannel audio capture ring in portable page-locked memory (`cuMemHostAlloc` with `CU_MEMHOSTALLOC_PORTABLE`) feeding a GPU mixer; the ring's `Drop` returns the memory with `libc::free`, which corrupts the C heap: pinned memory must go back through `cuMemFreeHost`
//! expect: mismatched_free=1

use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::Arc;

use cudarc::driver::{result, sys, CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtrMut, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const MIX_SRC: &str = r#"
extern "C" __global__ void downmix(const float* interleaved, float* mono, const float* gains, int frames, int channels) {
    int f = blockIdx.x * blockDim.x + threadIdx.x;
    if (f >= frames) return;
    float acc = 0.f;
    for (int c = 0; c < channels; ++c) acc += gains[c] * interleaved[f * channels + c];
    mono[f] = acc;
}
"#;

/// A ring of `periods` periods of `frames` interleaved frames.
pub struct CaptureRing {
    base: *mut f32,
    frames: usize,
    channels: usize,
    periods: usize,
    write_period: usize,
}

unsafe impl Send for CaptureRing {}

impl CaptureRing {
    pub fn new(frames: usize, channels: usize, periods: usize) -> Result<Self, DriverError> {
        let bytes = frames * channels * periods * std::mem::size_of::<f32>();
        let mut base: *mut c_void = null_mut();
        unsafe { sys::cuMemHostAlloc(&mut base, bytes, sys::CU_MEMHOSTALLOC_PORTABLE).result()? };
        Ok(Self { base: base as *mut f32, frames, channels, periods, write_period: 0 })
    }

    fn period_len(&self) -> usize {
        self.frames * self.channels
    }

    pub fn period(&self, i: usize) -> &[f32] {
        unsafe { std::slice::from_raw_parts(self.base.add((i % self.periods) * self.period_len()), self.period_len()) }
    }

    /// Called from the audio callback with one period of samples.
    pub fn push(&mut self, samples: &[f32]) -> usize {
        let len = self.period_len();
        let slot = self.write_period % self.periods;
        let dst = unsafe { std::slice::from_raw_parts_mut(self.base.add(slot * len), len) };
        dst.copy_from_slice(&samples[..len]);
        self.write_period += 1;
        slot
    }
}

impl Drop for CaptureRing {
    fn drop(&mut self) {
        unsafe { libc::free(self.base as *mut c_void) }; // EXPECT: mismatched_free
    }
}

pub struct GpuMixer {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    d_period: CudaSlice<f32>,
    d_mono: CudaSlice<f32>,
    d_gains: CudaSlice<f32>,
    h_mono: PinnedHostSlice<f32>,
}

impl GpuMixer {
    pub fn new(ctx: &Arc<CudaContext>, ring: &CaptureRing, gains: &[f32; 8]) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        Ok(Self {
            kernel: ctx.load_module(compile_ptx(MIX_SRC)?)?.load_function("downmix")?,
            d_period: stream.alloc_zeros::<f32>(ring.period_len())?,
            d_mono: stream.alloc_zeros::<f32>(ring.frames)?,
            d_gains: stream.clone_htod(gains)?,
            h_mono: unsafe { ctx.alloc_pinned_with_flags::<f32>(ring.frames, 0)? },
            stream,
        })
    }

    /// Mixes one captured period down to mono and returns its peak level.
    pub fn mix(&mut self, ring: &CaptureRing, slot: usize) -> Result<f32, DriverError> {
        let cu_stream = self.stream.cu_stream();
        {
            let (dst, _record) = self.d_period.device_ptr_mut(&self.stream);
            unsafe { result::memcpy_htod_async(dst, ring.period(slot), cu_stream)? };
        }
        let (frames, channels) = (ring.frames as i32, ring.channels as i32);
        let mut launch = self.stream.launch_builder(&self.kernel);
        launch.arg(&self.d_period).arg(&mut self.d_mono).arg(&self.d_gains).arg(&frames).arg(&channels);
        unsafe { launch.launch(LaunchConfig::for_num_elems(ring.frames as u32)) }?;
        self.stream.memcpy_dtoh(&self.d_mono, &mut self.h_mono)?;
        self.stream.synchronize()?;
        Ok(self.h_mono.as_slice()?.iter().fold(0f32, |m, s| m.max(s.abs())))
    }
}
