//! case: robot occupancy raycaster copies hit distances into a pinned buffer and hands them to a summarizing closure defined before the launch but only called after `done.synchronize()` on an event recorded behind the copy
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Event, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const RAYCAST_SRC: &str = r#"
extern "C" __global__ void raycast(const unsigned char* occ, int nx, int ny, float res, float ox, float oy,
                                   float max_range, float* hits, int rays) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rays) return;
    float a = 6.2831853f * r / rays, dx = cosf(a), dy = sinf(a);
    float d = 0.0f;
    while (d < max_range) {
        int cx = (int)((ox + d * dx) / res), cy = (int)((oy + d * dy) / res);
        if (cx < 0 || cy < 0 || cx >= nx || cy >= ny || occ[cy * nx + cx] > 50) break;
        d += 0.5f * res;
    }
    hits[r] = d;
}
"#;

pub struct ScanSummary {
    pub nearest: f32,
    pub nearest_bearing: f32,
    pub free_fraction: f32,
}

pub struct Raycaster {
    stream: Stream,
    kernel: Kernel,
    done: Event,
    occupancy: DeviceBuffer<u8>,
    hits: DeviceBuffer<f32>,
    hits_host: PinnedBuffer<f32>,
    nx: i32,
    ny: i32,
    res: f32,
}

impl Raycaster {
    pub fn new(ctx: &Context, occupancy: DeviceBuffer<u8>, nx: i32, ny: i32, res: f32, rays: usize) -> Result<Self> {
        Ok(Self {
            stream: ctx.new_stream()?,
            kernel: ctx.load_cuda(RAYCAST_SRC)?.function("raycast")?,
            done: ctx.new_event()?,
            occupancy,
            hits: ctx.alloc(rays)?,
            hits_host: ctx.alloc_pinned(rays)?,
            nx,
            ny,
            res,
        })
    }

    pub fn scan(&mut self, pose: (f32, f32), max_range: f32) -> Result<ScanSummary> {
        let rays = self.hits.len();
        let summarize = |hits: &[f32]| {
            let (i, &nearest) = hits.iter().enumerate().min_by(|a, b| a.1.total_cmp(b.1)).unwrap_or((0, &max_range));
            ScanSummary {
                nearest,
                nearest_bearing: std::f32::consts::TAU * i as f32 / rays.max(1) as f32,
                free_fraction: hits.iter().filter(|&&h| h >= max_range).count() as f32 / rays.max(1) as f32,
            }
        };
        let r = rays as i32;
        unsafe {
            self.stream.launch(
                &self.kernel,
                LaunchConfig::for_num_elems(rays as u32),
                &[&self.occupancy, &self.nx, &self.ny, &self.res, &pose.0, &pose.1, &max_range, &self.hits, &r],
            )?;
            self.stream.copy_dtoh_async(&mut self.hits_host, &self.hits)?;
        }
        self.stream.record_event(&self.done)?;
        self.done.synchronize()?;
        Ok(summarize(&self.hits_host))
    }
}
