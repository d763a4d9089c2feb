//! case: a cloth solver (runtime layer) keeps vertex positions in a ManagedBuffer and, for its collision pass on the CPU, builds a host slice from the buffer's raw device pointer after synchronizing the context; managed memory is host-accessible and no kernel runs then
//! expect: none

use cuda_lint_runtime::{Context, Kernel, LaunchConfig, ManagedBuffer, Result, Stream};

pub const CLOTH_CU: &str = r#"
extern "C" __global__ void verlet(float* pos, float* prev, int n_floats, float gy, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_floats) return;
    float p = pos[i];
    float a = (i % 3 == 1) ? gy : 0.f;
    pos[i] = 2.f * p - prev[i] + a * dt * dt;
    prev[i] = p;
}
"#;

pub struct Cloth {
    ctx: Context,
    stream: Stream,
    verlet: Kernel,
    pos: ManagedBuffer<f32>,
    prev: ManagedBuffer<f32>,
}

fn push_out_of_sphere(v: &mut [f32], center: [f32; 3], radius: f32) -> bool {
    let d = [v[0] - center[0], v[1] - center[1], v[2] - center[2]];
    let len = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
    if len >= radius || len == 0.0 {
        return false;
    }
    let s = radius / len;
    v.iter_mut().zip(center).zip(d).for_each(|((x, c), dx)| *x = c + dx * s);
    true
}

impl Cloth {
    pub fn new(ctx: &Context, vertices: usize) -> Result<Self> {
        let module = ctx.load_cuda(CLOTH_CU)?;
        Ok(Self {
            ctx: ctx.clone(),
            stream: ctx.new_stream()?,
            verlet: module.function("verlet")?,
            pos: ctx.alloc_managed::<f32>(vertices * 3)?,
            prev: ctx.alloc_managed::<f32>(vertices * 3)?,
        })
    }

    /// One step: integrate on the GPU, then resolve collisions with a sphere on the CPU.
    pub fn step(&mut self, dt: f32, sphere: ([f32; 3], f32)) -> Result<usize> {
        let n = self.pos.num_elems() as i32;
        let gy = -9.81f32;
        unsafe {
            self.stream.launch(&self.verlet, LaunchConfig::for_num_elems(n as u32), &[&mut self.pos, &mut self.prev, &n, &gy, &dt])?;
        }
        self.ctx.synchronize()?;
        // Managed memory: the device pointer is also the host address.
        let raw = self.pos.device_ptr().as_raw() as *mut f32;
        let verts = unsafe { std::slice::from_raw_parts_mut(raw, n as usize) };
        Ok(verts.chunks_exact_mut(3).filter_map(|v| push_out_of_sphere(v, sphere.0, sphere.1).then_some(())).count())
    }
}
