//! case: an image histogram (runtime layer) enqueues the kernel and the copy of its bins into pinned memory, then calls a helper in a sibling module that synchronizes every stream it is given before the bins are read
//! expect: none

mod drain;

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const HIST_SRC: &str = r#"
extern "C" __global__ void histogram256(const unsigned char* px, unsigned* bins, unsigned n) {
    __shared__ unsigned local[256];
    local[threadIdx.x] = 0;
    __syncthreads();
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[px[i]], 1u);
    __syncthreads();
    atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}
"#;

pub struct Histogrammer {
    stream: Stream,
    kernel: Kernel,
    pixels: DeviceBuffer<u8>,
    bins: DeviceBuffer<u32>,
    upload: PinnedBuffer<u8>,
    bins_host: PinnedBuffer<u32>,
}

impl Histogrammer {
    pub fn new(ctx: &Context, max_pixels: usize) -> Result<Self> {
        Ok(Self {
            stream: ctx.new_stream()?,
            kernel: ctx.load_cuda(HIST_SRC)?.function("histogram256")?,
            pixels: ctx.alloc::<u8>(max_pixels)?,
            bins: ctx.alloc_zeroed::<u32>(256)?,
            upload: ctx.alloc_pinned::<u8>(max_pixels)?,
            bins_host: ctx.alloc_pinned::<u32>(256)?,
        })
    }

    /// 256-bin histogram of a grey image that fills the whole buffer.
    pub fn compute(&mut self, image: &[u8]) -> Result<[u32; 256]> {
        assert_eq!(image.len(), self.pixels.len());
        self.upload.copy_from_slice(image);
        let n = image.len() as u32;
        unsafe { self.stream.copy_htod_async(&mut self.pixels, &self.upload)? };
        self.stream.memset_d32_async(&mut self.bins, 0)?;
        let cfg = LaunchConfig { grid: (120, 1, 1), block: (256, 1, 1), shared_mem_bytes: 0 };
        unsafe { self.stream.launch(&self.kernel, cfg, &[&self.pixels, &self.bins, &n])? };
        unsafe { self.stream.copy_dtoh_async(&mut self.bins_host, &self.bins)? };

        drain::wait_all([&self.stream])?;

        let mut out = [0u32; 256];
        out.copy_from_slice(&self.bins_host);
        Ok(out)
    }
}

pub fn otsu_threshold(ctx: &Context, image: &[u8]) -> Result<u8> {
    let mut h = Histogrammer::new(ctx, image.len())?;
    let bins = h.compute(image)?;
    let total: u64 = bins.iter().map(|&b| b as u64).sum();
    let sum_all: f64 = bins.iter().enumerate().map(|(i, &b)| i as f64 * b as f64).sum();
    let (mut w_b, mut sum_b, mut best, mut best_t) = (0u64, 0f64, 0f64, 0u8);
    for (t, &b) in bins.iter().enumerate() {
        w_b += b as u64;
        if w_b == 0 || w_b == total {
            continue;
        }
        sum_b += t as f64 * b as f64;
        let (wb, wf) = (w_b as f64, (total - w_b) as f64);
        let between = wb * wf * (sum_b / wb - (sum_all - sum_b) / wf).powi(2);
        if between > best {
            best = between;
            best_t = t as u8;
        }
    }
    Ok(best_t)
}
