//! case: vision encoder input pipeline on one cudarc stream: decoded u8 images are normalised straight into a write-combined `alloc_pinned` staging buffer (only written by the host, never read) and uploaded with `memcpy_htod`; the stream is synchronized before the staging buffer is refilled for the next batch
//! expect: none

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const MEAN: [f32; 3] = [0.485, 0.456, 0.406];
const STD: [f32; 3] = [0.229, 0.224, 0.225];

const PATCH_SRC: &str = r#"
extern "C" __global__ void patch_embed(const float* pixels, const float* proj, float* tokens,
                                       unsigned n_patches, unsigned patch_dim, unsigned width) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_patches * width) return;
    unsigned p = i / width, c = i % width;
    float s = 0.0f;
    for (unsigned k = 0; k < patch_dim; ++k) s += pixels[(size_t)p * patch_dim + k] * proj[(size_t)k * width + c];
    tokens[i] = s;
}
"#;

pub struct VisionInput {
    stream: Arc<CudaStream>,
    staging: cudarc::driver::PinnedHostSlice<f32>,
    pixels: CudaSlice<f32>,
}

impl VisionInput {
    pub fn new(ctx: &Arc<CudaContext>, max_pixels: usize) -> Result<Self> {
        let stream = ctx.default_stream();
        Ok(VisionInput {
            staging: unsafe { ctx.alloc_pinned::<f32>(max_pixels * 3)? },
            pixels: stream.alloc_zeros::<f32>(max_pixels * 3)?,
            stream,
        })
    }

    /// Normalises an RGB u8 image into the staging buffer and uploads it.
    pub fn upload(&mut self, rgb: &[u8]) -> Result<()> {
        let dst = self.staging.as_mut_slice()?;
        dst.iter_mut()
            .zip(rgb)
            .enumerate()
            .for_each(|(i, (d, &px))| *d = (px as f32 / 255.0 - MEAN[i % 3]) / STD[i % 3]);
        self.stream.memcpy_htod(&self.staging, &mut self.pixels)?;
        Ok(())
    }
}

pub fn encode_batch(images: &[Vec<u8>], proj: &CudaSlice<f32>, patch_dim: u32, width: u32) -> Result<Vec<CudaSlice<f32>>> {
    let ctx = proj.context().clone();
    let max_pixels = images.iter().map(|im| im.len() / 3).max().unwrap_or(0);
    let mut input = VisionInput::new(&ctx, max_pixels)?;
    let f = ctx.load_module(compile_ptx(PATCH_SRC)?)?.load_function("patch_embed")?;

    let mut outputs = Vec::with_capacity(images.len());
    for img in images {
        input.upload(img)?;
        let n_patches = (img.len() as u32) / patch_dim;
        let mut tokens = input.stream.alloc_zeros::<f32>((n_patches * width) as usize)?;
        let mut b = input.stream.launch_builder(&f);
        b.arg(&input.pixels).arg(proj).arg(&mut tokens).arg(&n_patches).arg(&patch_dim).arg(&width);
        unsafe { b.launch(LaunchConfig::for_num_elems(n_patches * width))? };
        // the next upload rewrites the staging buffer: wait until this one has been read
        input.stream.synchronize()?;
        outputs.push(tokens);
    }
    Ok(outputs)
}
