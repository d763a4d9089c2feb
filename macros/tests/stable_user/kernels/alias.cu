// Kernels of the VMM alias example: write through one mapping, read through another.
#define ALIAS_FENCE() asm volatile("fence.proxy.alias;" ::: "memory")

extern "C" __global__ void writeAReadB(volatile int* a, volatile int* b, int* out) {
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    a[i] = i + 1;
    out[i] = b[i];
}

extern "C" __global__ void write_a_fence_read_b(volatile int* a, volatile int* b, int* out) {
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    a[i] = i + 1;
    ALIAS_FENCE();
    out[i] = b[i];
}
