//! case: CSR sparse matrix-vector product with cuda-lint-runtime: a builder stages the matrix in pinned buffers (`alloc_pinned`, no write-combining), async copies go up, the result comes back with `copy_dtoh_async` into pinned memory and is read only after `stream.synchronize()`
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const SPMV_SRC: &str = r#"
extern "C" __global__ void csr_spmv(const int* row_ptr, const int* col_idx, const float* vals,
                                    const float* x, float* y, int n_rows) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n_rows) return;
    float acc = 0.f;
    for (int k = row_ptr[row]; k < row_ptr[row + 1]; ++k) acc += vals[k] * x[col_idx[k]];
    y[row] = acc;
}
"#;

/// A CSR matrix resident on the device.
pub struct DeviceCsr {
    row_ptr: DeviceBuffer<i32>,
    col_idx: DeviceBuffer<i32>,
    vals: DeviceBuffer<f32>,
    n_rows: usize,
    n_cols: usize,
}

/// Stages host CSR arrays in pinned memory and uploads them asynchronously.
pub struct CsrUploadBuilder<'a> {
    ctx: &'a Context,
    row_ptr: Option<PinnedBuffer<i32>>,
    col_idx: Option<PinnedBuffer<i32>>,
    vals: Option<PinnedBuffer<f32>>,
    n_cols: usize,
}

impl<'a> CsrUploadBuilder<'a> {
    pub fn new(ctx: &'a Context, n_cols: usize) -> Self {
        Self { ctx, row_ptr: None, col_idx: None, vals: None, n_cols }
    }

    fn stage<T: cuda_lint_runtime::DeviceRepr + Copy>(ctx: &Context, src: &[T]) -> Result<PinnedBuffer<T>> {
        let mut pinned = ctx.alloc_pinned::<T>(src.len())?;
        pinned.copy_from_slice(src);
        Ok(pinned)
    }

    pub fn row_ptr(mut self, src: &[i32]) -> Result<Self> {
        self.row_ptr = Some(Self::stage(self.ctx, src)?);
        Ok(self)
    }

    pub fn col_idx(mut self, src: &[i32]) -> Result<Self> {
        self.col_idx = Some(Self::stage(self.ctx, src)?);
        Ok(self)
    }

    pub fn values(mut self, src: &[f32]) -> Result<Self> {
        self.vals = Some(Self::stage(self.ctx, src)?);
        Ok(self)
    }

    pub fn upload(self, stream: &Stream) -> Result<DeviceCsr> {
        let (Some(rp), Some(ci), Some(v)) = (self.row_ptr, self.col_idx, self.vals) else {
            return Err(cuda_lint_runtime::Error::InvalidArgument { call: "csr upload", reason: "missing array".into() });
        };
        let mut row_ptr = self.ctx.alloc::<i32>(rp.len())?;
        let mut col_idx = self.ctx.alloc::<i32>(ci.len())?;
        let mut vals = self.ctx.alloc::<f32>(v.len())?;
        unsafe {
            stream.copy_htod_async(&mut row_ptr, &rp)?;
            stream.copy_htod_async(&mut col_idx, &ci)?;
            stream.copy_htod_async(&mut vals, &v)?;
        }
        // The staging buffers are freed when this function returns: wait for the copies first.
        stream.synchronize()?;
        Ok(DeviceCsr { row_ptr, col_idx, vals, n_rows: rp.len() - 1, n_cols: self.n_cols })
    }
}

pub struct SpmvEngine {
    stream: Stream,
    kernel: Kernel,
    x_host: PinnedBuffer<f32>,
    y_host: PinnedBuffer<f32>,
}

impl SpmvEngine {
    pub fn new(ctx: &Context, n_rows: usize, n_cols: usize) -> Result<Self> {
        let stream = ctx.new_stream()?;
        let kernel = ctx.load_cuda(SPMV_SRC)?.function("csr_spmv")?;
        Ok(Self { stream, kernel, x_host: ctx.alloc_pinned(n_cols)?, y_host: ctx.alloc_pinned(n_rows)? })
    }

    pub fn stream(&self) -> &Stream {
        &self.stream
    }

    /// y = A x; returns ||y||_2.
    pub fn apply(&mut self, a: &DeviceCsr, x: &[f32]) -> Result<f32> {
        let ctx = self.stream.context();
        self.x_host.copy_from_slice(x);
        let mut d_x = ctx.alloc::<f32>(a.n_cols)?;
        let mut d_y = ctx.alloc::<f32>(a.n_rows)?;
        unsafe {
            self.stream.copy_htod_async(&mut d_x, &self.x_host)?;
            let n_rows = a.n_rows as i32;
            self.stream.launch(
                &self.kernel,
                LaunchConfig::for_num_elems(a.n_rows as u32),
                &[&a.row_ptr, &a.col_idx, &a.vals, &d_x, &mut d_y, &n_rows],
            )?;
            self.stream.copy_dtoh_async(&mut self.y_host, &d_y)?;
        }
        self.stream.synchronize()?;
        Ok(self.y_host.iter().map(|v| v * v).sum::<f32>().sqrt())
    }
}

pub fn spmv_norm(row_ptr: &[i32], col_idx: &[i32], vals: &[f32], x: &[f32]) -> Result<f32> {
    let ctx = Context::new(0)?;
    let mut engine = SpmvEngine::new(&ctx, row_ptr.len() - 1, x.len())?;
    let a = CsrUploadBuilder::new(&ctx, x.len())
        .row_ptr(row_ptr)?
        .col_idx(col_idx)?
        .values(vals)?
        .upload(engine.stream())?;
    engine.apply(&a, x)
}
