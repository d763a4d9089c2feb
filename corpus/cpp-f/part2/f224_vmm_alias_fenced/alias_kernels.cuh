#pragma once
#include <cuda_runtime.h>

// Scatter-then-gather over a double-mapped arena: writes go through the "scatter" view,
// reads through the "gather" view; the proxy fence makes the writes visible to the alias.
__global__ void scatter_gather(int* scatter_view, const int* gather_view, const int* __restrict__ perm,
                               int* __restrict__ out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    scatter_view[perm[i]] = i * 3 + 1;
    asm volatile("fence.proxy.alias;" ::: "memory");
    __syncthreads();
    out[i] = gather_view[i];
}

// Plain consumer, used on a second stream after an event orders it behind the producer.
__global__ void checksum_view(const int* view, unsigned long long* acc, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(acc, (unsigned long long)view[i]);
}
