//! case: a batch scorer built with a builder makes its own stream, so cudarc's event tracking orders the pinned readback before `as_slice`
//! expect: none
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

const SCORE_SRC: &str = r#"
extern "C" __global__ void score(const float* feats, float* out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 1.0f / (1.0f + __expf(-feats[i]));
}
"#;

#[derive(Default)]
pub struct ScorerBuilder {
    ordinal: usize,
    batch: usize,
}

impl ScorerBuilder {
    pub fn ordinal(mut self, o: usize) -> Self { self.ordinal = o; self }
    pub fn batch(mut self, b: usize) -> Self { self.batch = b; self }

    pub fn build(self) -> Res<Scorer> {
        let ctx = CudaContext::new(self.ordinal)?;
        // A stream of its own: the context is in multi-stream mode with event tracking on
        // (the default) from here on.
        let stream = ctx.new_stream()?;
        let func = ctx
            .load_module(cudarc::nvrtc::compile_ptx(SCORE_SRC)?)?
            .load_function("score")?;
        let feats = stream.alloc_zeros::<f32>(self.batch)?;
        let out = stream.alloc_zeros::<f32>(self.batch)?;
        let host = unsafe { ctx.alloc_pinned_with_flags::<f32>(self.batch, 0)? };
        Ok(Scorer { stream, func, feats, out, host })
    }
}

pub struct Scorer {
    stream: Arc<CudaStream>,
    func: CudaFunction,
    feats: CudaSlice<f32>,
    out: CudaSlice<f32>,
    host: PinnedHostSlice<f32>,
}

impl Scorer {
    pub fn run(&mut self) -> Res<f32> {
        let n = self.out.len() as u32;
        unsafe {
            self.stream
                .launch_builder(&self.func)
                .arg(&self.feats)
                .arg(&mut self.out)
                .arg(&n)
                .launch(LaunchConfig::for_num_elems(n))
        }?;
        self.stream.memcpy_dtoh(&self.out, &mut self.host)?;
        // memcpy_dtoh recorded `host`'s event on the stream; `as_slice` synchronizes on it.
        let mean = self.host.as_slice()?.iter().sum::<f32>() / n as f32;
        Ok(mean)
    }
}

pub fn score_once() -> Res<f32> {
    let mut s = ScorerBuilder::default().ordinal(0).batch(1 << 16).build()?;
    s.run()
}
