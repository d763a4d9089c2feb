//! case: MRI gridding reconstruction with a compute stream and a copy stream (runtime layer); the image is copied back on the copy stream right after the inverse-gridding kernel on the compute stream, with an event recorded but never waited on by the copy stream
//! expect: missing_sync=1

use cuda_lint_runtime::{Context, DeviceBuffer, Event, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const GRID_SRC: &str = r#"
extern "C" __global__ void grid_kspace(const float2* samples, const float2* coords, float* image, unsigned n_samples, unsigned dim) {
    unsigned p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= dim * dim) return;
    float px = (float)(p % dim) - dim / 2.f, py = (float)(p / dim) - dim / 2.f;
    float re = 0.f, im = 0.f;
    for (unsigned s = 0; s < n_samples; ++s) {
        float ph = 6.2831853f * (coords[s].x * px + coords[s].y * py);
        float c, sn; __sincosf(ph, &sn, &c);
        re += samples[s].x * c - samples[s].y * sn;
        im += samples[s].x * sn + samples[s].y * c;
    }
    image[p] = sqrtf(re * re + im * im);
}
"#;

pub struct Recon {
    compute: Stream,
    copy: Stream,
    kernel_done: Event,
    gridder: Kernel,
    dim: usize,
}

pub struct KSpace {
    pub samples: PinnedBuffer<f32>,
    pub coords: PinnedBuffer<f32>,
}

impl Recon {
    pub fn new(ctx: &Context, dim: usize) -> Result<Self> {
        Ok(Self {
            compute: ctx.new_stream()?,
            copy: ctx.new_stream()?,
            kernel_done: ctx.new_event()?,
            gridder: ctx.load_cuda(GRID_SRC)?.function("grid_kspace")?,
            dim,
        })
    }

    fn upload(&self, ctx: &Context, k: &KSpace) -> Result<(DeviceBuffer<f32>, DeviceBuffer<f32>)> {
        let mut d_s = ctx.alloc::<f32>(k.samples.len())?;
        let mut d_c = ctx.alloc::<f32>(k.coords.len())?;
        unsafe {
            self.compute.copy_htod_async(&mut d_s, &k.samples)?;
            self.compute.copy_htod_async(&mut d_c, &k.coords)?;
        }
        Ok((d_s, d_c))
    }

    pub fn reconstruct(&self, ctx: &Context, k: &KSpace) -> Result<PinnedBuffer<f32>> {
        let (d_s, d_c) = self.upload(ctx, k)?;
        let mut image = ctx.alloc::<f32>(self.dim * self.dim)?;
        let (ns, dim) = ((k.samples.len() / 2) as u32, self.dim as u32);
        unsafe { self.compute.launch(&self.gridder, LaunchConfig::for_num_elems(dim * dim), &[&d_s, &d_c, &image, &ns, &dim])? };
        self.compute.record_event(&self.kernel_done)?;

        let mut host: PinnedBuffer<f32> = ctx.alloc_pinned(self.dim * self.dim)?;
        unsafe { self.copy.copy_dtoh_async(&mut host, &image)? }; // EXPECT: missing_sync
        self.copy.synchronize()?;
        // Keep the inputs alive until the kernel is surely done.
        self.compute.synchronize()?;
        drop((d_s, d_c));
        let _ = &mut image;
        Ok(host)
    }
}
