use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

use super::workspace::Workspace;

type BoxResult<T> = Result<T, Box<dyn std::error::Error>>;

const PANEL_SRC: &str = r#"
// Rank-1 Schur update of a column-major panel with the first column as pivot column,
// recording per-column max |a| before (scratch) and after (growth).
extern "C" __global__ void schur_update(double* a, double* scratch, double* growth, int rows, int cols) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= cols) return;
    double before = 0.0, after = 0.0, piv = a[0];
    for (int i = 0; i < rows; ++i) before = fmax(before, fabs(a[j * rows + i]));
    scratch[j] = before;
    if (j > 0 && piv != 0.0) {
        double l = a[j * rows] / piv;
        for (int i = 1; i < rows; ++i) a[j * rows + i] -= l * a[i];
    }
    for (int i = 0; i < rows; ++i) after = fmax(after, fabs(a[j * rows + i]));
    growth[j] = after / fmax(scratch[j], 1e-300);
}
"#;

pub struct PanelFactor {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    d_panel: CudaSlice<f64>,
    d_growth: CudaSlice<f64>,
    h_panel: PinnedHostSlice<f64>,
    h_growth: PinnedHostSlice<f64>,
    workspace: Workspace,
    rows: usize,
    cols: usize,
}

impl PanelFactor {
    pub fn new(ctx: &Arc<CudaContext>, rows: usize, cols: usize) -> BoxResult<Self> {
        let stream = ctx.new_stream()?;
        Ok(Self {
            kernel: ctx.load_module(compile_ptx(PANEL_SRC)?)?.load_function("schur_update")?,
            d_panel: stream.alloc_zeros::<f64>(rows * cols)?,
            d_growth: stream.alloc_zeros::<f64>(cols)?,
            h_panel: unsafe { ctx.alloc_pinned_with_flags::<f64>(rows * cols, 0)? },
            h_growth: unsafe { ctx.alloc_pinned_with_flags::<f64>(cols, 0)? },
            workspace: Workspace::Idle,
            stream,
            rows,
            cols,
        })
    }

    pub fn load(&mut self, panel: &[f64]) -> BoxResult<()> {
        self.h_panel.as_mut_slice()?.copy_from_slice(panel);
        self.stream.memcpy_htod(&self.h_panel, &mut self.d_panel)?;
        Ok(())
    }

    pub fn update_and_growth(&mut self) -> BoxResult<f64> {
        let (rows, cols) = (self.rows as i32, self.cols as i32);
        let scratch = self.workspace.activate(&self.stream, self.cols)?;
        let mut launch = self.stream.launch_builder(&self.kernel);
        launch.arg(&mut self.d_panel).arg(scratch).arg(&mut self.d_growth).arg(&rows).arg(&cols);
        unsafe { launch.launch(LaunchConfig::for_num_elems(self.cols as u32)) }?;

        // Scratch is dead once the kernel is enqueued; its free is ordered after the kernel.
        drop(self.workspace.release());

        self.stream.memcpy_dtoh(&self.d_growth, &mut self.h_growth)?;
        self.stream.synchronize()?;
        Ok(self.h_growth.as_slice()?.iter().copied().fold(1.0, f64::max))
    }
}
