//! case: near miss of r317: the same overlapped data-parallel step, but an event recorded after the `g2` kernel is synchronized before its `MPI_Iallreduce` starts; the hidden layer's backward then runs on other buffers while the reduction is in flight, and `sgd` reads the gradients only after `MPI_Waitall`.
//! expect: none

use std::error::Error;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtrMut, DriverError, LaunchConfig,
    PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

use crate::ffi::{self, MPI_Comm, MPI_Request};

const MLP: &str = r#"
extern "C" __global__ void init_uniform(float* x, unsigned seed, float scale, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { unsigned h = (i + 7) * 2654435761u ^ seed; h ^= h >> 15; x[i] = scale * ((h & 0xffff) / 65536.0f - 0.5f); }
}
// g[r][c] = (1 / (batch * world)) * sum_b a[b][r] * d[b][c]
extern "C" __global__ void grad_outer(const float* a, const float* d, float* g, int batch, int rows, int cols, float inv) {
    int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y;
    if (r < rows && c < cols) {
        float s = 0.f;
        for (int b = 0; b < batch; ++b) s += a[b * rows + r] * d[b * cols + c];
        g[r * cols + c] = s * inv;
    }
}
// delta_h[b][j] = (sum_k delta_o[b][k] * w2[j][k]) * relu'(h[b][j])
extern "C" __global__ void backprop_hidden(const float* delta_o, const float* w2, const float* h, float* delta_h, int batch, int hidden, int out) {
    int j = blockIdx.x * blockDim.x + threadIdx.x, b = blockIdx.y;
    if (b < batch && j < hidden) {
        float s = 0.f;
        for (int k = 0; k < out; ++k) s += delta_o[b * out + k] * w2[j * out + k];
        delta_h[b * hidden + j] = h[b * hidden + j] > 0.f ? s : 0.f;
    }
}
extern "C" __global__ void sgd(float* w, const float* g, float lr, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) w[i] -= lr * g[i];
}
"#;

pub struct DataParallelStep {
    stream: Arc<CudaStream>,
    comm: MPI_Comm,
    world: c_int,
    dims: (usize, usize, usize, usize), // batch, inputs, hidden, outputs
    x: CudaSlice<f32>,
    h: CudaSlice<f32>,
    delta_o: CudaSlice<f32>,
    delta_h: CudaSlice<f32>,
    w1: CudaSlice<f32>,
    w2: CudaSlice<f32>,
    g1: CudaSlice<f32>,
    g2: CudaSlice<f32>,
    reqs: Vec<MPI_Request>,
    grad: CudaFunction,
    backprop: CudaFunction,
    sgd: CudaFunction,
}

impl DataParallelStep {
    pub fn new(ctx: &Arc<CudaContext>, comm: MPI_Comm, batch: usize, inputs: usize, hidden: usize, outputs: usize) -> Result<Self, Box<dyn Error>> {
        let (rank, world) = ffi::rank_and_size(comm)?;
        let stream = ctx.new_stream()?;
        let module = ctx.load_module(compile_ptx(MLP)?)?;
        let init = module.load_function("init_uniform")?;
        let seed = (rank as u32) << 8;
        // A synthetic batch and its forward-pass state, and this replica's weights.
        let x = random_buffer(&stream, &init, batch * inputs, seed)?;
        let h = random_buffer(&stream, &init, batch * hidden, seed + 1)?;
        let delta_o = random_buffer(&stream, &init, batch * outputs, seed + 2)?;
        let w1 = random_buffer(&stream, &init, inputs * hidden, 1)?;
        let w2 = random_buffer(&stream, &init, hidden * outputs, 2)?;
        let delta_h = stream.alloc_zeros::<f32>(batch * hidden)?;
        let g1 = stream.alloc_zeros::<f32>(inputs * hidden)?;
        let g2 = stream.alloc_zeros::<f32>(hidden * outputs)?;
        stream.synchronize()?;
        Ok(Self {
            grad: module.load_function("grad_outer")?,
            backprop: module.load_function("backprop_hidden")?,
            sgd: module.load_function("sgd")?,
            stream,
            comm,
            world,
            dims: (batch, inputs, hidden, outputs),
            x, h, delta_o, delta_h, w1, w2, g1, g2,
            reqs: Vec::with_capacity(2),
        })
    }

    pub fn step(&mut self, lr: f32) -> Result<(), Box<dyn Error>> {
        let (batch, inputs, hidden, outputs) = self.dims;
        let (b_i, i_i, h_i, o_i) = (batch as c_int, inputs as c_int, hidden as c_int, outputs as c_int);
        let inv = 1.0f32 / (batch as f32 * self.world as f32);
        let grid = |cols: usize, rows: usize| LaunchConfig { grid_dim: ((cols as u32).div_ceil(128), rows as u32, 1), block_dim: (128, 1, 1), shared_mem_bytes: 0 };

        // Output layer: g2 = h^T delta_o.
        let mut b = self.stream.launch_builder(&self.grad);
        b.arg(&self.h).arg(&self.delta_o).arg(&mut self.g2).arg(&b_i).arg(&h_i).arg(&o_i).arg(&inv);
        unsafe { b.launch(grid(outputs, hidden)) }?;
        let g2_done = self.stream.record_event(None)?;

        // Reduce bucket 2 while the hidden layer's backward runs, once its kernel has finished.
        g2_done.synchronize()?;
        let g2 = self.g2.device_ptr_mut(&self.stream).0 as *mut c_void;
        let mut bucket2 = ffi::request_null();
        unsafe { ffi::MPI_Iallreduce(ffi::MPI_IN_PLACE, g2, (hidden * outputs) as c_int, ffi::dt_float(), ffi::op_sum(), self.comm, &mut bucket2) };
        self.reqs.push(bucket2);

        let mut b = self.stream.launch_builder(&self.backprop);
        b.arg(&self.delta_o).arg(&self.w2).arg(&self.h).arg(&mut self.delta_h).arg(&b_i).arg(&h_i).arg(&o_i);
        unsafe { b.launch(grid(hidden, batch)) }?;
        let mut b = self.stream.launch_builder(&self.grad);
        b.arg(&self.x).arg(&self.delta_h).arg(&mut self.g1).arg(&b_i).arg(&i_i).arg(&h_i).arg(&inv);
        unsafe { b.launch(grid(hidden, inputs)) }?;
        self.stream.synchronize()?; // g1 is complete

        let g1 = self.g1.device_ptr_mut(&self.stream).0 as *mut c_void;
        let mut bucket1 = ffi::request_null();
        unsafe { ffi::MPI_Iallreduce(ffi::MPI_IN_PLACE, g1, (inputs * hidden) as c_int, ffi::dt_float(), ffi::op_sum(), self.comm, &mut bucket1) };
        self.reqs.push(bucket1);

        let rc = unsafe { ffi::MPI_Waitall(self.reqs.len() as c_int, self.reqs.as_mut_ptr(), ffi::MPI_STATUSES_IGNORE) };
        self.reqs.clear();
        ffi::check("MPI_Waitall", rc)?;

        let (n1, n2) = ((inputs * hidden) as c_int, (hidden * outputs) as c_int);
        let mut b = self.stream.launch_builder(&self.sgd);
        b.arg(&mut self.w1).arg(&self.g1).arg(&lr).arg(&n1);
        unsafe { b.launch(LaunchConfig::for_num_elems(n1 as u32)) }?;
        let mut b = self.stream.launch_builder(&self.sgd);
        b.arg(&mut self.w2).arg(&self.g2).arg(&lr).arg(&n2);
        unsafe { b.launch(LaunchConfig::for_num_elems(n2 as u32)) }?;
        Ok(())
    }
}

fn random_buffer(stream: &Arc<CudaStream>, init: &CudaFunction, len: usize, seed: u32) -> Result<CudaSlice<f32>, DriverError> {
    let mut buf = stream.alloc_zeros::<f32>(len)?;
    let n = len as c_int;
    unsafe { stream.launch_builder(init).arg(&mut buf).arg(&seed).arg(&0.1f32).arg(&n).launch(LaunchConfig::for_num_elems(len as u32)) }?;
    Ok(buf)
}
