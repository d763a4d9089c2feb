//! case: a kernel writes per-item status flags straight into device-mapped pinned host memory (runtime layer, not write-combined) through its mapped device pointer; the host reads the flags through the buffer's host side after synchronizing the stream
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, PinnedFlags, Result, Stream};

const VALIDATE_SRC: &str = r#"
extern "C" __global__ void validate_rows(const float* rows, unsigned char* ok, unsigned nrows, unsigned width, float limit) {
    unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= nrows) return;
    unsigned char good = 1;
    for (unsigned c = 0; c < width; ++c) {
        float v = rows[r * width + c];
        if (!(v == v) || fabsf(v) > limit) { good = 0; break; }
    }
    ok[r] = good;
}
"#;

pub struct RowValidator {
    stream: Stream,
    kernel: Kernel,
    flags: PinnedBuffer<u8>,
}

impl RowValidator {
    pub fn new(ctx: &Context, max_rows: usize) -> Result<Self> {
        let flags = ctx.alloc_pinned_with_flags::<u8>(
            max_rows,
            PinnedFlags { device_mapped: true, ..PinnedFlags::default() },
        )?;
        Ok(Self { stream: ctx.new_stream()?, kernel: ctx.load_cuda(VALIDATE_SRC)?.function("validate_rows")?, flags })
    }

    /// Indices of the rows of `rows` (device, `nrows x width`) holding a NaN or a value above `limit`.
    pub fn bad_rows(&mut self, rows: &DeviceBuffer<f32>, width: u32, limit: f32) -> Result<Vec<usize>> {
        let nrows = (rows.len() as u32) / width;
        assert!(nrows as usize <= self.flags.len());
        let ok_dev = self.flags.mapped_device_ptr()?;
        unsafe {
            self.stream
                .launch(&self.kernel, LaunchConfig::for_num_elems(nrows), &[rows, &ok_dev, &nrows, &width, &limit])?
        };
        self.stream.synchronize()?;
        Ok(self.flags[..nrows as usize]
            .iter()
            .enumerate()
            .filter_map(|(i, &ok)| (ok == 0).then_some(i))
            .collect())
    }
}
