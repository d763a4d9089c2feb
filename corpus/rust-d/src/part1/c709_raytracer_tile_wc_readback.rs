//! case: a progressive ray tracer reads each finished tile back into memory from cudarc's `alloc_pinned` (write-combined in cudarc 0.19) and computes the tile's mean luminance from it on the host, after synchronizing
//! expect: write_combined_host_read=1

use std::sync::{Arc, OnceLock};

use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DriverError, LaunchConfig,
    PinnedHostSlice, PushKernelArg,
};
use cudarc::nvrtc::{compile_ptx, Ptx};

pub const TILE: usize = 64;

const TRACE_CU: &str = r#"
struct Sphere { float x, y, z, r; float cr, cg, cb, pad; };
extern "C" __global__ void trace_tile(const Sphere* spheres, int n_spheres, int tile_x, int tile_y,
                                      int width, int height, unsigned int frame, float4* accum) {
    int lx = threadIdx.x, ly = blockIdx.x;
    int px = tile_x * 64 + lx, py = tile_y * 64 + ly;
    if (px >= width || py >= height) return;
    float u = (px + 0.5f) / width * 2.f - 1.f, v = (py + 0.5f) / height * 2.f - 1.f;
    float3 d = make_float3(u, v, 1.f);
    float best = 1e30f; float3 c = make_float3(0.1f, 0.1f, 0.2f);
    for (int s = 0; s < n_spheres; ++s) {
        Sphere sp = spheres[s];
        float b = d.x * sp.x + d.y * sp.y + d.z * sp.z;
        float cc = sp.x * sp.x + sp.y * sp.y + sp.z * sp.z - sp.r * sp.r;
        float disc = b * b - (d.x * d.x + d.y * d.y + d.z * d.z) * cc;
        if (disc > 0.f && b - sqrtf(disc) < best) { best = b - sqrtf(disc); c = make_float3(sp.cr, sp.cg, sp.cb); }
    }
    float4 a = accum[ly * 64 + lx];
    float w = 1.f / (frame + 1);
    accum[ly * 64 + lx] = make_float4(a.x + (c.x - a.x) * w, a.y + (c.y - a.y) * w, a.z + (c.z - a.z) * w, 1.f);
}
"#;

static TRACE_PTX: OnceLock<Ptx> = OnceLock::new();

fn trace_module(ctx: &Arc<CudaContext>) -> Result<Arc<CudaModule>, Box<dyn std::error::Error>> {
    let ptx = TRACE_PTX.get_or_init(|| compile_ptx(TRACE_CU).expect("trace_tile compiles")).clone();
    Ok(ctx.load_module(ptx)?)
}

pub struct TileStats {
    pub tile: (usize, usize),
    pub mean_luminance: f32,
}

pub struct TileRenderer {
    stream: Arc<CudaStream>,
    trace: CudaFunction,
    accum: CudaSlice<f32>,
    readback: PinnedHostSlice<f32>,
    width: i32,
    height: i32,
}

impl TileRenderer {
    pub fn new(ctx: &Arc<CudaContext>, width: i32, height: i32) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        let trace = trace_module(ctx)?.load_function("trace_tile")?;
        let accum = stream.alloc_zeros::<f32>(TILE * TILE * 4)?;
        let readback = unsafe { ctx.alloc_pinned::<f32>(TILE * TILE * 4)? };
        Ok(Self { stream, trace, accum, readback, width, height })
    }

    pub fn render(&mut self, spheres: &CudaSlice<f32>, tile: (usize, usize), frames: u32) -> Result<TileStats, DriverError> {
        let n_spheres = (spheres.len() / 8) as i32;
        let (tx, ty) = (tile.0 as i32, tile.1 as i32);
        self.stream.memset_zeros(&mut self.accum)?;
        let cfg = LaunchConfig { grid_dim: (TILE as u32, 1, 1), block_dim: (TILE as u32, 1, 1), shared_mem_bytes: 0 };
        for frame in 0..frames {
            unsafe {
                self.stream
                    .launch_builder(&self.trace)
                    .arg(spheres)
                    .arg(&n_spheres)
                    .arg(&tx)
                    .arg(&ty)
                    .arg(&self.width)
                    .arg(&self.height)
                    .arg(&frame)
                    .arg(&mut self.accum)
                    .launch(cfg)?;
            }
        }
        self.stream.memcpy_dtoh(&self.accum, &mut self.readback)?;
        self.stream.synchronize()?;
        let lum_sum: f32 = self.readback.as_slice()?.chunks_exact(4).map(|p| 0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2]).sum(); // EXPECT: write_combined_host_read
        Ok(TileStats { tile, mean_luminance: lum_sum / (TILE * TILE) as f32 })
    }
}
