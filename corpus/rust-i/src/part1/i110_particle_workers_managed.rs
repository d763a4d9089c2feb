//! case: particle advection in a vortex field split over worker threads (std::thread::scope); each worker launches the advect kernel on its own stream over its managed chunk and immediately reads the chunk's centroid, before synchronizing its stream
//! expect: missing_sync=1

use std::sync::mpsc;
use std::thread;

use cuda_lint_runtime::{Context, Kernel, LaunchConfig, ManagedBuffer, Result};

const ADVECT_SRC: &str = r#"
extern "C" __global__ void advect(float* xy, float dt, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = xy[2*i], y = xy[2*i+1];
    float r2 = x*x + y*y + 1e-3f;
    xy[2*i]   = x - dt * y / r2;
    xy[2*i+1] = y + dt * x / r2;
}
"#;

#[derive(Debug, Clone, Copy)]
pub struct Centroid {
    pub worker: usize,
    pub x: f32,
    pub y: f32,
}

fn seed_chunk(chunk: &mut ManagedBuffer<f32>, worker: usize) {
    for (i, p) in chunk.chunks_exact_mut(2).enumerate() {
        let a = (i as f32 * 0.618 + worker as f32) * std::f32::consts::TAU;
        p[0] = a.cos() * (1.0 + worker as f32);
        p[1] = a.sin() * (1.0 + worker as f32);
    }
}

fn centroid(worker: usize, xy: &[f32]) -> Centroid {
    let n = (xy.len() / 2).max(1) as f32;
    let (sx, sy) = xy.chunks_exact(2).fold((0.0, 0.0), |(sx, sy), p| (sx + p[0], sy + p[1]));
    Centroid { worker, x: sx / n, y: sy / n }
}

pub fn simulate(ctx: &Context, workers: usize, per_worker: usize, dt: f32) -> Result<Vec<Centroid>> {
    let advect: Kernel = ctx.load_cuda(ADVECT_SRC)?.function("advect")?;
    // All managed chunks are allocated and seeded before any kernel runs.
    let mut chunks = (0..workers).map(|_| ctx.alloc_managed::<f32>(per_worker * 2)).collect::<Result<Vec<_>>>()?;
    for (w, c) in chunks.iter_mut().enumerate() {
        seed_chunk(c, w);
    }

    let (tx, rx) = mpsc::channel();
    thread::scope(|scope| -> Result<()> {
        let mut handles = Vec::new();
        for (w, chunk) in chunks.iter_mut().enumerate() {
            let tx = tx.clone();
            let advect = &advect;
            handles.push(scope.spawn(move || -> Result<()> {
                ctx.bind_to_thread()?;
                let stream = ctx.new_stream()?;
                let n = per_worker as u32;
                unsafe { stream.launch(advect, LaunchConfig::for_num_elems(n), &[&*chunk, &dt, &n])? };
                let c = centroid(w, &chunk[..]); // EXPECT: missing_sync
                stream.synchronize()?;
                tx.send(c).ok();
                Ok(())
            }));
        }
        for h in handles {
            h.join().expect("worker panicked")?;
        }
        Ok(())
    })?;
    drop(tx);
    Ok(rx.iter().collect())
}
