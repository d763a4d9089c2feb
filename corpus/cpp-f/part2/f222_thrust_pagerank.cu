// case: A PageRank iteration keeps ranks in thrust::device_vector, launches a custom kernel through thrust::raw_pointer_cast and reads results only through thrust's own host-side accessors (reduce, element reference, copy to host_vector), which copy and wait; nothing dereferences device memory directly.
// expect: none
#include <cuda_runtime.h>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/transform.h>
#include <thrust/functional.h>
#include <thrust/fill.h>
#include <cmath>
#include <cstdio>
#include <vector>

__global__ void pull_ranks(const int* __restrict__ in_ptr, const int* __restrict__ in_idx,
                           const int* __restrict__ out_deg, const float* __restrict__ rank,
                           float* __restrict__ next, int n, float damping) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    float acc = 0.f;
    for (int e = in_ptr[v]; e < in_ptr[v + 1]; ++e) {
        int u = in_idx[e];
        acc += rank[u] / max(out_deg[u], 1);
    }
    next[v] = (1.f - damping) / n + damping * acc;
}

struct AbsDiff {
    __host__ __device__ float operator()(float a, float b) const { return fabsf(a - b); }
};

int main() {
    const int n = 1 << 20, deg = 8;
    std::vector<int> in_ptr(n + 1), in_idx(size_t(n) * deg), out_deg(n, deg);
    for (int v = 0; v <= n; ++v) in_ptr[v] = v * deg;
    for (int v = 0; v < n; ++v)
        for (int k = 0; k < deg; ++k) in_idx[size_t(v) * deg + k] = int((size_t(v) * 7 + size_t(k) * 104729) % n);

    thrust::device_vector<int> d_in_ptr(in_ptr.begin(), in_ptr.end());
    thrust::device_vector<int> d_in_idx(in_idx.begin(), in_idx.end());
    thrust::device_vector<int> d_out_deg(out_deg.begin(), out_deg.end());
    thrust::device_vector<float> rank(n, 1.f / n), next(n), diff(n);

    const float damping = 0.85f;
    int it = 0;
    float delta = 1.f;
    while (delta > 1e-6f && it < 100) {
        pull_ranks<<<(n + 255) / 256, 256>>>(thrust::raw_pointer_cast(d_in_ptr.data()),
                                             thrust::raw_pointer_cast(d_in_idx.data()),
                                             thrust::raw_pointer_cast(d_out_deg.data()),
                                             thrust::raw_pointer_cast(rank.data()),
                                             thrust::raw_pointer_cast(next.data()), n, damping);
        thrust::transform(next.begin(), next.end(), rank.begin(), diff.begin(), AbsDiff());
        delta = thrust::reduce(diff.begin(), diff.end(), 0.f, thrust::plus<float>());
        rank.swap(next);
        ++it;
    }

    float r0 = rank[0];                                   // device_reference: a copy, not a deref
    thrust::host_vector<float> h_rank = rank;             // blocking device-to-host copy
    float best = 0.f;
    int best_v = 0;
    for (int v = 0; v < n; ++v)
        if (h_rank[v] > best) { best = h_rank[v]; best_v = v; }
    printf("%d iterations, delta %.2e, rank[0] %.3e, top vertex %d (%.3e)\n", it, delta, r0, best_v, best);
    return 0;
}
