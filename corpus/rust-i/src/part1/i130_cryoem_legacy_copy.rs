//! case: cryo-EM particle picker: the template-matching kernel runs on a runtime-layer Stream (CU_STREAM_NON_BLOCKING) and the scores are fetched with the blocking cuMemcpyDtoH_v2, which runs on the legacy default stream and does not wait for non-blocking streams
//! expect: missing_sync=1

use cudarc::driver::sys;
use cuda_lint_runtime::{Context, DeviceBuffer, Error, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const MATCH_SRC: &str = r#"
extern "C" __global__ void template_score(const float* micrograph, const float* tmpl, float* score, int w, int h, int t) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x + t > w || y + t > h) return;
    float acc = 0.f;
    for (int j = 0; j < t; ++j)
        for (int i = 0; i < t; ++i)
            acc += micrograph[(y + j) * w + x + i] * tmpl[j * t + i];
    score[y * w + x] = acc;
}
"#;

#[derive(Debug, Clone, Copy)]
pub struct Pick {
    pub x: usize,
    pub y: usize,
    pub score: f32,
}

pub struct Picker {
    stream: Stream,
    kernel: Kernel,
    template: DeviceBuffer<f32>,
    t: usize,
}

impl Picker {
    pub fn new(ctx: &Context, template: &PinnedBuffer<f32>, t: usize) -> Result<Self> {
        let stream = ctx.new_stream()?;
        let mut d_t = ctx.alloc::<f32>(t * t)?;
        unsafe { stream.copy_htod_async(&mut d_t, &template[..t * t])? };
        stream.synchronize()?;
        Ok(Self { kernel: ctx.load_cuda(MATCH_SRC)?.function("template_score")?, stream, template: d_t, t })
    }

    pub fn pick(&self, ctx: &Context, micrograph: &DeviceBuffer<f32>, w: usize, h: usize, threshold: f32) -> Result<Vec<Pick>> {
        let scores_dev = ctx.alloc_zeroed::<f32>(w * h)?;
        let (wi, hi, ti) = (w as i32, h as i32, self.t as i32);
        let cfg = LaunchConfig { grid: ((w as u32).div_ceil(128), h as u32, 1), block: (128, 1, 1), shared_mem_bytes: 0 };
        unsafe { self.stream.launch(&self.kernel, cfg, &[micrograph, &self.template, &scores_dev, &wi, &hi, &ti])? };

        // "Blocking copy, so no explicit synchronize needed."
        let mut scores: PinnedBuffer<f32> = ctx.alloc_pinned(w * h)?;
        let rc = unsafe { sys::cuMemcpyDtoH_v2(scores.as_mut_ptr().cast(), scores_dev.device_ptr().as_raw(), w * h * 4) }; // EXPECT: missing_sync
        if rc != sys::CUresult::CUDA_SUCCESS {
            return Err(Error::Unsupported { what: format!("cuMemcpyDtoH_v2: {rc:?}") });
        }

        let picks = scores
            .iter()
            .enumerate()
            .filter(|&(_, &s)| s > threshold)
            .map(|(i, &s)| Pick { x: i % w, y: i / w, score: s })
            .collect();
        self.stream.synchronize()?;
        Ok(picks)
    }
}
