//! case: GPU job scheduler; a worker thread owns an `Arc<CudaStream>` moved into it, runs Monte Carlo pricing jobs received over a channel, reads each result from a non-write-combined pinned buffer only after `stream.synchronize()`, and sends plain `Vec`s back
//! expect: none

use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Arc;
use std::thread::{self, JoinHandle};

use cudarc::driver::{CudaContext, CudaFunction, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const PRICER_SRC: &str = r#"
extern "C" __global__ void price_paths(unsigned long long seed, float spot, float vol, float* payoff, unsigned paths) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= paths) return;
    unsigned long long s = seed ^ (0x9E3779B97F4A7C15ull * (i + 1));
    float x = spot;
    for (int step = 0; step < 64; ++step) {
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        float u = (float)(s & 0xFFFFFF) / 16777216.0f - 0.5f;
        x *= 1.0f + vol * u * 0.125f;
    }
    payoff[i] = fmaxf(x - spot, 0.0f);
}
"#;

pub struct PricingJob {
    pub id: u64,
    pub seed: u64,
    pub spot: f32,
    pub vol: f32,
    pub paths: u32,
}

pub struct PricingResult {
    pub id: u64,
    pub mean_payoff: f64,
    pub payoffs_head: Vec<f32>,
}

pub struct Scheduler {
    jobs: Option<Sender<PricingJob>>,
    results: Receiver<Result<PricingResult, DriverError>>,
    worker: Option<JoinHandle<()>>,
}

fn run_job(ctx: &Arc<CudaContext>, stream: &Arc<CudaStream>, f: &CudaFunction, job: PricingJob) -> Result<PricingResult, DriverError> {
    let n = job.paths as usize;
    let mut payoff = stream.alloc_zeros::<f32>(n)?;
    let mut host = unsafe { ctx.alloc_pinned_with_flags::<f32>(n, 0)? };
    unsafe {
        stream
            .launch_builder(f)
            .arg(&job.seed)
            .arg(&job.spot)
            .arg(&job.vol)
            .arg(&mut payoff)
            .arg(&job.paths)
            .launch(LaunchConfig::for_num_elems(job.paths))?
    };
    stream.memcpy_dtoh(&payoff, &mut host)?;
    stream.synchronize()?;
    let values = host.as_slice()?;
    let mean = values.iter().map(|&v| v as f64).sum::<f64>() / n.max(1) as f64;
    Ok(PricingResult { id: job.id, mean_payoff: mean, payoffs_head: values.iter().take(8).copied().collect() })
}

impl Scheduler {
    pub fn start(ctx: Arc<CudaContext>) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        let pricer = ctx.load_module(compile_ptx(PRICER_SRC)?)?.load_function("price_paths")?;
        let (job_tx, job_rx) = mpsc::channel::<PricingJob>();
        let (res_tx, res_rx) = mpsc::channel();
        let worker = thread::spawn(move || {
            for job in job_rx {
                if res_tx.send(run_job(&ctx, &stream, &pricer, job)).is_err() {
                    break;
                }
            }
        });
        Ok(Self { jobs: Some(job_tx), results: res_rx, worker: Some(worker) })
    }

    pub fn submit(&self, job: PricingJob) -> bool {
        self.jobs.as_ref().map(|tx| tx.send(job).is_ok()).unwrap_or(false)
    }

    pub fn next_result(&self) -> Option<Result<PricingResult, DriverError>> {
        self.results.recv().ok()
    }
}

impl Drop for Scheduler {
    fn drop(&mut self) {
        drop(self.jobs.take());
        if let Some(w) = self.worker.take() {
            let _ = w.join();
        }
    }
}
