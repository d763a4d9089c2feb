pub const MAX_COILS: usize = 32;

pub const SENSE_SRC: &str = r#"
__device__ float2 coil_weights[32];

extern "C" __global__ void sense_combine(const float2* coils, float2* image, int n_coils, int pixels) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= pixels) return;
    float2 acc = make_float2(0.f, 0.f);
    for (int c = 0; c < n_coils; ++c) {
        float2 w = coil_weights[c], v = coils[c * pixels + p];
        acc.x += w.x * v.x + w.y * v.y;   // conj(w) * v
        acc.y += w.x * v.y - w.y * v.x;
    }
    image[p] = acc;
}
"#;
