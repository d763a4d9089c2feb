//! case: bond portfolio valuation fans out over scoped worker threads, each with its own stream: a worker uploads its slice of the (pageable) cash-flow Vec with an async copy, prices it, copies the PVs into its pinned buffer and sums that buffer before synchronizing
//! expect: missing_sync=1, pageable_async_copy=1

use std::sync::mpsc;
use std::thread;

use cuda_lint_runtime::{Context, DeviceBuffer, LaunchConfig, PinnedBuffer, Result};

const PV_SRC: &str = r#"
extern "C" __global__ void discount(const double* cashflow, const double* t, double* pv, int n, double y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) pv[i] = cashflow[i] * exp(-y * t[i]);
}
"#;

pub struct Book {
    pub cashflows: Vec<f64>,
    pub times: Vec<f64>,
}

fn price_chunk(ctx: &Context, cf: &[f64], t: &[f64], y: f64) -> Result<f64> {
    ctx.bind_to_thread()?;
    let stream = ctx.new_stream()?;
    let kernel = ctx.load_cuda(PV_SRC)?.function("discount")?;
    let n = cf.len();
    let mut d_cf: DeviceBuffer<f64> = ctx.alloc(n)?;
    let mut d_t: DeviceBuffer<f64> = ctx.alloc(n)?;
    let d_pv: DeviceBuffer<f64> = ctx.alloc(n)?;
    let mut h_t: PinnedBuffer<f64> = ctx.alloc_pinned(n)?;
    h_t.copy_from_slice(t);
    let mut h_pv: PinnedBuffer<f64> = ctx.alloc_pinned(n)?;
    unsafe {
        stream.copy_htod_async(&mut d_cf, cf)?; // EXPECT: pageable_async_copy
        stream.copy_htod_async(&mut d_t, &h_t)?;
        stream.launch(&kernel, LaunchConfig::for_num_elems(n as u32), &[&d_cf, &d_t, &d_pv, &(n as i32), &y])?;
        stream.copy_dtoh_async(&mut h_pv, &d_pv)?;
    }
    let total: f64 = h_pv.iter().sum(); // EXPECT: missing_sync
    stream.synchronize()?;
    Ok(total)
}

pub fn portfolio_pv(ctx: &Context, book: &Book, yield_curve_flat: f64, workers: usize) -> Result<f64> {
    let chunk = book.cashflows.len().div_ceil(workers.max(1));
    let (tx, rx) = mpsc::channel();
    thread::scope(|s| {
        for (cf, t) in book.cashflows.chunks(chunk).zip(book.times.chunks(chunk)) {
            let tx = tx.clone();
            let ctx = ctx.clone();
            s.spawn(move || {
                let _ = tx.send(price_chunk(&ctx, cf, t, yield_curve_flat));
            });
        }
    });
    drop(tx);
    rx.into_iter().try_fold(0.0, |acc, r| r.map(|v| acc + v))
}
