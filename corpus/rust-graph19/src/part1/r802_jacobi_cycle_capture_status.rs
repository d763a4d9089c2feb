//! Jacobi smoother for a 1-D Poisson problem: a cycle of sweeps plus the
//! residual norm is captured once and replayed until the residual is small.
//! The stream is synchronized before the capture starts and after each replay;
//! inside the capture the debug build only asks whether the stream is still
//! capturing (`cuStreamIsCapturing`), which capture permits.

use cudarc::driver::{sys, CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const JACOBI_KERNELS: &str = r#"
extern "C" __global__ void jacobi_sweep(const float *u, float *u_new, const float *f,
                                        float h2, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= 0 || i >= n - 1) {
        if (i == 0 || i == n - 1) u_new[i] = 0.0f;   // Dirichlet boundary
        return;
    }
    u_new[i] = 0.5f * (u[i - 1] + u[i + 1] + h2 * f[i]);
}

extern "C" __global__ void residual_norm_sq(const float *u, const float *f, float inv_h2,
                                            float *norm_sq, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= 0 || i >= n - 1) return;
    float r = f[i] + (u[i - 1] - 2.0f * u[i] + u[i + 1]) * inv_h2;
    atomicAdd(norm_sq, r * r);
}
"#;

pub fn smooth_poisson(n: usize, sweeps_per_cycle: usize, max_cycles: usize, tol: f32) -> Result<(Vec<f32>, f32)> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(JACOBI_KERNELS)?)?;
    let sweep = module.load_function("jacobi_sweep")?;
    let residual = module.load_function("residual_norm_sq")?;

    let h = 1.0f32 / (n as f32 - 1.0);
    let h2 = h * h;
    let inv_h2 = 1.0 / h2;
    let len = n as i32;

    let mut h_f = unsafe { ctx.alloc_pinned::<f32>(n)? };
    for (i, f) in h_f.as_mut_slice()?.iter_mut().enumerate() {
        let x = i as f32 * h;
        *f = (std::f32::consts::PI * x).sin();
    }
    let mut h_u = unsafe { ctx.alloc_pinned_with_flags::<f32>(n, 0)? };
    let mut h_norm = unsafe { ctx.alloc_pinned_with_flags::<f32>(1, 0)? };

    let mut d_u = stream.alloc_zeros::<f32>(n)?;
    let mut d_tmp = stream.alloc_zeros::<f32>(n)?;
    let mut d_f = stream.alloc_zeros::<f32>(n)?;
    let mut d_norm = stream.alloc_zeros::<f32>(1)?;
    stream.memcpy_htod(&h_f, &mut d_f)?;
    // Uploads and zeroing finish before the stream starts capturing.
    stream.synchronize()?;

    let cfg = LaunchConfig::for_num_elems(n as u32);
    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)?;
    for _ in 0..sweeps_per_cycle {
        let mut a = stream.launch_builder(&sweep);
        a.arg(&d_u).arg(&mut d_tmp).arg(&d_f).arg(&h2).arg(&len);
        unsafe { a.launch(cfg) }?;
        let mut b = stream.launch_builder(&sweep);
        b.arg(&d_tmp).arg(&mut d_u).arg(&d_f).arg(&h2).arg(&len);
        unsafe { b.launch(cfg) }?;
    }
    if cfg!(debug_assertions) {
        let status = stream.capture_status()?;
        debug_assert_eq!(status, sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_ACTIVE);
    }
    stream.memset_zeros(&mut d_norm)?;
    let mut r = stream.launch_builder(&residual);
    r.arg(&d_u).arg(&d_f).arg(&inv_h2).arg(&mut d_norm).arg(&len);
    unsafe { r.launch(cfg) }?;
    stream.memcpy_dtoh(&d_norm, &mut h_norm)?;
    let cycle = stream
        .end_capture(sys::CUgraphInstantiate_flags(0))?
        .ok_or("Jacobi cycle capture produced no graph")?;
    cycle.upload()?;

    let mut norm = f32::INFINITY;
    for _ in 0..max_cycles {
        cycle.launch()?;
        stream.synchronize()?;
        norm = h_norm.as_slice()?[0].sqrt();
        if norm < tol {
            break;
        }
    }

    stream.memcpy_dtoh(&d_u, &mut h_u)?;
    stream.synchronize()?;
    Ok((h_u.as_slice()?.to_vec(), norm))
}
