use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, Mapping, Result, Stream};

/// The activations, through two views of the same physical memory: stages write through
/// `primary` and gather neighbours through `shadow`.
pub struct Views {
    pub primary: Mapping,
    pub shadow: Mapping,
    pub out: DeviceBuffer<f32>,
    pub n: u32,
}

pub trait Stage: Send + Sync {
    fn name(&self) -> &'static str;
    /// # Safety
    /// `views` must stay alive until the stream has finished the enqueued work.
    unsafe fn enqueue(&self, stream: &Stream, views: &Views) -> Result<()>;
}

const NORMALIZE_SRC: &str = r#"
extern "C" __global__ void normalize_pair(float* primary, const float* shadow, float* out,
                                          float mean, float inv_std, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) primary[i] = (primary[i] - mean) * inv_std;
    asm volatile("fence.proxy.alias;" ::: "memory");
    __syncthreads();
    unsigned int j = blockIdx.x * blockDim.x + (threadIdx.x ^ 1u);
    if (i < n && j < n) out[i] = 0.5f * (shadow[i] + shadow[j]);
}
"#;

const RESIDUAL_SRC: &str = r#"
extern "C" __global__ void residual_pair(float* primary, const float* shadow, float* out, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) primary[i] = primary[i] + out[i];
    __syncthreads();
    unsigned int j = blockIdx.x * blockDim.x + (threadIdx.x ^ 1u);
    if (i < n && j < n) out[i] = shadow[j] - shadow[i];
}
"#;

pub struct Normalize {
    kernel: Kernel,
    mean: f32,
    inv_std: f32,
}

pub struct Residual {
    kernel: Kernel,
}

impl Stage for Normalize {
    fn name(&self) -> &'static str {
        "normalize"
    }
    unsafe fn enqueue(&self, stream: &Stream, v: &Views) -> Result<()> {
        let cfg = LaunchConfig::for_num_elems(v.n);
        unsafe { stream.launch(&self.kernel, cfg, &[&v.primary, &v.shadow, &v.out, &self.mean, &self.inv_std, &v.n]) }
    }
}

impl Stage for Residual {
    fn name(&self) -> &'static str {
        "residual"
    }
    unsafe fn enqueue(&self, stream: &Stream, v: &Views) -> Result<()> {
        let cfg = LaunchConfig::for_num_elems(v.n);
        unsafe { stream.launch(&self.kernel, cfg, &[&v.primary, &v.shadow, &v.out, &v.n]) } // EXPECT: unfenced_vmm_alias
    }
}

pub fn build_stages(ctx: &Context, mean: f32, std: f32) -> Result<Vec<Box<dyn Stage>>> {
    let norm = ctx.load_cuda(NORMALIZE_SRC)?.function("normalize_pair")?;
    let resid = ctx.load_cuda(RESIDUAL_SRC)?.function("residual_pair")?;
    Ok(vec![
        Box::new(Normalize { kernel: norm, mean, inv_std: 1.0 / std }),
        Box::new(Residual { kernel: resid }),
    ])
}
