//! case: ocean height-field simulation with the wave field as one PhysicalAllocation mapped twice (runtime layer): the spectrum kernel writes through the simulation view on one stream, an event is recorded, and the shading stream waits on it before its kernel reads through the render view, and the next frame's spectrum kernel waits on an event recorded after the shading (near-miss for unfenced_vmm_alias: ordered by an event)
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Event, Kernel, LaunchConfig, Mapping, PhysicalAllocation, Result, Stream, VirtualRange};

const OCEAN_SRC: &str = r#"
extern "C" __global__ void evolve_heights(float* h, const float* h0, float t, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float k = 0.01f * (i % 512);
    h[i] = h0[i] * __cosf(sqrtf(9.81f * k) * t);
}
extern "C" __global__ void shade_normals(const float* h, float* shade, unsigned w, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i + w + 1 >= n) return;
    float dx = h[i + 1] - h[i], dz = h[i + w] - h[i];
    shade[i] = rsqrtf(dx * dx + dz * dz + 1.f);
}
"#;

pub struct Ocean {
    sim: Stream,
    render: Stream,
    heights_ready: Event,
    shading_done: Event,
    evolve: Kernel,
    shade: Kernel,
    _phys: PhysicalAllocation,
    sim_view: Mapping,
    render_view: Mapping,
    h0: DeviceBuffer<f32>,
    shade_buf: DeviceBuffer<f32>,
    width: u32,
    n: u32,
}

impl Ocean {
    pub fn new(ctx: &Context, width: u32, h0: DeviceBuffer<f32>) -> Result<Self> {
        let n = h0.len() as u32;
        let gran = ctx.vmm_granularity()?;
        let size = (n as usize * 4).div_ceil(gran) * gran;
        let phys = PhysicalAllocation::new(ctx, size)?;
        let module = ctx.load_cuda(OCEAN_SRC)?;
        Ok(Self {
            sim: ctx.new_stream()?,
            render: ctx.new_stream()?,
            heights_ready: ctx.new_event()?,
            shading_done: ctx.new_event()?,
            evolve: module.function("evolve_heights")?,
            shade: module.function("shade_normals")?,
            sim_view: VirtualRange::reserve(ctx, size)?.map(&phys, 0)?,
            render_view: VirtualRange::reserve(ctx, size)?.map(&phys, 0)?,
            _phys: phys,
            shade_buf: ctx.alloc_zeroed(n as usize)?,
            h0,
            width,
            n,
        })
    }

    pub fn frame(&self, t: f32) -> Result<()> {
        let cfg = LaunchConfig::for_num_elems(self.n);
        // The previous frame's shading must be done reading before the heights are rewritten
        // (waiting on a never-recorded event is a no-op for the first frame).
        self.sim.wait_event(&self.shading_done)?;
        unsafe { self.sim.launch(&self.evolve, cfg, &[&self.sim_view, &self.h0, &t, &self.n])? };
        self.sim.record_event(&self.heights_ready)?;
        self.render.wait_event(&self.heights_ready)?;
        unsafe { self.render.launch(&self.shade, cfg, &[&self.render_view, &self.shade_buf, &self.width, &self.n])? };
        self.render.record_event(&self.shading_done)?;
        Ok(())
    }

    pub fn finish(&self) -> Result<()> {
        self.render.synchronize()?;
        self.sim.synchronize()
    }
}
