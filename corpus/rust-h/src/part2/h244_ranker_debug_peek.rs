//! case: ranking service on the runtime layer with a debug hook that logs the best score; the scores are in a `DeviceBuffer`, and after synchronizing the hook reads the first one with `ptr::read` through the buffer's raw device address
//! expect: host_deref_device_ptr=1

use cuda_lint_runtime::{Context, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const RANK_SRC: &str = r#"
extern "C" __global__ void dot_scores(const float* items, const float* user, float* scores, unsigned n, unsigned dim) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = 0.0f;
    for (unsigned k = 0; k < dim; ++k) s += items[i * dim + k] * user[k];
    scores[i] = s;
}
"#;

pub struct Ranker {
    ctx: Context,
    stream: Stream,
    dot: Kernel,
    debug: bool,
}

impl Ranker {
    pub fn new(ctx: &Context, debug: bool) -> Result<Self> {
        Ok(Self { ctx: ctx.clone(), stream: ctx.new_stream()?, dot: ctx.load_cuda(RANK_SRC)?.function("dot_scores")?, debug })
    }

    /// Scores every item for one user; returns the top `k` item indices.
    pub fn rank(&self, items: &PinnedBuffer<f32>, user: &PinnedBuffer<f32>, k: usize) -> Result<Vec<usize>> {
        let dim = user.len();
        let n = items.len() / dim;
        let mut d_items = self.ctx.alloc::<f32>(items.len())?;
        let mut d_user = self.ctx.alloc::<f32>(dim)?;
        let d_scores = self.ctx.alloc::<f32>(n)?;
        self.stream.copy_htod(&mut d_items, items)?;
        self.stream.copy_htod(&mut d_user, user)?;
        let (n32, dim32) = (n as u32, dim as u32);
        unsafe { self.stream.launch(&self.dot, LaunchConfig::for_num_elems(n32), &[&d_items, &d_user, &d_scores, &n32, &dim32])? };
        self.stream.synchronize()?;

        if self.debug {
            let first = unsafe { std::ptr::read(d_scores.device_ptr().as_raw() as *const f32) }; // EXPECT: host_deref_device_ptr
            eprintln!("ranker: item 0 scored {first}");
        }

        let mut scores = self.ctx.alloc_pinned::<f32>(n)?;
        self.stream.copy_dtoh(&mut scores, &d_scores)?;
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
        order.truncate(k);
        Ok(order)
    }
}
