//! Kernels of the histogram publisher.

/// `bins` and `bins_ro` are two mappings of one allocation. The publishing threads fence the
/// alias proxy (in `publish_fence`) between their atomic writes and the reads through the
/// read-only view.
pub const HIST_KERNELS: &str = r#"
__device__ __forceinline__ void publish_fence() {
    asm volatile("fence.proxy.alias;" ::: "memory");
    __syncthreads();
}

extern "C" __global__ void accumulate_publish(unsigned* bins, const unsigned* bins_ro,
                                              const unsigned char* px, float* pdf,
                                              unsigned n, unsigned nbins) {
    unsigned tid = threadIdx.x;
    for (unsigned i = tid; i < n; i += blockDim.x) atomicAdd(&bins[px[i] % nbins], 1u);
    publish_fence();
    for (unsigned b = tid; b < nbins; b += blockDim.x) pdf[b] = (float)bins_ro[b] / (float)n;
}
"#;
