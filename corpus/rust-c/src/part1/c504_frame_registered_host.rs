//! case: the same frame conversion with the runtime layer, the decoder's buffers page-locked in place with `register_host`: async copies from and to registered memory, one stream synchronize before the host reads the result
//! expect: none
use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, Stream};

const GRAY_SRC: &str = r#"
extern "C" __global__ void rgb_to_gray(const unsigned char* rgb, unsigned char* gray, int pixels) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < pixels) {
        float y = 0.299f * rgb[3 * i] + 0.587f * rgb[3 * i + 1] + 0.114f * rgb[3 * i + 2];
        gray[i] = (unsigned char)fminf(y, 255.0f);
    }
}
"#;

pub struct RegisteredGray {
    ctx: Context,
    stream: Stream,
    kernel: Kernel,
    d_rgb: DeviceBuffer<u8>,
    d_gray: DeviceBuffer<u8>,
}

impl RegisteredGray {
    pub fn new(pixels: usize) -> cuda_lint_runtime::Result<Self> {
        let ctx = Context::new(0)?;
        let stream = ctx.new_stream()?;
        let kernel = ctx.load_cuda(GRAY_SRC)?.function("rgb_to_gray")?;
        let d_rgb = ctx.alloc::<u8>(pixels * 3)?;
        let d_gray = ctx.alloc::<u8>(pixels)?;
        Ok(Self { ctx, stream, kernel, d_rgb, d_gray })
    }

    /// `rgb` and `gray` are the decoder's own long-lived buffers; they are pinned for the
    /// duration of the call and unpinned when the guards drop, after the synchronize.
    pub fn convert_into(&mut self, rgb: &mut [u8], gray: &mut [u8]) -> cuda_lint_runtime::Result<u64> {
        let pixels = gray.len();
        let rgb_pinned = self.ctx.register_host(rgb)?;
        let mut gray_pinned = self.ctx.register_host(gray)?;
        unsafe {
            self.stream.copy_htod_async(&mut self.d_rgb, &rgb_pinned[..])?;
            self.stream.launch(
                &self.kernel,
                LaunchConfig::for_num_elems(pixels as u32),
                &[&self.d_rgb, &self.d_gray, &(pixels as i32)],
            )?;
            self.stream.copy_dtoh_async(&mut gray_pinned[..], &self.d_gray)?;
        }
        self.stream.synchronize()?;
        let histogram_peak = gray_pinned
            .iter()
            .fold([0u64; 256], |mut h, &p| {
                h[p as usize] += 1;
                h
            })
            .into_iter()
            .max()
            .unwrap_or(0);
        Ok(histogram_peak)
    }
}
