//! case: 2-D fluid pressure solve where the pressure field is one PhysicalAllocation mapped at two VirtualRanges (runtime layer); the Jacobi kernel writes through view A on the solver stream and the gradient-subtraction kernel reads through view B on the projection stream, with no event ordering the two
//! expect: unfenced_vmm_alias=1

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, Mapping, PhysicalAllocation, Result, Stream, VirtualRange};

const FLUID_SRC: &str = r#"
extern "C" __global__ void jacobi(float* p_out, const float* div, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x <= 0 || y <= 0 || x >= w - 1 || y >= h - 1) return;
    p_out[y * w + x] = -0.25f * div[y * w + x];
}
extern "C" __global__ void subtract_gradient(const float* p, float* u, float* v, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x <= 0 || y <= 0 || x >= w - 1 || y >= h - 1) return;
    int i = y * w + x;
    u[i] -= 0.5f * (p[i + 1] - p[i - 1]);
    v[i] -= 0.5f * (p[i + w] - p[i - w]);
}
"#;

struct PressureField {
    _phys: PhysicalAllocation,
    solver_view: Mapping,
    projection_view: Mapping,
}

impl PressureField {
    fn new(ctx: &Context, cells: usize) -> Result<Self> {
        let gran = ctx.vmm_granularity()?;
        let size = (cells * 4).div_ceil(gran) * gran;
        let phys = PhysicalAllocation::new(ctx, size)?;
        let solver_view = VirtualRange::reserve(ctx, size)?.map(&phys, 0)?;
        let projection_view = VirtualRange::reserve(ctx, size)?.map(&phys, 0)?;
        Ok(Self { _phys: phys, solver_view, projection_view })
    }
}

pub struct Projection {
    w: usize,
    h: usize,
    solver: Stream,
    projection: Stream,
    jacobi: Kernel,
    subtract: Kernel,
    pressure: PressureField,
}

impl Projection {
    pub fn new(ctx: &Context, w: usize, h: usize) -> Result<Self> {
        let module = ctx.load_cuda(FLUID_SRC)?;
        Ok(Self {
            w,
            h,
            solver: ctx.new_stream()?,
            projection: ctx.new_stream()?,
            jacobi: module.function("jacobi")?,
            subtract: module.function("subtract_gradient")?,
            pressure: PressureField::new(ctx, w * h)?,
        })
    }

    /// Makes (u, v) divergence-free given the divergence field.
    pub fn project(&self, div: &DeviceBuffer<f32>, u: &mut DeviceBuffer<f32>, v: &mut DeviceBuffer<f32>) -> Result<()> {
        let (w, h) = (self.w as i32, self.h as i32);
        let cfg = LaunchConfig { grid: ((w as u32).div_ceil(128), h as u32, 1), block: (128, 1, 1), shared_mem_bytes: 0 };
        unsafe { self.solver.launch(&self.jacobi, cfg, &[&self.pressure.solver_view, div, &w, &h])? };
        unsafe { self.projection.launch(&self.subtract, cfg, &[&self.pressure.projection_view, &*u, &*v, &w, &h])? }; // EXPECT: unfenced_vmm_alias
        self.projection.synchronize()?;
        self.solver.synchronize()
    }
}
