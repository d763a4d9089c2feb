//! case: image denoiser service; a worker thread takes jobs from a channel and uploads each frame straight from the job's Vec<u8> with `copy_htod_async` (a multi-megabyte pageable copy), then runs a bilateral filter and returns the result through pinned memory after synchronizing
//! expect: pageable_async_copy=1

use std::sync::mpsc::{self, Receiver, Sender};
use std::thread::{self, JoinHandle};

use cuda_lint_runtime::{Context, DeviceBuffer, LaunchConfig, PinnedBuffer, Result};

const BILATERAL_SRC: &str = r#"
extern "C" __global__ void bilateral3(const unsigned char* in, unsigned char* out, int w, int h, float sigma_r) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y;
    if (x >= w || y >= h) return;
    float c = in[y * w + x], acc = 0.0f, norm = 0.0f;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
            int xx = min(max(x + dx, 0), w - 1), yy = min(max(y + dy, 0), h - 1);
            float v = in[yy * w + xx];
            float wgt = __expf(-(v - c) * (v - c) / (2.0f * sigma_r * sigma_r));
            acc += wgt * v; norm += wgt;
        }
    out[y * w + x] = (unsigned char)(acc / norm + 0.5f);
}
"#;

pub struct Job {
    pub id: u64,
    pub width: usize,
    pub height: usize,
    pub pixels: Vec<u8>,
    pub reply: Sender<(u64, Vec<u8>)>,
}

pub struct DenoiseService {
    jobs: Option<Sender<Job>>,
    worker: Option<JoinHandle<Result<()>>>,
}

fn worker_loop(ctx: Context, jobs: Receiver<Job>, sigma: f32) -> Result<()> {
    let stream = ctx.new_stream()?;
    let filter = ctx.load_cuda(BILATERAL_SRC)?.function("bilateral3")?;
    let mut dev_in: DeviceBuffer<u8> = ctx.alloc(0)?;
    let mut dev_out: DeviceBuffer<u8> = ctx.alloc(0)?;
    let mut host_out: PinnedBuffer<u8> = ctx.alloc_pinned(0)?;
    for job in jobs {
        let len = job.pixels.len();
        if dev_in.len() != len {
            dev_in = ctx.alloc(len)?;
            dev_out = ctx.alloc(len)?;
            host_out = ctx.alloc_pinned(len)?;
        }
        let (w, h) = (job.width as i32, job.height as i32);
        let cfg = LaunchConfig { grid: ((job.width as u32).div_ceil(256), job.height as u32, 1), block: (256, 1, 1), shared_mem_bytes: 0 };
        unsafe {
            stream.copy_htod_async(&mut dev_in, &job.pixels)?; // EXPECT: pageable_async_copy
            stream.launch(&filter, cfg, &[&dev_in, &dev_out, &w, &h, &sigma])?;
            stream.copy_dtoh_async(&mut host_out, &dev_out)?;
        }
        stream.synchronize()?;
        let _ = job.reply.send((job.id, host_out.to_vec()));
    }
    Ok(())
}

impl DenoiseService {
    pub fn start(ordinal: usize, sigma: f32) -> Result<Self> {
        let ctx = Context::new(ordinal)?;
        let (tx, rx) = mpsc::channel();
        let worker = thread::spawn(move || {
            ctx.bind_to_thread()?;
            worker_loop(ctx, rx, sigma)
        });
        Ok(DenoiseService { jobs: Some(tx), worker: Some(worker) })
    }

    pub fn submit(&self, job: Job) -> bool {
        self.jobs.as_ref().is_some_and(|tx| tx.send(job).is_ok())
    }
}

impl Drop for DenoiseService {
    fn drop(&mut self) {
        drop(self.jobs.take());
        if let Some(w) = self.worker.take() {
            let _ = w.join();
        }
    }
}
