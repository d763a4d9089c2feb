pub const BVH_SRC: &str = r#"
__device__ unsigned int expand_bits(unsigned int v) {
    v = (v * 0x00010001u) & 0xFF0000FFu;
    v = (v * 0x00000101u) & 0x0F00F00Fu;
    v = (v * 0x00000011u) & 0xC30C30C3u;
    v = (v * 0x00000005u) & 0x49249249u;
    return v;
}
extern "C" __global__ void morton_and_leaves(const float* centroids, unsigned int* codes, float* leaves, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = fminf(fmaxf(centroids[3 * i] * 1024.f, 0.f), 1023.f);
    float y = fminf(fmaxf(centroids[3 * i + 1] * 1024.f, 0.f), 1023.f);
    float z = fminf(fmaxf(centroids[3 * i + 2] * 1024.f, 0.f), 1023.f);
    unsigned int code = expand_bits((unsigned int)x) * 4 + expand_bits((unsigned int)y) * 2 + expand_bits((unsigned int)z);
    codes[i] = code;
    // leaf node: code split position stands in for the parent link in this sketch
    leaves[2 * i] = __uint_as_float(code);
    leaves[2 * i + 1] = (float)__clz(code);
}
"#;
