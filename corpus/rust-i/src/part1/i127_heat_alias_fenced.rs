//! case: thermal-soak model of a battery slab viewed through two VirtualRanges of one PhysicalAllocation (runtime layer); the single NVRTC kernel writes through one view, executes `fence.proxy.alias`, then reads the updated centre value through the other (near-miss: the aliases are fenced)
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, Mapping, PhysicalAllocation, PinnedBuffer, Result, Stream, VirtualRange};

const HEAT_SRC: &str = r#"
/* Newton cooling towards the boundary temperature, one cell per thread. `t_write` and `t_read`
   are two virtual views of the same plate. */
extern "C" __global__ void soak_step(float* t_write, const float* t_read, float* probe, int w, int h, float alpha) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= w || y >= h) return;
    int i = y * w + x;
    float ambient = (x == 0 || y == 0 || x == w - 1 || y == h - 1) ? 0.f : 20.f;
    t_write[i] = t_read[i] + alpha * (ambient - t_read[i]);
    asm volatile("fence.proxy.alias;" ::: "memory");  /* the write above went through the other view */
    if (x == w / 2 && y == h / 2) probe[0] = t_read[i];   /* the updated centre temperature */
}
"#;

pub struct SoakSlab {
    w: usize,
    h: usize,
    stream: Stream,
    step: Kernel,
    _physical: PhysicalAllocation,
    write_view: Mapping,
    read_view: Mapping,
    probe: DeviceBuffer<f32>,
}

impl SoakSlab {
    pub fn new(ctx: &Context, w: usize, h: usize) -> Result<Self> {
        let gran = ctx.vmm_granularity()?;
        let size = (w * h * 4).div_ceil(gran) * gran;
        let physical = PhysicalAllocation::new(ctx, size)?;
        let write_view = VirtualRange::reserve(ctx, size)?.map(&physical, 0)?;
        let read_view = VirtualRange::reserve(ctx, size)?.map(&physical, 0)?;
        assert!(write_view.aliases(&read_view));
        let stream = ctx.new_stream()?;
        let mut write_view = write_view;
        stream.memset_d32_async(&mut write_view, 0)?;
        Ok(Self {
            w,
            h,
            step: ctx.load_cuda(HEAT_SRC)?.function("soak_step")?,
            _physical: physical,
            write_view,
            read_view,
            probe: ctx.alloc_zeroed(1)?,
            stream,
        })
    }

    /// Soaks for `steps` steps; returns the centre temperature after each.
    pub fn run(&mut self, ctx: &Context, steps: usize, alpha: f32) -> Result<Vec<f32>> {
        let (w, h) = (self.w as i32, self.h as i32);
        let cfg = LaunchConfig { grid: ((w as u32).div_ceil(128), h as u32, 1), block: (128, 1, 1), shared_mem_bytes: 0 };
        let mut probe_host: PinnedBuffer<f32> = ctx.alloc_pinned(1)?;
        let mut trace = Vec::with_capacity(steps);
        for _ in 0..steps {
            unsafe { self.stream.launch(&self.step, cfg, &[&self.write_view, &self.read_view, &self.probe, &w, &h, &alpha])? };
            unsafe { self.stream.copy_dtoh_async(&mut probe_host, &self.probe)? };
            self.stream.synchronize()?;
            trace.push(probe_host[0]);
        }
        Ok(trace)
    }
}
