//! case: out-of-core volume renderer streams voxel bricks to the GPU through cudarc's ctx.alloc_pinned staging (write-combined), which the host only writes; the rendered tile comes back into separate pinned memory allocated with flags 0 and is read after a synchronize (near-miss for write_combined_host_read)
//! expect: none

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const RAYMARCH_SRC: &str = r#"
extern "C" __global__ void accumulate_brick(const unsigned short* brick, float* tile, unsigned brick_dim, unsigned tile_px, float scale) {
    unsigned p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= tile_px) return;
    unsigned x = p % brick_dim, y = (p / brick_dim) % brick_dim;
    float a = 0.f;
    for (unsigned z = 0; z < brick_dim; ++z) a += brick[(z * brick_dim + y) * brick_dim + x] * scale;
    tile[p] += a;
}
"#;

pub trait BrickSource {
    fn brick_dim(&self) -> usize;
    fn num_bricks(&self) -> usize;
    /// Decompresses brick `i` into `out` (len = brick_dim^3).
    fn decode_into(&self, i: usize, out: &mut [u16]);
}

pub struct BrickStreamer {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    upload: PinnedHostSlice<u16>,
    tile_host: PinnedHostSlice<f32>,
    brick_dev: CudaSlice<u16>,
    tile_dev: CudaSlice<f32>,
}

impl BrickStreamer {
    pub fn new(ctx: &Arc<CudaContext>, brick_dim: usize, tile_px: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        let kernel = ctx.load_module(compile_ptx(RAYMARCH_SRC)?)?.load_function("accumulate_brick")?;
        let voxels = brick_dim.pow(3);
        Ok(Self {
            // Upload-only staging: write-combining makes the host writes and the DMA fast.
            upload: unsafe { ctx.alloc_pinned::<u16>(voxels)? },
            // Readback: cached pinned memory.
            tile_host: unsafe { ctx.alloc_pinned_with_flags::<f32>(tile_px, 0)? },
            brick_dev: stream.alloc_zeros::<u16>(voxels)?,
            tile_dev: stream.alloc_zeros::<f32>(tile_px)?,
            stream,
            kernel,
        })
    }

    pub fn render<S: BrickSource>(&mut self, src: &S, scale: f32) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
        let dim = src.brick_dim() as u32;
        let tile_px = self.tile_dev.len() as u32;
        self.stream.memset_zeros(&mut self.tile_dev)?;
        for i in 0..src.num_bricks() {
            // as_mut_slice waits for the previous brick's upload (event recorded by cudarc).
            src.decode_into(i, self.upload.as_mut_slice()?);
            self.stream.memcpy_htod(&self.upload, &mut self.brick_dev)?;
            unsafe {
                self.stream
                    .launch_builder(&self.kernel)
                    .arg(&self.brick_dev)
                    .arg(&mut self.tile_dev)
                    .arg(&dim)
                    .arg(&tile_px)
                    .arg(&scale)
                    .launch(LaunchConfig::for_num_elems(tile_px))?;
            }
        }
        self.stream.memcpy_dtoh(&self.tile_dev, &mut self.tile_host)?;
        self.stream.synchronize()?;
        Ok(self.tile_host.as_slice()?.to_vec())
    }
}
