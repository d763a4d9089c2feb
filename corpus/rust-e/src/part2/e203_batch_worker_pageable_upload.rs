//! case: a batched inference worker thread uploads each request batch straight from the `Vec` it received over a channel; the activations (batch x features floats) go through an async copy from pageable memory; the readback into pinned memory is ordered by cudarc's events (the worker's own stream puts the context in multi-stream mode)
//! expect: pageable_async_copy=1

use std::sync::mpsc::{Receiver, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const LINEAR_SRC: &str = r#"
extern "C" __global__ void linear_relu(const float* x, const float* w, float* y, int batch, int in_f, int out_f) {
    int b = blockIdx.y;
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= batch || o >= out_f) return;
    float acc = 0.f;
    for (int i = 0; i < in_f; ++i) acc += x[b * in_f + i] * w[o * in_f + i];
    y[b * out_f + o] = acc > 0.f ? acc : 0.f;
}
"#;

pub struct Batch {
    pub id: u64,
    pub rows: usize,
    pub features: Vec<f32>,
}

pub struct Scores {
    pub id: u64,
    pub values: Vec<f32>,
}

pub struct Worker {
    handle: JoinHandle<Result<(), String>>,
}

impl Worker {
    pub fn spawn(ctx: Arc<CudaContext>, weights: Arc<CudaSlice<f32>>, in_f: usize, out_f: usize, rx: Receiver<Batch>, tx: Sender<Scores>) -> Self {
        let handle = std::thread::spawn(move || run(ctx, weights, in_f, out_f, rx, tx).map_err(|e| e.to_string()));
        Self { handle }
    }

    pub fn join(self) -> Result<(), String> {
        self.handle.join().map_err(|_| "worker panicked".to_string())?
    }
}

fn run(ctx: Arc<CudaContext>, weights: Arc<CudaSlice<f32>>, in_f: usize, out_f: usize, rx: Receiver<Batch>, tx: Sender<Scores>) -> Result<(), Box<dyn std::error::Error>> {
    ctx.bind_to_thread()?;
    let stream = ctx.new_stream()?;
    let f: CudaFunction = ctx.load_module(compile_ptx(LINEAR_SRC)?)?.load_function("linear_relu")?;

    for batch in rx {
        let mut x = stream.alloc_zeros::<f32>(batch.rows * in_f)?;
        stream.memcpy_htod(&batch.features, &mut x)?; // EXPECT: pageable_async_copy
        let mut y = stream.alloc_zeros::<f32>(batch.rows * out_f)?;

        let (b, i, o) = (batch.rows as i32, in_f as i32, out_f as i32);
        let cfg = LaunchConfig { grid_dim: ((out_f as u32).div_ceil(128), batch.rows as u32, 1), block_dim: (128, 1, 1), shared_mem_bytes: 0 };
        let mut launch = stream.launch_builder(&f);
        launch.arg(&x).arg(weights.as_ref()).arg(&mut y).arg(&b).arg(&i).arg(&o);
        unsafe { launch.launch(cfg)? };

        let mut host = unsafe { ctx.alloc_pinned_with_flags::<f32>(batch.rows * out_f, 0)? };
        stream.memcpy_dtoh(&y, &mut host)?;
        let values = host.as_slice()?.to_vec();
        if tx.send(Scores { id: batch.id, values }).is_err() {
            break;
        }
    }
    Ok(())
}
