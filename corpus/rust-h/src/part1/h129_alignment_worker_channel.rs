//! case: Smith-Waterman scoring on a worker thread that owns an `Arc<CudaStream>` (the default stream, the only one, so cudarc records no events): the worker uploads each batch of queries from its `Vec` and sends the pinned score buffer to the main thread right after enqueuing the copy, without synchronizing; the main thread reads the scores through `as_slice`, which waits for nothing
//! expect: missing_sync=1, pageable_async_copy=1

use std::sync::mpsc;
use std::sync::Arc;
use std::thread;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SW_SRC: &str = r#"
// One thread per query of fixed length 128 against one reference window (linear gap).
extern "C" __global__ void sw_score(const unsigned char* queries, const unsigned char* reference, int ref_len,
                                    int* scores, int n_queries) {
    int q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= n_queries) return;
    const unsigned char* s = queries + 128 * q;
    int prev[129], best = 0;
    for (int j = 0; j <= 128; ++j) prev[j] = 0;
    for (int i = 1; i <= ref_len; ++i) {
        int diag = 0, left = 0;
        for (int j = 1; j <= 128; ++j) {
            int up = prev[j];
            int h = max(0, max(diag + (reference[i - 1] == s[j - 1] ? 2 : -1), max(up - 1, left - 1)));
            diag = up; prev[j] = h; left = h;
            best = max(best, h);
        }
    }
    scores[q] = best;
}
"#;

pub struct QueryBatch {
    pub id: usize,
    /// n_queries * 128 bases; the read splitter makes batches of 8192 queries (1 MiB).
    pub queries: Vec<u8>,
}

type Scored = (usize, PinnedHostSlice<i32>);

fn spawn_scorer(
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    reference: Arc<CudaSlice<u8>>,
    ref_len: i32,
    jobs: mpsc::Receiver<QueryBatch>,
    results: mpsc::Sender<Scored>,
) -> thread::JoinHandle<Result<(), DriverError>> {
    thread::spawn(move || {
        let ctx = stream.context().clone();
        ctx.bind_to_thread()?;
        for batch in jobs {
            let n = (batch.queries.len() / 128) as i32;
            let d_queries = stream.clone_htod(&batch.queries)?; // EXPECT: pageable_async_copy
            let mut d_scores = stream.alloc_zeros::<i32>(n as usize)?;
            let mut launch = stream.launch_builder(&kernel);
            launch.arg(&d_queries).arg(reference.as_ref()).arg(&ref_len).arg(&mut d_scores).arg(&n);
            unsafe { launch.launch(LaunchConfig::for_num_elems(n as u32)) }?;
            let mut scores = unsafe { ctx.alloc_pinned_with_flags::<i32>(n as usize, 0)? };
            stream.memcpy_dtoh(&d_scores, &mut scores)?;
            if results.send((batch.id, scores)).is_err() {
                break;
            }
        }
        Ok(())
    })
}

/// Returns, per batch, the index and score of the best-scoring query.
pub fn best_hits(reference: &[u8], batches: Vec<QueryBatch>) -> Result<Vec<(usize, usize, i32)>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let kernel = ctx.load_module(compile_ptx(SW_SRC)?)?.load_function("sw_score")?;
    let mut d_reference = stream.alloc_zeros::<u8>(reference.len())?;
    let mut h_reference = unsafe { ctx.alloc_pinned_with_flags::<u8>(reference.len(), 0)? };
    h_reference.as_mut_slice()?.copy_from_slice(reference);
    stream.memcpy_htod(&h_reference, &mut d_reference)?;

    let (job_tx, job_rx) = mpsc::channel();
    let (res_tx, res_rx) = mpsc::channel();
    let worker = spawn_scorer(stream.clone(), kernel, Arc::new(d_reference), reference.len() as i32, job_rx, res_tx);
    for b in batches {
        job_tx.send(b)?;
    }
    drop(job_tx);

    let mut hits = Vec::new();
    let mut finished = Vec::new();
    for (id, scores) in res_rx {
        let best = scores.as_slice()?.iter().copied().enumerate().max_by_key(|&(_, s)| s); // EXPECT: missing_sync
        if let Some((q, s)) = best {
            hits.push((id, q, s));
        }
        finished.push(scores);
    }
    worker.join().expect("scorer thread panicked")?;
    stream.synchronize()?;
    drop(finished);
    Ok(hits)
}
