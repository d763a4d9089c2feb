//! case: a batched inference worker thread gathers request features into a `Vec<f32>` and uploads it with cudarc's `memcpy_htod` (pageable source, hundreds of KiB per batch); the readback goes through a pinned buffer and is synchronized
//! expect: pageable_async_copy=1

use std::error::Error;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Arc;
use std::thread::{self, JoinHandle};

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

pub const HIDDEN: usize = 16384;
pub const MAX_BATCH: usize = 32;

const HEAD_SRC: &str = r#"
extern "C" __global__ void linear_head(const float* x, const float* w, float* logits, unsigned batch, unsigned hidden) {
    unsigned b = blockIdx.x;
    if (b >= batch) return;
    float acc = 0.0f;
    for (unsigned k = threadIdx.x; k < hidden; k += blockDim.x) acc += x[b * hidden + k] * w[k];
    atomicAdd(&logits[b], acc);
}
"#;

pub struct Request {
    pub id: u64,
    pub features: Vec<f32>,
    pub reply: Sender<(u64, f32)>,
}

struct Worker {
    stream: Arc<CudaStream>,
    head: CudaFunction,
    weights: CudaSlice<f32>,
    input: CudaSlice<f32>,
    logits: CudaSlice<f32>,
    logits_host: PinnedHostSlice<f32>,
}

impl Worker {
    fn new(ctx: &Arc<CudaContext>, weights: &PinnedHostSlice<f32>) -> Result<Self, Box<dyn Error>> {
        let stream = ctx.new_stream()?;
        let head = ctx.load_module(compile_ptx(HEAD_SRC)?)?.load_function("linear_head")?;
        Ok(Self {
            weights: stream.clone_htod(weights)?,
            input: stream.alloc_zeros::<f32>(MAX_BATCH * HIDDEN)?,
            logits: stream.alloc_zeros::<f32>(MAX_BATCH)?,
            logits_host: unsafe { ctx.alloc_pinned_with_flags::<f32>(MAX_BATCH, 0)? },
            stream,
            head,
        })
    }

    fn run_batch(&mut self, batch: Vec<Request>) -> Result<(), Box<dyn Error>> {
        let features: Vec<f32> = batch.iter().flat_map(|r| r.features.iter().copied()).collect();
        let mut input = self.input.slice_mut(..features.len());
        self.stream.memcpy_htod(&features, &mut input)?; // EXPECT: pageable_async_copy
        self.stream.memset_zeros(&mut self.logits)?;

        let (b, h) = (batch.len() as u32, HIDDEN as u32);
        let cfg = LaunchConfig { grid_dim: (b, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
        unsafe {
            self.stream
                .launch_builder(&self.head)
                .arg(&self.input)
                .arg(&self.weights)
                .arg(&mut self.logits)
                .arg(&b)
                .arg(&h)
                .launch(cfg)?;
        }
        self.stream.memcpy_dtoh(&self.logits, &mut self.logits_host)?;
        self.stream.synchronize()?;

        let logits = self.logits_host.as_slice()?;
        for (req, &logit) in batch.iter().zip(logits) {
            let _ = req.reply.send((req.id, 1.0 / (1.0 + (-logit).exp())));
        }
        Ok(())
    }
}

pub fn spawn(ctx: Arc<CudaContext>, weights: PinnedHostSlice<f32>, rx: Receiver<Request>) -> JoinHandle<Result<(), String>> {
    thread::spawn(move || {
        let mut worker = Worker::new(&ctx, &weights).map_err(|e| e.to_string())?;
        let mut pending = Vec::with_capacity(MAX_BATCH);
        while let Ok(first) = rx.recv() {
            pending.push(first);
            while pending.len() < MAX_BATCH {
                match rx.try_recv() {
                    Ok(r) => pending.push(r),
                    Err(_) => break,
                }
            }
            worker.run_batch(std::mem::take(&mut pending)).map_err(|e| e.to_string())?;
        }
        Ok(())
    })
}

pub fn client_demo(ctx: Arc<CudaContext>) -> Result<(), Box<dyn Error>> {
    let mut w = unsafe { ctx.alloc_pinned_with_flags::<f32>(HIDDEN, 0)? };
    w.as_mut_slice()?.fill(1.0 / HIDDEN as f32);
    let (tx, rx) = mpsc::channel();
    let handle = spawn(ctx, w, rx);
    let (reply_tx, reply_rx) = mpsc::channel();
    for id in 0..64u64 {
        tx.send(Request { id, features: vec![id as f32 * 0.01; HIDDEN], reply: reply_tx.clone() })?;
    }
    drop(tx);
    for _ in 0..64 {
        let (id, p) = reply_rx.recv()?;
        println!("request {id}: p = {p:.4}");
    }
    handle.join().map_err(|_| "worker panicked")??;
    Ok(())
}
