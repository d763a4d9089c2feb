//! case: a batch scorer fans requests out to scoped worker threads, each with its own cudarc stream, a write-combined input slot it only writes and a cached pinned output it reads after synchronizing its stream; the PTX is compiled once into a `OnceLock` and results come back over a channel
//! expect: none

use std::error::Error;
use std::sync::mpsc;
use std::sync::{Arc, OnceLock};

use cudarc::driver::{CudaContext, CudaFunction, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::{compile_ptx, Ptx};

const SIGMOID_SRC: &str = r#"
extern "C" __global__ void logistic(const float* x, float* y, float w, float b, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 1.0f / (1.0f + __expf(-(w * x[i] + b)));
}
"#;

static PTX: OnceLock<Ptx> = OnceLock::new();

fn ptx() -> Result<&'static Ptx, Box<dyn Error>> {
    if let Some(p) = PTX.get() {
        return Ok(p);
    }
    let compiled = compile_ptx(SIGMOID_SRC)?;
    Ok(PTX.get_or_init(|| compiled))
}

fn worker(
    ctx: &Arc<CudaContext>,
    f: &CudaFunction,
    requests: &[Vec<f32>],
    worker_id: usize,
    tx: mpsc::Sender<(usize, usize, f32)>,
) -> Result<(), Box<dyn Error + Send + Sync>> {
    let stream = ctx.new_stream()?;
    let cap = requests.iter().map(Vec::len).max().unwrap_or(0).max(1);
    let mut input = unsafe { ctx.alloc_pinned::<f32>(cap)? };
    let mut output = unsafe { ctx.alloc_pinned_with_flags::<f32>(cap, 0)? };
    let mut d_x = stream.alloc_zeros::<f32>(cap)?;
    let mut d_y = stream.alloc_zeros::<f32>(cap)?;

    for (r, req) in requests.iter().enumerate() {
        let n = req.len();
        input.as_mut_slice()?[..n].copy_from_slice(req);
        stream.memcpy_htod(&input, &mut d_x)?;
        let n32 = n as u32;
        unsafe {
            stream
                .launch_builder(f)
                .arg(&d_x)
                .arg(&mut d_y)
                .arg(&1.5f32)
                .arg(&-0.25f32)
                .arg(&n32)
                .launch(LaunchConfig::for_num_elems(n32.max(1)))?;
        }
        stream.memcpy_dtoh(&d_y, &mut output)?;
        stream.synchronize()?;
        let mean = output.as_slice()?[..n].iter().sum::<f32>() / n.max(1) as f32;
        let _ = tx.send((worker_id, r, mean));
    }
    Ok(())
}

pub fn score_all(requests: Vec<Vec<f32>>, workers: usize) -> Result<Vec<(usize, usize, f32)>, Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let f = ctx.load_module(ptx()?.clone())?.load_function("logistic")?;
    let (tx, rx) = mpsc::channel();
    let per = requests.len().div_ceil(workers.max(1)).max(1);
    std::thread::scope(|s| {
        for (id, part) in requests.chunks(per).enumerate() {
            let (ctx, f, tx) = (&ctx, &f, tx.clone());
            s.spawn(move || {
                if let Err(e) = ctx.bind_to_thread().map_err(Into::into).and_then(|()| worker(ctx, f, part, id, tx)) {
                    eprintln!("worker {id}: {e}");
                }
            });
        }
    });
    drop(tx);
    let mut results: Vec<_> = rx.into_iter().collect();
    results.sort_by_key(|&(w, r, _)| (w, r));
    Ok(results)
}

pub fn run() -> Result<(), Box<dyn Error>> {
    let requests: Vec<Vec<f32>> = (0..32).map(|k| (0..50_000 + k * 1000).map(|i| (i % 100) as f32 / 50.0 - 1.0).collect()).collect();
    for (w, r, m) in score_all(requests, 4)? {
        println!("worker {w} request {r}: {m:.4}");
    }
    Ok(())
}
