//! case: a sparse-matrix upload (runtime layer) stages `col_idx` and `values` through pinned buffers, but copies `row_ptr` (n_rows + 1 entries, unbounded) with `copy_htod_async` straight from the matrix's Vec: a pageable source for an async copy
//! expect: pageable_async_copy=1

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, Result, Stream};

const SPMV_SRC: &str = r#"
extern "C" __global__ void csr_spmv(const unsigned int* row_ptr, const unsigned int* col_idx, const float* vals,
                                    const float* x, float* y, unsigned int n_rows) {
    unsigned int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n_rows) return;
    float acc = 0.0f;
    for (unsigned int k = row_ptr[r]; k < row_ptr[r + 1]; ++k) acc += vals[k] * x[col_idx[k]];
    y[r] = acc;
}
"#;

pub struct CsrMatrix {
    pub n_rows: usize,
    pub n_cols: usize,
    pub row_ptr: Vec<u32>,
    pub col_idx: Vec<u32>,
    pub values: Vec<f32>,
}

pub struct DeviceCsr {
    row_ptr: DeviceBuffer<u32>,
    col_idx: DeviceBuffer<u32>,
    values: DeviceBuffer<f32>,
    n_rows: u32,
}

impl DeviceCsr {
    pub fn upload(ctx: &Context, stream: &Stream, m: &CsrMatrix) -> Result<DeviceCsr> {
        let nnz = m.values.len();
        let mut col_stage = ctx.alloc_pinned::<u32>(nnz)?;
        let mut val_stage = ctx.alloc_pinned::<f32>(nnz)?;
        col_stage.copy_from_slice(&m.col_idx);
        val_stage.copy_from_slice(&m.values);

        let mut row_ptr = ctx.alloc::<u32>(m.row_ptr.len())?;
        let mut col_idx = ctx.alloc::<u32>(nnz)?;
        let mut values = ctx.alloc::<f32>(nnz)?;
        let enqueued = unsafe {
            stream.copy_htod_async(&mut col_idx, &col_stage).and_then(|()| {
                stream.copy_htod_async(&mut values, &val_stage)?;
                // row_ptr is "small" (one entry per row), no need to stage it
                stream.copy_htod_async(&mut row_ptr, &m.row_ptr) // EXPECT: pageable_async_copy
            })
        };
        // the pinned staging buffers are freed on return, on success or failure
        stream.synchronize()?;
        enqueued?;
        Ok(DeviceCsr { row_ptr, col_idx, values, n_rows: m.n_rows as u32 })
    }

    pub fn spmv(&self, stream: &Stream, spmv: &Kernel, x: &DeviceBuffer<f32>, y: &mut DeviceBuffer<f32>) -> Result<()> {
        let cfg = LaunchConfig::for_num_elems(self.n_rows);
        unsafe { stream.launch(spmv, cfg, &[&self.row_ptr, &self.col_idx, &self.values, x, &*y, &self.n_rows]) }
    }
}

pub fn load_spmv(ctx: &Context) -> Result<Kernel> {
    ctx.load_cuda(SPMV_SRC)?.function("csr_spmv")
}
