//! case: read-mapper minimizer sketching on the default stream with reusable page-locked staging (allocated without the write-combined flag); the host waits for the stream before reading the sketch, so nothing is wrong
//! expect: none

use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice,
    PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

const SKETCH_SRC: &str = r#"
__device__ unsigned long long mix64(unsigned long long x) {
    x ^= x >> 33; x *= 0xff51afd7ed558ccdULL; x ^= x >> 33; return x;
}
extern "C" __global__ void window_minimizers(const unsigned char* bases, int n, int k, int w,
                                             unsigned long long* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i + w + k - 1 > n) return;
    unsigned long long best = ~0ULL;
    for (int s = i; s < i + w; ++s) {
        unsigned long long code = 0;
        for (int j = 0; j < k; ++j) code = (code << 2) | (bases[s + j] & 3);
        unsigned long long h = mix64(code);
        if (h < best) best = h;
    }
    out[i] = best;
}
"#;

pub struct Sketcher {
    stream: Arc<CudaStream>,
    func: CudaFunction,
    staging_in: PinnedHostSlice<u8>,
    staging_out: PinnedHostSlice<u64>,
    dev_in: CudaSlice<u8>,
    dev_out: CudaSlice<u64>,
    k: i32,
    w: i32,
}

impl Sketcher {
    pub fn new(ctx: &Arc<CudaContext>, max_len: usize, k: i32, w: i32) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.default_stream();
        let func = ctx.load_module(compile_ptx(SKETCH_SRC)?)?.load_function("window_minimizers")?;
        // flags 0: plain page-locked memory, cached by the CPU (the sketch is read back)
        let staging_in = unsafe { ctx.alloc_pinned_with_flags::<u8>(max_len, 0)? };
        let staging_out = unsafe { ctx.alloc_pinned_with_flags::<u64>(max_len, 0)? };
        let dev_in = stream.alloc_zeros::<u8>(max_len)?;
        let dev_out = stream.alloc_zeros::<u64>(max_len)?;
        Ok(Sketcher { stream, func, staging_in, staging_out, dev_in, dev_out, k, w })
    }

    pub fn sketch(&mut self, read: &[u8]) -> Result<Vec<u64>, DriverError> {
        let n = read.len().min(self.staging_in.len());
        let windows = n.saturating_sub((self.w + self.k - 1) as usize) + 1;
        self.staging_in.as_mut_slice()?[..n].copy_from_slice(&read[..n]);
        self.stream.memcpy_htod(&self.staging_in, &mut self.dev_in)?;
        let n_i32 = n as i32;
        let mut launch = self.stream.launch_builder(&self.func);
        launch.arg(&self.dev_in).arg(&n_i32).arg(&self.k).arg(&self.w).arg(&mut self.dev_out);
        unsafe { launch.launch(LaunchConfig::for_num_elems(windows as u32)) }?;
        self.stream.memcpy_dtoh(&self.dev_out, &mut self.staging_out)?;
        // One stream, so cudarc records no event on the pinned slice: wait here.
        self.stream.synchronize()?;
        let out = self.staging_out.as_slice()?;
        let mut sketch: Vec<u64> = out[..windows].to_vec();
        sketch.dedup();
        Ok(sketch)
    }
}
