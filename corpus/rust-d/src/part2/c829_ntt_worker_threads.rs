//! case: a prover splits a batch of polynomials over worker threads, each with its own runtime-layer stream and pinned buffers; each worker synchronizes its stream before copying its pinned result into a Vec it sends over a channel, and the main thread joins the workers before using the results
//! expect: none

use std::sync::mpsc;
use std::thread;

use cuda_lint_runtime::{Context, LaunchConfig, Result};

const NTT_SRC: &str = r#"
extern "C" __global__ void ntt_radix2(unsigned long long* a, unsigned int n, unsigned int half, unsigned long long w) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n / 2) return;
    unsigned int j = (i / half) * 2 * half + (i % half);
    unsigned long long u = a[j], v = a[j + half] * w;
    a[j] = u + v;
    a[j + half] = u - v;
}
"#;

pub fn ntt_batch(ctx: &Context, polys: Vec<Vec<u64>>, workers: usize) -> Result<Vec<(usize, Vec<u64>)>> {
    let (tx, rx) = mpsc::channel::<(usize, Vec<u64>)>();
    let mut chunks: Vec<Vec<(usize, Vec<u64>)>> = (0..workers).map(|_| Vec::new()).collect();
    for (i, p) in polys.into_iter().enumerate() {
        chunks[i % workers].push((i, p));
    }

    let handles: Vec<thread::JoinHandle<Result<()>>> = chunks
        .into_iter()
        .map(|work| {
            let ctx = ctx.clone();
            let tx = tx.clone();
            thread::spawn(move || -> Result<()> {
                let stream = ctx.new_stream()?;
                let ntt = ctx.load_cuda(NTT_SRC)?.function("ntt_radix2")?;
                for (idx, poly) in work {
                    let n = poly.len() as u32;
                    let mut host = ctx.alloc_pinned::<u64>(poly.len())?;
                    host.copy_from_slice(&poly);
                    let mut dev = ctx.alloc::<u64>(poly.len())?;
                    let enqueued = (|| -> Result<()> {
                        unsafe { stream.copy_htod_async(&mut dev, &host)? };
                        let mut half = 1;
                        while half < n {
                            unsafe { stream.launch(&ntt, LaunchConfig::for_num_elems(n / 2), &[&dev, &n, &half, &3u64])? };
                            half *= 2;
                        }
                        unsafe { stream.copy_dtoh_async(&mut host, &dev) }
                    })();
                    // wait even when an enqueue failed: `host` and `dev` are freed below
                    stream.synchronize()?;
                    enqueued?;
                    let _ = tx.send((idx, host.to_vec()));
                }
                Ok(())
            })
        })
        .collect();
    drop(tx);

    for h in handles {
        h.join().expect("ntt worker panicked")?;
    }
    let mut out: Vec<(usize, Vec<u64>)> = rx.iter().collect();
    out.sort_by_key(|(i, _)| *i);
    Ok(out)
}
