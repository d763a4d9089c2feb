//! case: ground-segmentation stage page-locks the sweep's own Vec with `register_host` before the async upload and the label Vec before the async readback, synchronizes before the registrations drop, then reads the labels; every async copy is from or to registered (pinned) memory
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, Result, Stream};

const GROUND_SRC: &str = r#"
extern "C" __global__ void ground_seg(const float* xyz, unsigned char* label, int n, float z_thresh) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) label[i] = xyz[3 * i + 2] < z_thresh ? 1 : 0;
}
"#;

pub struct GroundSegmenter {
    ctx: Context,
    stream: Stream,
    kernel: Kernel,
    z_thresh: f32,
}

pub struct Labelled {
    pub xyz: Vec<f32>,
    pub ground: Vec<u8>,
}

impl GroundSegmenter {
    pub fn new(ctx: &Context, z_thresh: f32) -> Result<Self> {
        let module = ctx.load_cuda(GROUND_SRC)?;
        Ok(Self { ctx: ctx.clone(), stream: ctx.new_stream()?, kernel: module.function("ground_seg")?, z_thresh })
    }

    pub fn segment(&self, mut xyz: Vec<f32>) -> Result<Labelled> {
        let n = xyz.len() / 3;
        let mut ground = vec![0u8; n];
        let mut d_xyz: DeviceBuffer<f32> = self.ctx.alloc(xyz.len())?;
        let mut d_label: DeviceBuffer<u8> = self.ctx.alloc(n)?;
        {
            let pinned_in = self.ctx.register_host(&mut xyz[..])?;
            let mut pinned_out = self.ctx.register_host(&mut ground[..])?;
            unsafe {
                self.stream.copy_htod_async(&mut d_xyz, &pinned_in)?;
                self.stream.launch(
                    &self.kernel,
                    LaunchConfig::for_num_elems(n as u32),
                    &[&d_xyz, &d_label, &(n as i32), &self.z_thresh],
                )?;
                self.stream.copy_dtoh_async(&mut pinned_out, &d_label)?;
            }
            // Both registrations are unregistered when this block ends: wait first.
            self.stream.synchronize()?;
        }
        let ground_count = ground.iter().filter(|&&g| g == 1).count();
        log::debug(ground_count, n);
        Ok(Labelled { xyz, ground })
    }
}

mod log {
    pub fn debug(ground: usize, total: usize) {
        if total > 0 {
            eprintln!("ground points: {ground}/{total} ({:.1}%)", 100.0 * ground as f64 / total as f64);
        }
    }
}
