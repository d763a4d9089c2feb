//! case: on cudarc's default stream alone, a kernel writes its result into a `UnifiedSlice` passed as a launch argument, and the host reads it with `as_slice` without an explicit synchronize: cudarc's launch always records the unified slice's event and `as_slice` waits for it
//! expect: none

use std::error::Error;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;

const MINMAX_SRC: &str = r#"
extern "C" __global__ void column_minmax(const float* m, float* out, unsigned rows, unsigned cols) {
    unsigned c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    float lo = m[c], hi = m[c];
    for (unsigned r = 1; r < rows; ++r) { float v = m[r * cols + c]; lo = fminf(lo, v); hi = fmaxf(hi, v); }
    out[2 * c] = lo;
    out[2 * c + 1] = hi;
}
"#;

pub struct ColumnStats {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    out: UnifiedSlice<f32>,
    cols: usize,
}

impl ColumnStats {
    pub fn new(ctx: &Arc<CudaContext>, cols: usize) -> Result<Self, Box<dyn Error>> {
        Ok(Self {
            stream: ctx.default_stream(),
            kernel: ctx.load_module(compile_ptx(MINMAX_SRC)?)?.load_function("column_minmax")?,
            out: unsafe { ctx.alloc_unified::<f32>(2 * cols, true)? },
            cols,
        })
    }

    /// (min, max) of every column of the row-major `rows x cols` device matrix.
    pub fn compute(&mut self, matrix: &CudaSlice<f32>, rows: usize) -> Result<Vec<(f32, f32)>, Box<dyn Error>> {
        let (r, c) = (rows as u32, self.cols as u32);
        unsafe {
            self.stream
                .launch_builder(&self.kernel)
                .arg(matrix)
                .arg(&mut self.out)
                .arg(&r)
                .arg(&c)
                .launch(LaunchConfig::for_num_elems(c))?;
        }
        // The launch recorded `out`'s event on the stream; as_slice synchronizes on it.
        let out = self.out.as_slice()?;
        Ok(out.chunks_exact(2).map(|p| (p[0], p[1])).collect())
    }
}

pub fn normalize_plan(ctx: &Arc<CudaContext>, matrix: &CudaSlice<f32>, rows: usize, cols: usize) -> Result<Vec<(f32, f32)>, Box<dyn Error>> {
    let mut stats = ColumnStats::new(ctx, cols)?;
    let ranges = stats.compute(matrix, rows)?;
    Ok(ranges.into_iter().map(|(lo, hi)| (lo, if hi > lo { 1.0 / (hi - lo) } else { 0.0 })).collect())
}
