//! case: seismic CMP stacking on the runtime layer: the traces arrive in a Vec<f32> that is page-locked in place with ctx.register_host before the async upload (so the copy is from pinned memory); the registration lives until after the synchronize and the stacked trace comes back into pinned memory (near-miss for pageable_async_copy)
//! expect: none

use cuda_lint_runtime::{Context, LaunchConfig, PinnedBuffer, Result};

const STACK_SRC: &str = r#"
extern "C" __global__ void nmo_stack(const float* traces, const float* offsets, float* stacked,
                                     unsigned n_traces, unsigned n_samples, float dt, float v) {
    unsigned s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= n_samples) return;
    float t0 = s * dt, acc = 0.f;
    for (unsigned k = 0; k < n_traces; ++k) {
        float x = offsets[k];
        float t = sqrtf(t0 * t0 + (x * x) / (v * v));
        unsigned j = (unsigned)(t / dt);
        if (j < n_samples) acc += traces[k * n_samples + j];
    }
    stacked[s] = acc / n_traces;
}
"#;

pub struct Gather {
    pub traces: Vec<f32>,
    pub offsets_m: Vec<f32>,
    pub n_samples: usize,
    pub dt_s: f32,
}

pub fn stack_gather(ctx: &Context, mut gather: Gather, velocity: f32) -> Result<Vec<f32>> {
    let n_traces = gather.offsets_m.len();
    let stream = ctx.new_stream()?;
    let kernel = ctx.load_cuda(STACK_SRC)?.function("nmo_stack")?;
    let mut d_traces = ctx.alloc::<f32>(gather.traces.len())?;
    let mut d_offsets = ctx.alloc::<f32>(n_traces)?;
    let d_stacked = ctx.alloc_zeroed::<f32>(gather.n_samples)?;
    let mut out: PinnedBuffer<f32> = ctx.alloc_pinned(gather.n_samples)?;

    {
        let traces = ctx.register_host(&mut gather.traces)?;
        let offsets = ctx.register_host(&mut gather.offsets_m)?;
        unsafe {
            stream.copy_htod_async(&mut d_traces, &traces)?;
            stream.copy_htod_async(&mut d_offsets, &offsets)?;
        }
        let (nt, ns) = (n_traces as u32, gather.n_samples as u32);
        unsafe { stream.launch(&kernel, LaunchConfig::for_num_elems(ns), &[&d_traces, &d_offsets, &d_stacked, &nt, &ns, &gather.dt_s, &velocity])? };
        unsafe { stream.copy_dtoh_async(&mut out, &d_stacked)? };
        stream.synchronize()?;
    } // unregistered here, after the stream is drained

    Ok(out.to_vec())
}
