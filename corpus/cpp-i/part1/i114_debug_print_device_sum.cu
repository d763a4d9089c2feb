// case: a dot-product routine left a debug printf that dereferences the cudaMalloc'd result pointer on the host before the proper cudaMemcpy readback
// expect: host_deref_device_ptr=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void dot_kernel(const float* a, const float* b, float* result, int n) {
    __shared__ float cache[256];
    float t = 0.f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        t += a[i] * b[i];
    cache[threadIdx.x] = t;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) cache[threadIdx.x] += cache[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(result, cache[0]);
}

static float dot(const std::vector<float>& a, const std::vector<float>& b, bool verbose) {
    const int n = (int)a.size();
    float *d_a, *d_b, *d_result;
    CUDA_CHECK(cudaMalloc(&d_a, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_b, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_result, sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_a, a.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, b.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_result, 0, sizeof(float)));

    dot_kernel<<<128, 256>>>(d_a, d_b, d_result, n);
    CUDA_CHECK(cudaDeviceSynchronize());
    if (verbose) printf("debug: partial result %f\n", *d_result); // EXPECT: host_deref_device_ptr

    float result = 0.f;
    CUDA_CHECK(cudaMemcpy(&result, d_result, sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_result));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_a));
    return result;
}

int main(int argc, char** argv) {
    const int n = 1 << 20;
    std::vector<float> a(n), b(n);
    for (int i = 0; i < n; ++i) { a[i] = 1.0f; b[i] = (i % 2) ? 0.5f : 1.5f; }
    float r = dot(a, b, argc > 1);
    printf("dot = %.1f (expected %.1f)\n", r, n * 1.0f);
    return 0;
}
