#pragma once
// Kernels for the mirrored sample ring: the same physical pages are visible at
// `lower` and at `upper` (= lower + ring size).
#include <cstddef>
#include <cstdint>

// Each thread stamps its slot through the lower view and verifies it through
// the upper view. The proxy fence orders the two accesses through different
// virtual aliases of the same memory.
__global__ void stamp_and_verify(uint32_t* lower, const uint32_t* upper, size_t words, uint32_t seq,
                                 unsigned int* mismatches) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i >= words) return;
  const uint32_t v = seq ^ static_cast<uint32_t>(i);
  lower[i] = v;
  asm volatile("fence.proxy.alias;" ::: "memory");
  if (upper[i] != v) atomicAdd(mismatches, 1u);
}

// Sums a window that may start anywhere in the ring: a window given as
// `lower + start` that runs past the end continues into the upper view, so it
// never has to wrap.
__global__ void window_energy(const uint32_t* window, size_t len, unsigned long long* energy) {
  size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (k < len) atomicAdd(energy, static_cast<unsigned long long>(window[k] & 0xff));
}
