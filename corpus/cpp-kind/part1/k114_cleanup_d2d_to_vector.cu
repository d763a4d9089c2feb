// case: a particle filter's shutdown path saves the final weights into a std::vector with cudaMemcpyDeviceToDevice, naming the pageable vector as device memory.
// expect: memcpy_kind_mismatch=1
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

__global__ void reweight(float* w, const float* obs, int n, float z) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { float d = obs[i] - z; w[i] *= expf(-0.5f * d * d); }
}

struct ParticleFilter {
    int n;
    float* d_weights = nullptr;
    float* d_obs = nullptr;
    std::vector<float> finalWeights;

    explicit ParticleFilter(int count) : n(count), finalWeights(count) {
        cudaMalloc(&d_weights, n * sizeof(float));
        cudaMalloc(&d_obs, n * sizeof(float));
        std::vector<float> ones(n, 1.0f);
        cudaMemcpy(d_weights, ones.data(), n * sizeof(float), cudaMemcpyHostToDevice);
        cudaMemcpy(d_obs, ones.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    }

    void step(float z) { reweight<<<(n + 255) / 256, 256>>>(d_weights, d_obs, n, z); }

    void shutdown() {
        cudaDeviceSynchronize();
        cudaMemcpy(finalWeights.data(), d_weights, n * sizeof(float), // EXPECT: memcpy_kind_mismatch
                   cudaMemcpyDeviceToDevice);
        cudaFree(d_weights);
        cudaFree(d_obs);
        d_weights = d_obs = nullptr;
    }
};

int main() {
    ParticleFilter pf(8192);
    for (int t = 0; t < 20; ++t) pf.step(0.1f * t);
    pf.shutdown();
    float s = 0.f;
    for (float w : pf.finalWeights) s += w;
    printf("weight sum %f\n", s);
    return 0;
}
