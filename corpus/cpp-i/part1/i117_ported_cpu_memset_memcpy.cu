// case: setup code ported from a CPU path clears a cudaMalloc'd accumulator with std::memset and fills the device value buffer with std::memcpy instead of the CUDA memset and copy
// expect: host_deref_device_ptr=2
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CUDA_CHECK(call) do { cudaError_t err_ = (call); if (err_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); exit(1); } } while (0)

__global__ void scatter_add(const int* idx, const float* vals, int n, float* acc) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&acc[idx[i]], vals[i]);
}

__global__ void scale(const float* acc, float* out, int m, float s) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m) out[i] = acc[i] * s;
}

struct Scatter {
    int n, m;
    int* d_idx;
    float* d_vals;
    float* d_acc;
    float* d_out;
};

static void scatter_setup(Scatter& sc, const std::vector<int>& idx, const std::vector<float>& vals, int m) {
    sc.n = (int)idx.size();
    sc.m = m;
    CUDA_CHECK(cudaMalloc(&sc.d_idx, sc.n * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&sc.d_vals, sc.n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&sc.d_acc, m * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&sc.d_out, m * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(sc.d_idx, idx.data(), sc.n * sizeof(int), cudaMemcpyHostToDevice));
    std::memcpy(sc.d_vals, vals.data(), sc.n * sizeof(float)); // EXPECT: host_deref_device_ptr
    std::memset(sc.d_acc, 0, m * sizeof(float)); // EXPECT: host_deref_device_ptr
}

static void scatter_teardown(Scatter& sc) {
    CUDA_CHECK(cudaFree(sc.d_out));
    CUDA_CHECK(cudaFree(sc.d_acc));
    CUDA_CHECK(cudaFree(sc.d_vals));
    CUDA_CHECK(cudaFree(sc.d_idx));
}

int main() {
    const int n = 1 << 20, m = 4096;
    std::vector<int> idx(n);
    std::vector<float> vals(n);
    for (int i = 0; i < n; ++i) { idx[i] = (i * 7919) % m; vals[i] = 1.0f; }

    Scatter sc;
    scatter_setup(sc, idx, vals, m);
    scatter_add<<<(n + 255) / 256, 256>>>(sc.d_idx, sc.d_vals, n, sc.d_acc);
    scale<<<(m + 255) / 256, 256>>>(sc.d_acc, sc.d_out, m, 1.0f / n);
    CUDA_CHECK(cudaDeviceSynchronize());

    std::vector<float> out(m);
    CUDA_CHECK(cudaMemcpy(out.data(), sc.d_out, m * sizeof(float), cudaMemcpyDeviceToHost));
    double total = 0.0;
    for (float v : out) total += v;
    printf("normalized total %.6f\n", total);

    scatter_teardown(sc);
    return 0;
}
