//! case: cudarc audio gain stage on the default stream only, with its samples in a UnifiedSlice: the host fills it before any kernel, the gain kernel takes it as a launch argument (cudarc records the slice's event after every launch, whatever the stream count) and as_slice waits on that event before the host reads
//! expect: none
use cudarc::driver::{CudaContext, CudaFunction, CudaStream, LaunchConfig, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;
use std::sync::Arc;

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

const GAIN_SRC: &str = r#"
extern "C" __global__ void soft_clip_gain(float* s, unsigned int n, float gain) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) s[i] = tanhf(s[i] * gain);
}
"#;

pub struct GainStage {
    stream: Arc<CudaStream>,
    func: CudaFunction,
    buf: UnifiedSlice<f32>,
}

impl GainStage {
    pub fn new(frames: usize) -> Res<Self> {
        let ctx = CudaContext::new(0)?;
        let stream = ctx.default_stream();
        let func = ctx.load_module(compile_ptx(GAIN_SRC)?)?.load_function("soft_clip_gain")?;
        let buf = unsafe { ctx.alloc_unified::<f32>(frames, true) }?;
        Ok(GainStage { stream, func, buf })
    }

    /// Applies the gain in place and returns the peak of the processed block.
    pub fn process(&mut self, input: &[f32], gain_db: f32) -> Res<f32> {
        let n = input.len().min(self.buf.len());
        self.buf.as_mut_slice()?[..n].copy_from_slice(&input[..n]);
        let gain = 10f32.powf(gain_db / 20.0);
        let nn = n as u32;
        unsafe {
            self.stream.launch_builder(&self.func).arg(&mut self.buf).arg(&nn).arg(&gain).launch(LaunchConfig::for_num_elems(nn))?;
        }
        let out = self.buf.as_slice()?;
        Ok(out[..n].iter().fold(0f32, |m, &v| m.max(v.abs())))
    }
}
