//! case: game physics broadphase on the GPU while the CPU advances animation; the frame loop polls `stream.query()` until the overlap pairs have been downloaded into pinned memory, then reads them, which is a completed wait
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const BROADPHASE_SRC: &str = r#"
struct Aabb { float min_x, min_y, max_x, max_y; };
extern "C" __global__ void sweep_pairs(const Aabb* boxes, int n, unsigned int* pairs, unsigned int* count, unsigned int max_pairs) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Aabb a = boxes[i];
    for (int j = i + 1; j < n; ++j) {
        Aabb b = boxes[j];
        if (a.max_x < b.min_x || b.max_x < a.min_x || a.max_y < b.min_y || b.max_y < a.min_y) continue;
        unsigned int k = atomicAdd(count, 1u);
        if (k < max_pairs) { pairs[2 * k] = i; pairs[2 * k + 1] = j; }
    }
}
"#;

pub trait Animator {
    /// Advances skeletal animation a little; returns false when nothing is left this frame.
    fn step(&mut self) -> bool;
}

pub struct Broadphase {
    stream: Stream,
    kernel: Kernel,
    boxes_host: PinnedBuffer<f32>,
    boxes_dev: DeviceBuffer<f32>,
    pairs_dev: DeviceBuffer<u32>,
    count_dev: DeviceBuffer<u32>,
    pairs_host: PinnedBuffer<u32>,
    count_host: PinnedBuffer<u32>,
    max_pairs: usize,
}

impl Broadphase {
    pub fn new(ctx: &Context, max_bodies: usize, max_pairs: usize) -> Result<Self> {
        Ok(Broadphase {
            stream: ctx.new_stream()?,
            kernel: ctx.load_cuda(BROADPHASE_SRC)?.function("sweep_pairs")?,
            boxes_host: ctx.alloc_pinned(4 * max_bodies)?,
            boxes_dev: ctx.alloc(4 * max_bodies)?,
            pairs_dev: ctx.alloc(2 * max_pairs)?,
            count_dev: ctx.alloc(1)?,
            pairs_host: ctx.alloc_pinned(2 * max_pairs)?,
            count_host: ctx.alloc_pinned(1)?,
            max_pairs,
        })
    }

    pub fn frame(&mut self, boxes: &[[f32; 4]], anim: &mut dyn Animator) -> Result<Vec<(u32, u32)>> {
        let n = boxes.len().min(self.boxes_host.len() / 4);
        for (dst, b) in self.boxes_host.chunks_exact_mut(4).zip(&boxes[..n]) {
            dst.copy_from_slice(b);
        }
        let (n_i, max) = (n as i32, self.max_pairs as u32);
        unsafe {
            self.stream.copy_htod_async(&mut self.boxes_dev, &self.boxes_host)?;
            self.stream.memset_d32_async(&mut self.count_dev, 0)?;
            self.stream.launch(&self.kernel, LaunchConfig::for_num_elems(n as u32), &[&self.boxes_dev, &n_i, &self.pairs_dev, &self.count_dev, &max])?;
            self.stream.copy_dtoh_async(&mut self.count_host, &self.count_dev)?;
            self.stream.copy_dtoh_async(&mut self.pairs_host, &self.pairs_dev)?;
        }
        // overlap: animate on the CPU until the GPU is done
        while !self.stream.query()? {
            if !anim.step() {
                std::thread::yield_now();
            }
        }
        let found = (self.count_host[0] as usize).min(self.max_pairs);
        Ok(self.pairs_host[..2 * found].chunks_exact(2).map(|p| (p[0], p[1])).collect())
    }
}
