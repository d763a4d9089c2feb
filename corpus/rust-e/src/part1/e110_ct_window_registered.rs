//! case: CT slice windowing; a whole volume held in a Vec<i16> is page-locked in place with `register_host` for the batch, slices go up and come back through the registered memory asynchronously, and the stream is synchronized before the host reads the slices and before the registration ends
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, Result, Stream};

const WINDOW_SRC: &str = r#"
extern "C" __global__ void hu_window(short* slice, int n, int center, int width) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int lo = center - width / 2, hi = center + width / 2;
    int v = slice[i];
    v = v < lo ? lo : (v > hi ? hi : v);
    slice[i] = (short)(((v - lo) * 4095) / width);
}
"#;

pub struct Volume {
    pub dims: (usize, usize, usize),
    pub voxels: Vec<i16>,
}

pub struct Windowing {
    ctx: Context,
    stream: Stream,
    kernel: Kernel,
    dev_slices: Vec<DeviceBuffer<i16>>,
}

impl Windowing {
    pub fn new(ctx: Context, slice_len: usize, in_flight: usize) -> Result<Self> {
        let stream = ctx.new_stream()?;
        let kernel = ctx.load_cuda(WINDOW_SRC)?.function("hu_window")?;
        let dev_slices = (0..in_flight).map(|_| ctx.alloc::<i16>(slice_len)).collect::<Result<Vec<_>>>()?;
        Ok(Windowing { ctx, stream, kernel, dev_slices })
    }

    /// Applies a soft-tissue window to every slice in place; returns the mean windowed value.
    pub fn apply(&mut self, vol: &mut Volume, center: i32, width: i32) -> Result<f64> {
        let (nx, ny, _) = vol.dims;
        let slice_len = nx * ny;
        let n = slice_len as i32;
        let mut pinned = self.ctx.register_host(&mut vol.voxels)?;
        let cfg = LaunchConfig::for_num_elems(slice_len as u32);
        let ring = self.dev_slices.len();
        for (z, chunk) in pinned.chunks_mut(slice_len).enumerate() {
            if z >= ring {
                // the device slice we are about to reuse must be free again
                self.stream.synchronize()?;
            }
            let dev = &mut self.dev_slices[z % ring];
            unsafe {
                self.stream.copy_htod_async(dev, chunk)?;
                self.stream.launch(&self.kernel, cfg, &[&*dev, &n, &center, &width])?;
                self.stream.copy_dtoh_async(chunk, dev)?;
            }
        }
        self.stream.synchronize()?;
        let mean = pinned.iter().map(|&v| v as f64).sum::<f64>() / pinned.len().max(1) as f64;
        drop(pinned); // cuMemHostUnregister, after the stream is idle
        Ok(mean)
    }
}
