//! case: embedding RPC server with a pool of worker threads, each owning a runtime-layer stream and pinned buffers; a worker serializes the response payload from the pinned output right after enqueuing `copy_dtoh_async`, and only synchronizes the stream afterwards
//! expect: missing_sync=1

use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const EMBED_SRC: &str = r#"
extern "C" __global__ void embed_tokens(const unsigned* tokens, const float* table, float* out,
                                        unsigned n_tokens, unsigned dim) {
    unsigned t = blockIdx.x;
    unsigned d = threadIdx.x;
    if (t < n_tokens && d < dim) out[t * dim + d] = table[tokens[t] * dim + d];
}
"#;

pub struct Request {
    pub id: u64,
    pub tokens: Vec<u32>,
    pub reply: Sender<Response>,
}

pub struct Response {
    pub id: u64,
    pub payload: Vec<u8>,
}

struct Worker {
    stream: Stream,
    kernel: Kernel,
    tokens_host: PinnedBuffer<u32>,
    tokens_dev: DeviceBuffer<u32>,
    out_dev: DeviceBuffer<f32>,
    out_host: PinnedBuffer<f32>,
    dim: usize,
}

impl Worker {
    fn new(ctx: &Context, kernel: Kernel, max_tokens: usize, dim: usize) -> Result<Self> {
        Ok(Self {
            stream: ctx.new_stream()?,
            kernel,
            tokens_host: ctx.alloc_pinned::<u32>(max_tokens)?,
            tokens_dev: ctx.alloc::<u32>(max_tokens)?,
            out_dev: ctx.alloc::<f32>(max_tokens * dim)?,
            out_host: ctx.alloc_pinned::<f32>(max_tokens * dim)?,
            dim,
        })
    }

    fn handle(&mut self, table: &DeviceBuffer<f32>, req: &Request) -> Result<Response> {
        let n = req.tokens.len().min(self.tokens_host.len());
        self.tokens_host[..n].copy_from_slice(&req.tokens[..n]);
        unsafe { self.stream.copy_htod_async(&mut self.tokens_dev, &self.tokens_host)? };
        let (nt, dim) = (n as u32, self.dim as u32);
        let cfg = LaunchConfig { grid: (nt.max(1), 1, 1), block: (dim, 1, 1), shared_mem_bytes: 0 };
        unsafe { self.stream.launch(&self.kernel, cfg, &[&self.tokens_dev, table, &self.out_dev, &nt, &dim])? };
        unsafe { self.stream.copy_dtoh_async(&mut self.out_host, &self.out_dev)? };
        let used = n * self.dim;
        let payload: Vec<u8> = self.out_host[..used].iter().flat_map(|v| v.to_le_bytes()).collect(); // EXPECT: missing_sync
        self.stream.synchronize()?;
        Ok(Response { id: req.id, payload })
    }
}

pub struct WorkerPool {
    tx: Option<Sender<Request>>,
    threads: Vec<JoinHandle<()>>,
}

impl WorkerPool {
    pub fn start(ctx: &Context, table: Arc<DeviceBuffer<f32>>, workers: usize, dim: usize) -> Result<Self> {
        let module = ctx.load_cuda(EMBED_SRC)?;
        let (tx, rx) = mpsc::channel::<Request>();
        let rx: Arc<Mutex<Receiver<Request>>> = Arc::new(Mutex::new(rx));
        let mut threads = Vec::new();
        for _ in 0..workers {
            let mut worker = Worker::new(ctx, module.function("embed_tokens")?, 512, dim)?;
            let rx = Arc::clone(&rx);
            let table = Arc::clone(&table);
            threads.push(std::thread::spawn(move || loop {
                let req = match rx.lock().unwrap().recv() {
                    Ok(r) => r,
                    Err(_) => return,
                };
                match worker.handle(&table, &req) {
                    Ok(resp) => { let _ = req.reply.send(resp); }
                    Err(e) => eprintln!("request {} failed: {e}", req.id),
                }
            }));
        }
        Ok(Self { tx: Some(tx), threads })
    }

    pub fn submit(&self, req: Request) -> bool {
        self.tx.as_ref().map_or(false, |tx| tx.send(req).is_ok())
    }
}

impl Drop for WorkerPool {
    fn drop(&mut self) {
        drop(self.tx.take());
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}
