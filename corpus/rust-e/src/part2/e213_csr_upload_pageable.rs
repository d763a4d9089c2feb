//! case: a sparse-matrix crate uploads the three CSR arrays straight from the `Vec`s the assembler produced; each `clone_htod` is an async copy from pageable memory of a size known only at run time
//! expect: pageable_async_copy=3

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SPMV_SRC: &str = r#"
extern "C" __global__ void csr_spmv(const int* row_ptr, const int* col_idx, const float* vals,
                                    const float* x, float* y, int rows) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float acc = 0.f;
        for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k) acc += vals[k] * x[col_idx[k]];
        y[r] = acc;
    }
}
"#;

/// Host-side CSR matrix as produced by the finite-element assembler.
pub struct CsrHost {
    pub rows: usize,
    pub cols: usize,
    pub row_ptr: Vec<i32>,
    pub col_idx: Vec<i32>,
    pub values: Vec<f32>,
}

pub struct CsrDevice {
    pub rows: usize,
    pub cols: usize,
    row_ptr: CudaSlice<i32>,
    col_idx: CudaSlice<i32>,
    values: CudaSlice<f32>,
    stream: Arc<CudaStream>,
}

impl CsrDevice {
    pub fn upload(stream: &Arc<CudaStream>, host: &CsrHost) -> Result<Self, DriverError> {
        assert_eq!(host.row_ptr.len(), host.rows + 1);
        assert_eq!(host.col_idx.len(), host.values.len());
        let row_ptr = stream.clone_htod(&host.row_ptr)?; // EXPECT: pageable_async_copy
        let col_idx = stream.clone_htod(&host.col_idx)?; // EXPECT: pageable_async_copy
        let values = stream.clone_htod(&host.values)?; // EXPECT: pageable_async_copy
        Ok(Self { rows: host.rows, cols: host.cols, row_ptr, col_idx, values, stream: stream.clone() })
    }

    pub fn nnz(&self) -> usize {
        self.values.len()
    }

    pub fn spmv(&self, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>) -> Result<(), Box<dyn std::error::Error>> {
        let ctx = self.stream.context();
        let f = ctx.load_module(compile_ptx(SPMV_SRC)?)?.load_function("csr_spmv")?;
        let rows = self.rows as i32;
        let mut launch = self.stream.launch_builder(&f);
        launch.arg(&self.row_ptr).arg(&self.col_idx).arg(&self.values).arg(x).arg(y).arg(&rows);
        unsafe { launch.launch(LaunchConfig::for_num_elems(self.rows as u32))? };
        Ok(())
    }
}
