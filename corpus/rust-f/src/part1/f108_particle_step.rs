//! case: a particle step uploads a 64-byte coefficient array and a 16-byte parameter struct from the stack, and reads back a single counter into a one-element array: all pageable, all asynchronous, all far below the size where pinning matters; the counter is read after a D2H copy to pageable memory, which returns only once done
//! expect: none

use std::error::Error;
use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::sys;
use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtrMut, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const STEP_SRC: &str = r#"
struct StepParams { float dt; float drag; unsigned int n; unsigned int seed; };

extern "C" __global__ void seed_particles(float* pos, float* vel, const StepParams* p)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p->n) return;
    unsigned int h = (i + 1) * 2654435761u ^ p->seed;
    pos[i] = (h & 0xffff) / 65535.0f;
    vel[i] = ((h >> 16) & 0xffff) / 65535.0f - 0.5f;
}

extern "C" __global__ void step(float* pos, float* vel, const float* coeffs, const StepParams* p, unsigned int* escaped)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p->n) return;
    float force = 0.0f, x = pos[i];
    for (int k = 15; k >= 0; --k) force = force * x + coeffs[k];
    vel[i] = (vel[i] + force * p->dt) * (1.0f - p->drag);
    pos[i] = x + vel[i] * p->dt;
    if (pos[i] < 0.0f || pos[i] > 1.0f) atomicAdd(escaped, 1u);
}
"#;

#[repr(C)]
#[derive(Clone, Copy)]
struct StepParams {
    dt: f32,
    drag: f32,
    n: u32,
    seed: u32,
}

pub struct ParticleSim {
    stream: Arc<CudaStream>,
    seed: CudaFunction,
    step: CudaFunction,
    pos: CudaSlice<f32>,
    vel: CudaSlice<f32>,
    coeffs: CudaSlice<f32>,
    params: CudaSlice<u8>,
    escaped: CudaSlice<u32>,
    n: u32,
}

impl ParticleSim {
    pub fn new(n: u32) -> Result<Self, Box<dyn Error>> {
        let ctx = CudaContext::new(0)?;
        let stream = ctx.new_stream()?;
        let module = ctx.load_module(compile_ptx(STEP_SRC)?)?;
        Ok(Self {
            seed: module.load_function("seed_particles")?,
            step: module.load_function("step")?,
            pos: stream.alloc_zeros::<f32>(n as usize)?,
            vel: stream.alloc_zeros::<f32>(n as usize)?,
            coeffs: stream.alloc_zeros::<f32>(16)?,
            params: stream.alloc_zeros::<u8>(std::mem::size_of::<StepParams>())?,
            escaped: stream.alloc_zeros::<u32>(1)?,
            stream,
            n,
        })
    }

    fn upload_params(&mut self, p: StepParams) -> Result<(), Box<dyn Error>> {
        let (dst, _record) = self.params.device_ptr_mut(&self.stream);
        unsafe {
            sys::cuMemcpyHtoDAsync_v2(
                dst,
                (&p as *const StepParams).cast::<c_void>(),
                std::mem::size_of::<StepParams>(),
                self.stream.cu_stream(),
            )
            .result()?;
        }
        Ok(())
    }

    pub fn run_steps(&mut self, steps: usize, seed: u32) -> Result<u32, Box<dyn Error>> {
        let coeffs: [f32; 16] = std::array::from_fn(|k| if k % 2 == 0 { -0.1 / (k + 1) as f32 } else { 0.0 });
        self.stream.memcpy_htod(&coeffs, &mut self.coeffs)?;
        self.upload_params(StepParams { dt: 1e-3, drag: 0.01, n: self.n, seed })?;
        self.stream.memset_zeros(&mut self.escaped)?;

        let cfg = LaunchConfig::for_num_elems(self.n);
        unsafe {
            self.stream.launch_builder(&self.seed).arg(&mut self.pos).arg(&mut self.vel).arg(&self.params).launch(cfg)?;
        }
        for _ in 0..steps {
            unsafe {
                self.stream
                    .launch_builder(&self.step)
                    .arg(&mut self.pos)
                    .arg(&mut self.vel)
                    .arg(&self.coeffs)
                    .arg(&self.params)
                    .arg(&mut self.escaped)
                    .launch(cfg)?;
            }
        }
        let mut escaped = [0u32; 1];
        self.stream.memcpy_dtoh(&self.escaped, &mut escaped)?;
        Ok(escaped[0])
    }
}

pub fn run() -> Result<(), Box<dyn Error>> {
    let mut sim = ParticleSim::new(1 << 20)?;
    let escaped = sim.run_steps(100, 0x5eed)?;
    println!("{escaped} particle crossings in 100 steps");
    Ok(())
}
