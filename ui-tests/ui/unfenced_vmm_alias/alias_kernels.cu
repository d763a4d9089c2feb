// Kernels for kernel_sources.rs (read with `include_str!`).
extern "C" __global__ void copy_alias(volatile float* a, volatile float* b, float* out) {
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    a[i] = 1.0f;
    out[i] = b[i];
}

extern "C" __global__ void copy_alias_fenced(volatile float* a, volatile float* b, float* out) {
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    a[i] = 1.0f;
    asm volatile("fence.proxy.alias;" ::: "memory");
    out[i] = b[i];
}
