//! case: a metrics reducer with an upload stream and a compute stream (cudarc in multi-stream mode, event tracking on) reads its pinned partial sums through `as_slice` without an explicit synchronize: cudarc recorded the copy on the buffer's event and `as_slice` waits for it
//! expect: none

use std::error::Error;
use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice,
    PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

const BLOCK: u32 = 256;

const REDUCE_SRC: &str = r#"
extern "C" __global__ void block_sums(const float* x, float* partial, unsigned n) {
    __shared__ float acc[256];
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    acc[threadIdx.x] = i < n ? x[i] * x[i] : 0.0f;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) acc[threadIdx.x] += acc[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = acc[0];
}
"#;

pub struct Reducer {
    upload: Arc<CudaStream>,
    compute: Arc<CudaStream>,
    kernel: CudaFunction,
    input: CudaSlice<f32>,
    partial: CudaSlice<f32>,
    staging: PinnedHostSlice<f32>,
    partial_host: PinnedHostSlice<f32>,
    capacity: usize,
}

impl Reducer {
    pub fn new(ctx: &Arc<CudaContext>, capacity: usize) -> Result<Self, Box<dyn Error>> {
        // Two streams of our own: the context is in multi-stream mode from here on.
        let upload = ctx.new_stream()?;
        let compute = ctx.new_stream()?;
        let kernel = ctx.load_module(compile_ptx(REDUCE_SRC)?)?.load_function("block_sums")?;
        let blocks = (capacity as u32).div_ceil(BLOCK) as usize;
        let input = compute.alloc_zeros::<f32>(capacity)?;
        let partial = compute.alloc_zeros::<f32>(blocks)?;
        let staging = unsafe { ctx.alloc_pinned_with_flags::<f32>(capacity, 0)? };
        let partial_host = unsafe { ctx.alloc_pinned_with_flags::<f32>(blocks, 0)? };
        Ok(Self { upload, compute, kernel, input, partial, staging, partial_host, capacity })
    }

    /// Root of the sum of squares of `values`.
    pub fn l2_norm(&mut self, values: &[f32]) -> Result<f32, DriverError> {
        assert!(values.len() <= self.capacity);
        let n = values.len() as u32;
        let blocks = n.div_ceil(BLOCK);

        // as_mut_slice waits for the previous upload that read the staging buffer.
        let staging = self.staging.as_mut_slice()?;
        staging[..values.len()].copy_from_slice(values);
        staging[values.len()..].fill(0.0);
        self.upload.memcpy_htod(&self.staging, &mut self.input)?;

        let cfg = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 };
        // The launch makes `compute` wait for the upload's write event on `input`.
        unsafe {
            self.compute
                .launch_builder(&self.kernel)
                .arg(&self.input)
                .arg(&mut self.partial)
                .arg(&n)
                .launch(cfg)?;
        }
        self.compute.memcpy_dtoh(&self.partial, &mut self.partial_host)?;

        // The copy recorded the pinned buffer's event on `compute`; as_slice synchronizes it.
        let partial = self.partial_host.as_slice()?;
        let sum: f64 = partial[..blocks as usize].iter().map(|&p| p as f64).sum();
        Ok(sum.sqrt() as f32)
    }
}

pub fn run() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let mut reducer = Reducer::new(&ctx, 1 << 20)?;
    let grads: Vec<f32> = (0..(1 << 20)).map(|i| ((i % 13) as f32 - 6.0) * 1e-3).collect();
    for chunk in grads.chunks(1 << 18) {
        let norm = reducer.l2_norm(chunk)?;
        println!("chunk norm {norm:.6}");
    }
    Ok(())
}
