//! case: an inference server on cudarc's default stream only reads the probabilities from pinned memory right after the async readback
//! expect: missing_sync=1
mod kernels;

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

pub struct InferServer {
    stream: Arc<CudaStream>,
    softmax: CudaFunction,
    activations: CudaSlice<f32>,
    probs: CudaSlice<f32>,
    probs_host: PinnedHostSlice<f32>,
    vocab: usize,
}

impl InferServer {
    pub fn new(ordinal: usize, vocab: usize) -> Res<Self> {
        let ctx = CudaContext::new(ordinal)?;
        // The whole server runs on the context's default stream: no other stream is ever made.
        let stream = ctx.default_stream();
        let module = ctx.load_module(cudarc::nvrtc::compile_ptx(kernels::SOFTMAX_SRC)?)?;
        let softmax = module.load_function("softmax_rows")?;
        let activations = stream.alloc_zeros::<f32>(vocab)?;
        let probs = stream.alloc_zeros::<f32>(vocab)?;
        // Cached pinned memory (no write-combining): the host reads it.
        let probs_host = unsafe { ctx.alloc_pinned_with_flags::<f32>(vocab, 0)? };
        Ok(Self { stream, softmax, activations, probs, probs_host, vocab })
    }

    pub fn load_activations(&mut self, acts: &[f32; 512]) -> Res<()> {
        // 2 KiB from the stack: a small upload.
        let mut head = self.activations.slice_mut(0..512);
        self.stream.memcpy_htod(acts, &mut head)?;
        Ok(())
    }

    pub fn top1(&mut self) -> Res<(usize, f32)> {
        let n = self.vocab as u32;
        let mut launch = self.stream.launch_builder(&self.softmax);
        launch.arg(&self.activations).arg(&mut self.probs).arg(&n);
        unsafe { launch.launch(LaunchConfig::for_num_elems(n)) }?;
        self.stream.memcpy_dtoh(&self.probs, &mut self.probs_host)?;
        // With one stream cudarc records no event on `probs_host`: `as_slice` waits for nothing.
        let best = self.probs_host.as_slice()?.iter().copied().enumerate().fold((0usize, f32::MIN), |a, (i, p)| if p > a.1 { (i, p) } else { a }); // EXPECT: missing_sync
        Ok(best)
    }
}

pub fn serve(requests: &[[f32; 512]]) -> Res<Vec<usize>> {
    let mut server = InferServer::new(0, 32_000)?;
    let mut answers = Vec::with_capacity(requests.len());
    for r in requests {
        server.load_activations(r)?;
        answers.push(server.top1()?.0);
    }
    Ok(answers)
}
