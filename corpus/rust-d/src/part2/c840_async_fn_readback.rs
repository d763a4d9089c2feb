//! case: an async embedding service (runtime layer) enqueues the gather kernel and the copy into its pinned output, `.await`s a yield "while the GPU works", then copies the pinned rows out; awaiting a yield waits for nothing on the GPU, and the stream is only synchronized after the read
//! expect: missing_sync=1

use std::future::Future;
use std::pin::Pin;
use std::task::{Context as TaskContext, Poll};

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const GATHER_SRC: &str = r#"
extern "C" __global__ void gather_rows(const float* table, const unsigned int* ids, float* out,
                                       unsigned int n_ids, unsigned int dim) {
    unsigned int r = blockIdx.x, c = threadIdx.x;
    if (r < n_ids) for (unsigned int j = c; j < dim; j += blockDim.x) out[(size_t)r * dim + j] = table[(size_t)ids[r] * dim + j];
}
"#;

/// Yields to the executor once.
#[derive(Default)]
struct YieldNow(bool);

impl Future for YieldNow {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

pub struct EmbeddingService {
    stream: Stream,
    gather: Kernel,
    table: DeviceBuffer<f32>,
    ids_host: PinnedBuffer<u32>,
    ids_dev: DeviceBuffer<u32>,
    out_dev: DeviceBuffer<f32>,
    out_host: PinnedBuffer<f32>,
    dim: u32,
}

impl EmbeddingService {
    pub fn new(ctx: &Context, rows: usize, dim: u32, max_ids: usize) -> Result<Self> {
        Ok(Self {
            stream: ctx.new_stream()?,
            gather: ctx.load_cuda(GATHER_SRC)?.function("gather_rows")?,
            table: ctx.alloc_zeroed(rows * dim as usize)?,
            ids_host: ctx.alloc_pinned(max_ids)?,
            ids_dev: ctx.alloc(max_ids)?,
            out_dev: ctx.alloc(max_ids * dim as usize)?,
            out_host: ctx.alloc_pinned(max_ids * dim as usize)?,
            dim,
        })
    }

    pub async fn lookup(&mut self, ids: &[u32]) -> Result<Vec<Vec<f32>>> {
        let n = ids.len().min(self.ids_host.len());
        self.ids_host[..n].copy_from_slice(&ids[..n]);
        unsafe { self.stream.copy_htod_async(&mut self.ids_dev, &self.ids_host)? };
        let cfg = LaunchConfig { grid: (n as u32, 1, 1), block: (128, 1, 1), shared_mem_bytes: 0 };
        let n32 = n as u32;
        unsafe { self.stream.launch(&self.gather, cfg, &[&self.table, &self.ids_dev, &self.out_dev, &n32, &self.dim])? };
        unsafe { self.stream.copy_dtoh_async(&mut self.out_host, &self.out_dev)? };

        YieldNow::default().await; // let other requests run while the GPU works

        let dim = self.dim as usize;
        let rows: Vec<Vec<f32>> = self.out_host[..n * dim].chunks(dim).map(<[f32]>::to_vec).collect(); // EXPECT: missing_sync
        self.stream.synchronize()?; // staging buffers are reused by the next request
        Ok(rows)
    }
}
