//! case: near-miss of a host dereference of device memory: a validation kernel writes per-row error flags straight into device-mapped pinned memory (zero-copy, through `mapped_device_ptr`), and the host reads the flags through the pinned buffer after synchronizing
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, DevicePtr, Kernel, LaunchConfig, PinnedBuffer, PinnedFlags, Result, Stream};

const VALIDATE_SRC: &str = r#"
extern "C" __global__ void validate_rows(const float* x, int cols, int rows, unsigned char* bad_row) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    unsigned char bad = 0;
    for (int c = 0; c < cols; ++c) if (!isfinite(x[r * cols + c])) bad = 1;
    bad_row[r] = bad;
}
"#;

pub struct RowValidator {
    stream: Stream,
    kernel: Kernel,
    flags: PinnedBuffer<u8>,
    flags_dev: DevicePtr,
}

impl RowValidator {
    pub fn new(ctx: &Context, max_rows: usize) -> Result<Self> {
        let flags = ctx.alloc_pinned_with_flags::<u8>(max_rows, PinnedFlags { device_mapped: true, ..PinnedFlags::default() })?;
        let flags_dev = flags.mapped_device_ptr()?;
        Ok(Self { stream: ctx.new_stream()?, kernel: ctx.load_cuda(VALIDATE_SRC)?.function("validate_rows")?, flags, flags_dev })
    }

    /// Indices of the rows of `x` (`rows x cols`) that contain NaN or infinity.
    pub fn bad_rows(&mut self, x: &DeviceBuffer<f32>, cols: i32) -> Result<Vec<usize>> {
        let rows = (x.len() as i32) / cols;
        assert!(rows as usize <= self.flags.len());
        unsafe {
            self.stream.launch(&self.kernel, LaunchConfig::for_num_elems(rows as u32), &[x, &cols, &rows, &self.flags_dev])?;
        }
        self.stream.synchronize()?;
        Ok(self.flags[..rows as usize].iter().enumerate().filter(|&(_, &b)| b != 0).map(|(r, _)| r).collect())
    }
}
