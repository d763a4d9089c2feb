use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::sync::Arc;

const MLP_SRC: &str = r#"
extern "C" __global__ void logistic(const float* x, const float* w, float bias, unsigned dim,
                                    unsigned rows, float* out) {
    unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float z = bias;
    for (unsigned d = 0; d < dim; ++d) z += x[r * dim + d] * w[d];
    out[r] = 1.0f / (1.0f + expf(-z));
}
"#;

pub struct Mlp {
    pub dim: usize,
    func: CudaFunction,
    weights: CudaSlice<f32>,
    bias: f32,
}

impl Mlp {
    pub fn load(ctx: &Arc<CudaContext>, stream: &Arc<CudaStream>, dim: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let func = ctx.load_module(compile_ptx(MLP_SRC)?)?.load_function("logistic")?;
        // Weights start at zero; the trainer pushes real ones through the admin API.
        let weights = stream.alloc_zeros::<f32>(dim)?;
        Ok(Mlp { dim, func, weights, bias: 0.0 })
    }

    pub fn forward(&self, stream: &Arc<CudaStream>, x: &CudaSlice<f32>, out: &mut CudaSlice<f32>, rows: usize) -> Result<(), Box<dyn std::error::Error>> {
        let dim = self.dim as u32;
        let rows = rows as u32;
        unsafe {
            stream
                .launch_builder(&self.func)
                .arg(x)
                .arg(&self.weights)
                .arg(&self.bias)
                .arg(&dim)
                .arg(&rows)
                .arg(out)
                .launch(LaunchConfig::for_num_elems(rows))?;
        }
        Ok(())
    }
}
