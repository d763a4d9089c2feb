//! case: a pipeline of boxed stages on one stream; the writer stage uses one mapping of a VMM allocation and the reducer the other, each kernel touching a single alias
//! expect: none
use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, Mapping, PhysicalAllocation, Result, Stream, VirtualRange};

const SRC: &str = r#"
extern "C" __global__ void rasterize(float* grid, unsigned n, float t) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) grid[i] = __sinf(t + 0.001f * (float)i);
}
extern "C" __global__ void reduce_rows(const float* grid, float* rows, unsigned width, unsigned height) {
    unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= height) return;
    float s = 0.0f;
    for (unsigned c = 0; c < width; ++c) s += grid[r * width + c];
    rows[r] = s;
}
"#;

pub struct Frame {
    write_view: Mapping,
    read_view: Mapping,
    rows: DeviceBuffer<f32>,
    width: u32,
    height: u32,
}

pub trait Stage {
    fn name(&self) -> &'static str;
    fn enqueue(&self, stream: &Stream, frame: &mut Frame, t: f32) -> Result<()>;
}

struct Rasterize(Kernel);
struct ReduceRows(Kernel);

impl Stage for Rasterize {
    fn name(&self) -> &'static str {
        "rasterize"
    }
    fn enqueue(&self, stream: &Stream, frame: &mut Frame, t: f32) -> Result<()> {
        let n = frame.width * frame.height;
        unsafe { stream.launch(&self.0, LaunchConfig::for_num_elems(n), &[&frame.write_view, &n, &t]) }
    }
}

impl Stage for ReduceRows {
    fn name(&self) -> &'static str {
        "reduce_rows"
    }
    fn enqueue(&self, stream: &Stream, frame: &mut Frame, _t: f32) -> Result<()> {
        let cfg = LaunchConfig::for_num_elems(frame.height);
        unsafe { stream.launch(&self.0, cfg, &[&frame.read_view, &frame.rows, &frame.width, &frame.height]) }
    }
}

pub fn render(ctx: &Context, frames: usize) -> Result<Vec<&'static str>> {
    let module = ctx.load_cuda(SRC)?;
    let stages: Vec<Box<dyn Stage>> = vec![
        Box::new(Rasterize(module.function("rasterize")?)),
        Box::new(ReduceRows(module.function("reduce_rows")?)),
    ];
    let (width, height) = (1024u32, 512u32);
    let gran = ctx.vmm_granularity()?;
    let bytes = ((width * height * 4) as usize).div_ceil(gran) * gran;
    let physical = PhysicalAllocation::new(ctx, bytes)?;
    let mut frame = Frame {
        write_view: VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?,
        read_view: VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?,
        rows: ctx.alloc_zeroed(height as usize)?,
        width,
        height,
    };
    let stream = ctx.new_stream()?;
    for f in 0..frames {
        // one stream: reduce_rows starts after rasterize has completed
        for stage in &stages {
            stage.enqueue(&stream, &mut frame, f as f32 * 0.016)?;
        }
    }
    stream.synchronize()?;
    Ok(stages.iter().map(|s| s.name()).collect())
}
