// case: a training step computes per-layer gradient norms on the device, frees that buffer without copying it back, and clips with the host's stale norms array
// expect: unread_kernel_output=1
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(e) do { cudaError_t r_ = (e); if (r_ != cudaSuccess) { \
    fprintf(stderr, "cuda: %s at %d\n", cudaGetErrorString(r_), __LINE__); exit(1); } } while (0)

__global__ void layer_sq_norms(const float* grads, const int* offsets, int nlayers, float* norms) {
    int l = blockIdx.x;
    if (l >= nlayers) return;
    __shared__ float part[256];
    float s = 0.f;
    for (int i = offsets[l] + threadIdx.x; i < offsets[l + 1]; i += blockDim.x) s += grads[i] * grads[i];
    part[threadIdx.x] = s;
    __syncthreads();
    for (int k = 128; k > 0; k >>= 1) {
        if (threadIdx.x < k) part[threadIdx.x] += part[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) norms[l] = part[0];
}

__global__ void scale_grads(float* grads, int n, float factor) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) grads[i] *= factor;
}

int main() {
    const std::vector<int> sizes = {4096, 65536, 65536, 1024};
    const int nlayers = (int)sizes.size();
    std::vector<int> offsets(nlayers + 1, 0);
    for (int l = 0; l < nlayers; ++l) offsets[l + 1] = offsets[l] + sizes[l];
    const int total = offsets.back();

    std::vector<float> grads(total);
    for (int i = 0; i < total; ++i) grads[i] = std::sin(0.01f * i);

    float *d_grads, *d_norms;
    int* d_offsets;
    CUDA_CHECK(cudaMalloc(&d_grads, total * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_offsets, (nlayers + 1) * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_norms, nlayers * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_grads, grads.data(), total * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_offsets, offsets.data(), (nlayers + 1) * sizeof(int), cudaMemcpyHostToDevice));

    layer_sq_norms<<<nlayers, 256>>>(d_grads, d_offsets, nlayers, d_norms);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaFree(d_norms)); // EXPECT: unread_kernel_output

    std::vector<float> norms(nlayers, 0.f);
    float global = 0.f;
    for (float n2 : norms) global += n2;
    global = std::sqrt(global);
    const float max_norm = 1.0f;
    float factor = global > max_norm ? max_norm / global : 1.0f;
    scale_grads<<<(total + 255) / 256, 256>>>(d_grads, total, factor);
    CUDA_CHECK(cudaMemcpy(grads.data(), d_grads, total * sizeof(float), cudaMemcpyDeviceToHost));
    printf("global norm %.4f, factor %.4f, g[0] %.4f\n", global, factor, grads[0]);

    CUDA_CHECK(cudaFree(d_offsets));
    CUDA_CHECK(cudaFree(d_grads));
    return 0;
}
