//! case: multi-tenant query executor (runtime crate): a scoped worker thread per tenant owns its stream and pinned result buffer, launches the filter-count kernel, copies the counts back asynchronously and synchronizes its stream before sending them over a channel (near-miss)
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, LaunchConfig, Result};
use std::sync::mpsc;
use std::thread;

const FILTER_SRC: &str = r#"
extern "C" __global__ void count_in_range(const int* col, unsigned n, int lo, int hi, unsigned groups,
                                          unsigned* counts) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && col[i] >= lo && col[i] <= hi) atomicAdd(&counts[i % groups], 1u);
}
"#;

pub struct TenantQuery<'a> {
    pub tenant: u32,
    pub column: &'a DeviceBuffer<i32>,
    pub lo: i32,
    pub hi: i32,
}

pub fn run_all(ctx: &Context, queries: &[TenantQuery<'_>], groups: usize) -> Result<Vec<(u32, Vec<u32>)>> {
    let module = ctx.load_cuda(FILTER_SRC)?;
    let (tx, rx) = mpsc::channel::<Result<(u32, Vec<u32>)>>();
    thread::scope(|scope| {
        for q in queries {
            let tx = tx.clone();
            let module = &module;
            scope.spawn(move || {
                let work = || -> Result<(u32, Vec<u32>)> {
                    ctx.bind_to_thread()?;
                    let stream = ctx.new_stream()?;
                    let kernel = module.function("count_in_range")?;
                    let mut d_counts = ctx.alloc::<u32>(groups)?;
                    let mut counts = ctx.alloc_pinned::<u32>(groups)?;
                    stream.memset_d32_async(&mut d_counts, 0)?;
                    let n = q.column.len() as u32;
                    let g = groups as u32;
                    unsafe {
                        stream.launch(&kernel, LaunchConfig::for_num_elems(n), &[q.column, &n, &q.lo, &q.hi, &g, &d_counts])?;
                        stream.copy_dtoh_async(&mut counts, &d_counts)?;
                    }
                    stream.synchronize()?;
                    Ok((q.tenant, counts.to_vec()))
                };
                let _ = tx.send(work());
            });
        }
    });
    drop(tx);
    let mut out = rx.into_iter().collect::<Result<Vec<_>>>()?;
    out.sort_by_key(|(t, _)| *t);
    Ok(out)
}
