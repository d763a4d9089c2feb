//! Smoothed-particle density pass recorded as a graph, one node per kernel radius.
//!
//! `SphDensity::build` creates its own non-blocking stream, fills a pinned table
//! of kernel coefficients and, while it records the passes, pushes each radius'
//! coefficients to the device with a plain blocking copy right before the pass
//! that reads them. The copies are not part of the graph: they run once, at
//! build time, and every replay reads the uploaded tables.

use std::error::Error;
use std::ptr;
use std::sync::Arc;

use cudarc::driver::{
    result, sys, CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig,
    PinnedHostSlice, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

type Res<T> = Result<T, Box<dyn Error>>;

const TAPS: usize = 8;

const SPH_SRC: &str = r#"
extern "C" __global__ void scatter_cloud(float* pos, int n, float extent) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned h = (unsigned)i * 747796405u + 2891336453u;
    pos[2 * i + 0] = (h & 0xffff) / 65535.0f * extent;
    pos[2 * i + 1] = (h >> 16) / 65535.0f * extent;
}

// density[i] += sum_j W(|xi - xj|), W tabulated at TAPS points over [0, h)
extern "C" __global__ void density_pass(const float* pos, const float* taps, float* density,
                                        int n, float h, int ntaps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float xi = pos[2 * i], yi = pos[2 * i + 1];
    float rho = 0.0f;
    for (int j = 0; j < n; ++j) {
        float dx = pos[2 * j] - xi, dy = pos[2 * j + 1] - yi;
        float r = sqrtf(dx * dx + dy * dy);
        if (r < h) rho += taps[min((int)(r / h * ntaps), ntaps - 1)];
    }
    density[i] += rho;
}
"#;

struct OwnedStream(sys::CUstream);

impl Drop for OwnedStream {
    fn drop(&mut self) {
        let _ = unsafe { sys::cuStreamDestroy_v2(self.0) };
    }
}

struct DeviceTable(sys::CUdeviceptr);

impl Drop for DeviceTable {
    fn drop(&mut self) {
        let _ = unsafe { sys::cuMemFree_v2(self.0) };
    }
}

pub struct SphDensity {
    // Field order is drop order: graph, memory, then the stream.
    exec: sys::CUgraphExec,
    graph: sys::CUgraph,
    density: CudaSlice<f32>,
    pos: CudaSlice<f32>,
    tables: Vec<DeviceTable>,
    coeffs: PinnedHostSlice<f32>,
    stream: Arc<CudaStream>,
    raw: sys::CUstream,
    n: usize,
    _owner: OwnedStream,
}

fn wendland_taps(h: f32) -> [f32; TAPS] {
    let mut taps = [0.0f32; TAPS];
    for (k, t) in taps.iter_mut().enumerate() {
        let q = (k as f32 + 0.5) / TAPS as f32;
        let w = (1.0 - q).powi(4) * (1.0 + 4.0 * q);
        *t = 7.0 / (4.0 * std::f32::consts::PI * h * h) * w;
    }
    taps
}

impl SphDensity {
    pub fn build(ctx: &Arc<CudaContext>, n: usize, extent: f32, radii: &[f32]) -> Res<Self> {
        let mut raw: sys::CUstream = ptr::null_mut();
        unsafe { sys::cuStreamCreate(&mut raw, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) }
            .result()?;
        let owner = OwnedStream(raw);
        let stream = unsafe { ctx.wrap_borrowed_stream(raw) };
        let module = ctx.load_module(compile_ptx(SPH_SRC)?)?;
        let scatter = module.load_function("scatter_cloud")?;
        let pass = module.load_function("density_pass")?;

        let mut solver = Self {
            exec: ptr::null_mut(),
            graph: ptr::null_mut(),
            density: stream.alloc_zeros::<f32>(n)?,
            pos: unsafe { stream.alloc::<f32>(2 * n)? },
            tables: Vec::with_capacity(radii.len()),
            coeffs: unsafe { ctx.alloc_pinned_with_flags::<f32>(TAPS * radii.len(), 0)? },
            stream,
            raw,
            n,
            _owner: owner,
        };

        let count = n as i32;
        unsafe {
            solver
                .stream
                .launch_builder(&scatter)
                .arg(&mut solver.pos)
                .arg(&count)
                .arg(&extent)
                .launch(LaunchConfig::for_num_elems(n as u32))?;
        }
        {
            let host = solver.coeffs.as_mut_slice()?;
            for (r, &h) in radii.iter().enumerate() {
                host[r * TAPS..(r + 1) * TAPS].copy_from_slice(&wendland_taps(h));
            }
        }
        for _ in radii {
            let mut d: sys::CUdeviceptr = 0;
            unsafe { sys::cuMemAlloc_v2(&mut d, TAPS * std::mem::size_of::<f32>()) }.result()?;
            solver.tables.push(DeviceTable(d));
        }

        let coeff_ptr = solver.coeffs.as_ptr()?;
        let ntaps = TAPS as i32;
        let cfg = LaunchConfig::for_num_elems(n as u32);
        unsafe {
            result::stream::begin_capture(raw, sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
        }
        for (r, &h) in radii.iter().enumerate() {
            let table = solver.tables[r].0;
            unsafe {
                sys::cuMemcpyHtoD_v2(
                    table,
                    coeff_ptr.add(r * TAPS).cast(),
                    TAPS * std::mem::size_of::<f32>(),
                )
                .result()?;
                solver
                    .stream
                    .launch_builder(&pass)
                    .arg(&solver.pos)
                    .arg(&table)
                    .arg(&mut solver.density)
                    .arg(&count)
                    .arg(&h)
                    .arg(&ntaps)
                    .launch(cfg)?;
            }
        }
        unsafe {
            solver.graph = result::stream::end_capture(raw)?;
            solver.exec = result::graph::instantiate(solver.graph, sys::CUgraphInstantiate_flags(0))?;
        }
        Ok(solver)
    }

    /// Accumulates `sweeps` density evaluations and returns the mean per particle.
    pub fn mean_density(&mut self, sweeps: usize) -> Res<Vec<f32>> {
        for _ in 0..sweeps {
            unsafe { result::graph::launch(self.exec, self.raw)? };
        }
        let mut out = unsafe { self.stream.context().alloc_pinned_with_flags::<f32>(self.n, 0)? };
        self.stream.memcpy_dtoh(&self.density, &mut out)?;
        self.stream.synchronize()?;
        Ok(out.as_slice()?.iter().map(|&v| v / sweeps.max(1) as f32).collect())
    }
}

impl Drop for SphDensity {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.raw);
            if !self.exec.is_null() {
                let _ = result::graph::exec_destroy(self.exec);
            }
            if !self.graph.is_null() {
                let _ = result::graph::destroy(self.graph);
            }
        }
        // The buffers drop after this body, the stream last of all.
    }
}

pub fn density_profile(n: usize, radii: &[f32]) -> Res<Vec<f32>> {
    let ctx = CudaContext::new(0)?;
    let mut solver = SphDensity::build(&ctx, n, 10.0, radii)?;
    solver.mean_density(4)
}
