//! case: order-book exposure engine with a dedicated non-blocking stream (cudarc in multi-stream mode, event tracking on); the pinned position staging is rewritten and the pinned exposure readback read through `as_mut_slice`/`as_slice` with no explicit sync, which is correct because cudarc records and waits for the slices' events
//! expect: none

use std::collections::HashMap;
use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

const EXPOSURE_SRC: &str = r#"
extern "C" __global__ void exposure(const float* qty, const float* px, const float* beta, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = qty[i] * px[i] * beta[i];
}
"#;

#[derive(Clone, Copy, Debug)]
pub struct Position {
    pub instrument: u32,
    pub qty: f32,
    pub mark: f32,
    pub beta: f32,
}

pub struct ExposureEngine {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    staging: PinnedHostSlice<f32>,
    readback: PinnedHostSlice<f32>,
    qty: CudaSlice<f32>,
    px: CudaSlice<f32>,
    beta: CudaSlice<f32>,
    out: CudaSlice<f32>,
    capacity: usize,
}

impl ExposureEngine {
    pub fn new(ctx: Arc<CudaContext>, capacity: usize) -> Result<Self, Box<dyn std::error::Error>> {
        // A stream of our own: cudarc switches the context to multi-stream mode and starts
        // tracking reads and writes of every slice with events.
        let stream = ctx.new_stream()?;
        let kernel = ctx.load_module(compile_ptx(EXPOSURE_SRC)?)?.load_function("exposure")?;
        let staging = unsafe { ctx.alloc_pinned_with_flags::<f32>(3 * capacity, 0)? };
        let readback = unsafe { ctx.alloc_pinned_with_flags::<f32>(capacity, 0)? };
        let qty = stream.alloc_zeros::<f32>(capacity)?;
        let px = stream.alloc_zeros::<f32>(capacity)?;
        let beta = stream.alloc_zeros::<f32>(capacity)?;
        let out = stream.alloc_zeros::<f32>(capacity)?;
        Ok(Self { ctx, stream, kernel, staging, readback, qty, px, beta, out, capacity })
    }

    fn stage(&mut self, book: &[Position]) -> Result<usize, DriverError> {
        let n = book.len().min(self.capacity);
        let cap = self.capacity;
        // Waits on the staging slice's event: the previous tick's uploads are done.
        let host = self.staging.as_mut_slice()?;
        for (i, p) in book.iter().take(n).enumerate() {
            host[i] = p.qty;
            host[cap + i] = p.mark;
            host[2 * cap + i] = p.beta;
        }
        Ok(n)
    }

    pub fn tick(&mut self, book: &[Position]) -> Result<HashMap<u32, f32>, DriverError> {
        let n = self.stage(book)?;
        let cap = self.capacity;
        let staged = &self.staging;
        // memcpy_htod takes whole host slices; split the staging into three pinned uploads by
        // copying the full block into a device scratch and then slicing on device.
        let mut scratch = self.stream.alloc_zeros::<f32>(3 * cap)?;
        self.stream.memcpy_htod(staged, &mut scratch)?;
        self.stream.memcpy_dtod(&scratch.slice(0..cap), &mut self.qty)?;
        self.stream.memcpy_dtod(&scratch.slice(cap..2 * cap), &mut self.px)?;
        self.stream.memcpy_dtod(&scratch.slice(2 * cap..3 * cap), &mut self.beta)?;

        let n_i = n as i32;
        unsafe {
            self.stream
                .launch_builder(&self.kernel)
                .arg(&self.qty)
                .arg(&self.px)
                .arg(&self.beta)
                .arg(&mut self.out)
                .arg(&n_i)
                .launch(LaunchConfig::for_num_elems(n as u32))?;
        }
        self.stream.memcpy_dtoh(&self.out, &mut self.readback)?;

        // as_slice synchronizes the event recorded after the copy into `readback`.
        let exposures = self.readback.as_slice()?;
        let mut by_instrument = HashMap::new();
        for (p, e) in book.iter().zip(exposures.iter()).take(n) {
            *by_instrument.entry(p.instrument).or_insert(0.0) += *e;
        }
        Ok(by_instrument)
    }
}
