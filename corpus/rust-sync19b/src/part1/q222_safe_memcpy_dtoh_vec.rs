//! case: cudarc's safe `memcpy_dtoh` into a reused `Vec`, read right after the call (cudarc's contract, LINTS.md Known problems), then the kernel's input is dropped
//! expect: pageable_async_copy=2

use std::error::Error;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void row_max(const float* m, float* out, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float best = m[r * cols];
    for (int c = 1; c < cols; ++c) best = fmaxf(best, m[r * cols + c]);
    out[r] = best;
}
"#;

pub struct RowMax {
    stream: std::sync::Arc<CudaStream>,
    func: cudarc::driver::CudaFunction,
    out: CudaSlice<f32>,
    host: Vec<f32>,
}

impl RowMax {
    pub fn new(max_rows: usize) -> Result<Self, Box<dyn Error>> {
        let ctx = CudaContext::new(0)?;
        let stream = ctx.default_stream();
        let func = ctx.load_module(compile_ptx(SRC)?)?.load_function("row_max")?;
        let out = stream.alloc_zeros::<f32>(max_rows)?;
        Ok(Self { stream, func, out, host: vec![0.0; max_rows] })
    }

    /// Row maxima of a `rows x cols` matrix; returns the largest of them too.
    pub fn run(&mut self, m: &[f32], rows: usize, cols: usize) -> Result<(Vec<f32>, f32), DriverError> {
        assert!(cols > 0 && m.len() == rows * cols && rows <= self.host.len());
        let mut d_m = self.stream.alloc_zeros::<f32>(m.len())?;
        self.stream.memcpy_htod(m, &mut d_m)?; // EXPECT: pageable_async_copy
        let (r, c) = (rows as i32, cols as i32);
        let mut launch = self.stream.launch_builder(&self.func);
        launch.arg(&d_m).arg(&mut self.out).arg(&r).arg(&c);
        unsafe { launch.launch(LaunchConfig::for_num_elems(rows as u32))? };

        self.stream.memcpy_dtoh(&self.out, &mut self.host)?; // EXPECT: pageable_async_copy
        let maxima = self.host[..rows].to_vec();
        let top = maxima.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        drop(d_m);
        Ok((maxima, top))
    }
}
