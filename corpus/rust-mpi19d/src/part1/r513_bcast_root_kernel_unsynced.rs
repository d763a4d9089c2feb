//! case: model-parameter broadcast where only the root initializes the device parameters with a kernel and then every rank calls `MPI_Bcast` on them; on the root path nothing waits for the init kernel, so MPI reads (and sends) parameters the kernel may still be writing.
//! expect: missing_sync=1

use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, DevicePtrMut, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

use crate::bindings::*;

const MODEL_SRC: &str = r#"
extern "C" __global__ void xavier_init(float* w, int fan_in, int fan_out, unsigned long long seed) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int n = fan_in * fan_out;
    if (i < n) {
        unsigned long long h = (seed + (unsigned long long)i) * 6364136223846793005ULL + 1442695040888963407ULL;
        float u = (float)((h >> 40) & 0xffffff) / 16777215.0f;
        float limit = sqrtf(6.0f / (float)(fan_in + fan_out));
        w[i] = (2.0f * u - 1.0f) * limit;
    }
}

extern "C" __global__ void fill_const(float* x, int n, float v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = v;
}

extern "C" __global__ void forward(const float* w, const float* x, float* y, int fan_in, int fan_out) {
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    if (o < fan_out) {
        float acc = 0.0f;
        for (int k = 0; k < fan_in; ++k) acc += w[o * fan_in + k] * x[k];
        y[o] = acc;
    }
}
"#;

/// Creates a `fan_out` x `fan_in` layer whose weights are drawn on `root` and broadcast to
/// every rank, then runs one forward pass on an all-ones input. Returns (weights, output).
pub fn init_layer_broadcast(
    ctx: &Arc<CudaContext>,
    comm: MPI_Comm,
    root: c_int,
    fan_in: usize,
    fan_out: usize,
    seed: u64,
) -> Result<(CudaSlice<f32>, CudaSlice<f32>), Box<dyn std::error::Error>> {
    let (rank, _size) = rank_and_size(comm)?;
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(MODEL_SRC)?)?;
    let xavier = module.load_function("xavier_init")?;
    let fill = module.load_function("fill_const")?;
    let forward = module.load_function("forward")?;

    let n = fan_in * fan_out;
    let (fi, fo) = (fan_in as i32, fan_out as i32);
    let mut weights = stream.alloc_zeros::<f32>(n)?;
    let mut input = stream.alloc_zeros::<f32>(fan_in)?;
    let mut output = stream.alloc_zeros::<f32>(fan_out)?;
    let one = 1.0f32;
    unsafe { stream.launch_builder(&fill).arg(&mut input).arg(&fi).arg(&one).launch(LaunchConfig::for_num_elems(fan_in as u32)) }?;
    // Every rank starts from defined memory.
    stream.synchronize()?;

    if rank == root {
        unsafe { stream.launch_builder(&xavier).arg(&mut weights).arg(&fi).arg(&fo).arg(&seed).launch(LaunchConfig::for_num_elems(n as u32)) }?;
    }

    let w_ptr = weights.device_ptr_mut(&stream).0;
    let rc = unsafe { MPI_Bcast(w_ptr as *mut c_void, n as c_int, MPI_FLOAT, root, comm) }; // EXPECT: missing_sync
    mpi_check(rc, "MPI_Bcast")?;

    unsafe {
        stream
            .launch_builder(&forward)
            .arg(&weights)
            .arg(&input)
            .arg(&mut output)
            .arg(&fi)
            .arg(&fo)
            .launch(LaunchConfig::for_num_elems(fan_out as u32))
    }?;
    stream.synchronize()?;
    Ok((weights, output))
}
