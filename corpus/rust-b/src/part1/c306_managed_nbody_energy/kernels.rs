//! N-body kernels, compiled with NVRTC by `Sim::new`.

/// `step(pos, vel, energy, n, dt)`: reads and writes `pos` and `vel`, writes `energy[i]`.
pub const NBODY_SRC: &str = r#"
extern "C" __global__ void step(float* pos, float* vel, float* energy, unsigned n, float dt) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = 0.0f;
    for (unsigned j = 0; j < n; ++j) { float d = pos[j] - pos[i]; a += d / (fabsf(d * d * d) + 1e-3f); }
    vel[i] += a * dt;
    pos[i] += vel[i] * dt;
    energy[i] = 0.5f * vel[i] * vel[i];
}
"#;
