//! case: option-greeks service reads its sensitivities back into cudarc's `alloc_pinned` buffer (write-combined) on the default stream; the delta-only fast path returns `as_slice()?[0]` before the stream is synchronized, and even the full path then reads write-combined memory
//! expect: missing_sync=1, write_combined_host_read=1

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const GREEKS_SRC: &str = r#"
extern "C" __global__ void bump_greeks(const float* spot, const float* vol, float* out, int n, float h) {
    __shared__ float acc[4][128];
    int i = threadIdx.x;
    float d = 0, g = 0, v = 0, t = 0;
    for (int k = i; k < n; k += blockDim.x) {
        float s = spot[k], sg = vol[k];
        float up = fmaxf(s + h - 100.0f, 0.0f), mid = fmaxf(s - 100.0f, 0.0f), dn = fmaxf(s - h - 100.0f, 0.0f);
        d += (up - dn) / (2.0f * h);
        g += (up - 2.0f * mid + dn) / (h * h);
        v += mid * sg;
        t -= 0.5f * sg * sg * s * s * 0.01f;
    }
    acc[0][i] = d; acc[1][i] = g; acc[2][i] = v; acc[3][i] = t;
    __syncthreads();
    if (i < 4) { float s = 0; for (int k = 0; k < blockDim.x; ++k) s += acc[i][k]; out[i] = s / n; }
}
"#;

#[derive(Debug, Clone, Copy, Default)]
pub struct Greeks {
    pub delta: f32,
    pub gamma: f32,
    pub vega: f32,
    pub theta: f32,
}

pub struct GreeksConfig {
    pub delta_only: bool,
    pub bump: f32,
}

pub struct GreeksService {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    out: CudaSlice<f32>,
    readback: PinnedHostSlice<f32>,
    pub cfg: GreeksConfig,
}

impl GreeksService {
    pub fn new(ctx: &Arc<CudaContext>, cfg: GreeksConfig) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.default_stream();
        Ok(Self {
            kernel: ctx.load_module(compile_ptx(GREEKS_SRC)?)?.load_function("bump_greeks")?,
            out: stream.alloc_zeros(4)?,
            readback: unsafe { ctx.alloc_pinned::<f32>(4)? },
            stream,
            cfg,
        })
    }

    pub fn compute(&mut self, spot: &CudaSlice<f32>, vol: &CudaSlice<f32>, n: usize) -> Result<Greeks, DriverError> {
        let (n_i, h) = (n as i32, self.cfg.bump);
        unsafe {
            self.stream
                .launch_builder(&self.kernel)
                .arg(spot)
                .arg(vol)
                .arg(&mut self.out)
                .arg(&n_i)
                .arg(&h)
                .launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (128, 1, 1), shared_mem_bytes: 0 })?;
        }
        self.stream.memcpy_dtoh(&self.out, &mut self.readback)?;
        if self.cfg.delta_only {
            return Ok(Greeks { delta: self.readback.as_slice()?[0], ..Greeks::default() }); // EXPECT: missing_sync, write_combined_host_read
        }
        self.stream.synchronize()?;
        let g = self.readback.as_slice()?;
        Ok(Greeks { delta: g[0], gamma: g[1], vega: g[2], theta: g[3] })
    }
}
