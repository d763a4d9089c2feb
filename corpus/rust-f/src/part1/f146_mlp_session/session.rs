use std::error::Error;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

use super::buffers::IoBuffers;

const MLP_SRC: &str = r#"
extern "C" __global__ void dense(const float* x, const float* w, const float* b, float* y,
                                 unsigned int in_dim, unsigned int out_dim, int relu)
{
    unsigned int o = blockIdx.x * blockDim.x + threadIdx.x;
    if (o >= out_dim) return;
    float acc = b[o];
    for (unsigned int k = 0; k < in_dim; ++k) acc += w[(size_t)o * in_dim + k] * x[k];
    y[o] = relu && acc < 0.0f ? 0.0f : acc;
}

extern "C" __global__ void init_weights(float* w, unsigned int n, float scale)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) w[i] = scale * (float)(((i * 2654435761u) >> 8) % 2001) / 1000.0f - scale;
}
"#;

pub struct Session {
    stream: Arc<CudaStream>,
    dense: CudaFunction,
    w1: CudaSlice<f32>,
    b1: CudaSlice<f32>,
    w2: CudaSlice<f32>,
    b2: CudaSlice<f32>,
    x: CudaSlice<f32>,
    hidden: CudaSlice<f32>,
    logits: CudaSlice<f32>,
    io: IoBuffers,
    dims: (u32, u32, u32),
}

impl Session {
    pub fn new(ctx: &Arc<CudaContext>, inputs: usize, hidden: usize, outputs: usize) -> Result<Self, Box<dyn Error>> {
        let stream = ctx.new_stream()?;
        let module = ctx.load_module(compile_ptx(MLP_SRC)?)?;
        let init = module.load_function("init_weights")?;
        let mut w1 = stream.alloc_zeros::<f32>(inputs * hidden)?;
        let mut w2 = stream.alloc_zeros::<f32>(hidden * outputs)?;
        for (w, scale) in [(&mut w1, 0.05f32), (&mut w2, 0.1f32)] {
            let n = w.len() as u32;
            unsafe { stream.launch_builder(&init).arg(w).arg(&n).arg(&scale).launch(LaunchConfig::for_num_elems(n))? };
        }
        Ok(Self {
            dense: module.load_function("dense")?,
            b1: stream.alloc_zeros::<f32>(hidden)?,
            b2: stream.alloc_zeros::<f32>(outputs)?,
            x: stream.alloc_zeros::<f32>(inputs)?,
            hidden: stream.alloc_zeros::<f32>(hidden)?,
            logits: stream.alloc_zeros::<f32>(outputs)?,
            io: IoBuffers::new(ctx, inputs, outputs)?,
            dims: (inputs as u32, hidden as u32, outputs as u32),
            w1,
            w2,
            stream,
        })
    }

    pub fn infer(&mut self, features: &[f32]) -> Result<Vec<f32>, Box<dyn Error>> {
        let (i, h, o) = self.dims;
        self.io.input.as_mut_slice()?.copy_from_slice(&features[..i as usize]);
        self.stream.memcpy_htod(&self.io.input, &mut self.x)?;
        let (relu, linear) = (1i32, 0i32);
        unsafe {
            self.stream
                .launch_builder(&self.dense)
                .arg(&self.x)
                .arg(&self.w1)
                .arg(&self.b1)
                .arg(&mut self.hidden)
                .arg(&i)
                .arg(&h)
                .arg(&relu)
                .launch(LaunchConfig::for_num_elems(h))?;
            self.stream
                .launch_builder(&self.dense)
                .arg(&self.hidden)
                .arg(&self.w2)
                .arg(&self.b2)
                .arg(&mut self.logits)
                .arg(&h)
                .arg(&o)
                .arg(&linear)
                .launch(LaunchConfig::for_num_elems(o))?;
        }
        self.stream.memcpy_dtoh(&self.logits, &mut self.io.output)?;
        self.stream.synchronize()?;
        Ok(self.io.output.as_slice()?.to_vec()) // EXPECT: write_combined_host_read
    }

    /// The hidden activations of the last request, for debugging.
    pub fn dump_hidden(&self) -> Result<Vec<f32>, Box<dyn Error>> {
        Ok(self.stream.clone_dtoh(&self.hidden)?) // EXPECT: pageable_async_copy
    }
}
