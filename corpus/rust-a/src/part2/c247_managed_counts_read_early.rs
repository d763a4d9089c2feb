//! case: a classification kernel writes per-class counts into a runtime-layer ManagedBuffer and the host reads them before synchronizing the stream
//! expect: missing_sync=1
use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, ManagedBuffer, Result, Stream};

const SRC: &str = r#"
extern "C" __global__ void classify(const float* scores, unsigned* counts, unsigned n, unsigned classes) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned c = (unsigned)(scores[i] * classes) % classes;
        atomicAdd(&counts[c], 1u);
    }
}
"#;

pub struct Classifier {
    kernel: Kernel,
    counts: ManagedBuffer<u32>,
}

impl Classifier {
    pub fn new(ctx: &Context, classes: usize) -> Result<Self> {
        Ok(Classifier { kernel: ctx.load_cuda(SRC)?.function("classify")?, counts: ctx.alloc_managed(classes)? })
    }

    pub fn histogram(&mut self, stream: &Stream, scores: &DeviceBuffer<f32>) -> Result<Vec<u32>> {
        let n = scores.len() as u32;
        let classes = self.counts.num_elems() as u32;
        stream.memset_d32(&mut self.counts, 0)?;
        unsafe { stream.launch(&self.kernel, LaunchConfig::for_num_elems(n), &[scores, &self.counts, &n, &classes])? };
        let hist = self.counts.to_vec(); // EXPECT: missing_sync
        stream.synchronize()?;
        Ok(hist)
    }
}

pub fn run() -> Result<()> {
    let ctx = Context::new(0)?;
    let stream = ctx.new_stream()?;
    let scores = ctx.alloc_zeroed::<f32>(1 << 20)?;
    let mut c = Classifier::new(&ctx, 10)?;
    println!("{:?}", c.histogram(&stream, &scores)?);
    Ok(())
}
