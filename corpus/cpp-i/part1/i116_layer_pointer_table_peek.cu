// case: an MLP keeps one cudaMalloc'd weight buffer per layer in a std::vector and a sanity check reads the first weight of each layer directly through those device pointers
// expect: host_deref_device_ptr=1
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t s_ = (x); if (s_ != cudaSuccess) { \
    fprintf(stderr, "cuda error: %s\n", cudaGetErrorString(s_)); exit(1); } } while (0)

__global__ void init_weights(float* w, int n, unsigned seed) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned h = (i + 1) * 2654435761u ^ seed;
    w[i] = ((h & 0xffff) / 65535.0f - 0.5f) * 0.1f;
}

__global__ void dense_tanh(const float* w, const float* in, float* out, int fan_in, int fan_out) {
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    if (o >= fan_out) return;
    float acc = 0.f;
    for (int k = 0; k < fan_in; ++k) acc += w[o * fan_in + k] * in[k];
    out[o] = tanhf(acc);
}

int main() {
    const std::vector<int> widths = {1024, 512, 512, 256};
    const int nlayers = (int)widths.size() - 1;
    std::vector<float*> d_weights;
    for (int l = 0; l < nlayers; ++l) {
        float* w = nullptr;
        int count = widths[l] * widths[l + 1];
        CUDA_CHECK(cudaMalloc(&w, count * sizeof(float)));
        init_weights<<<(count + 255) / 256, 256>>>(w, count, 1234u + l);
        d_weights.push_back(w);
    }
    CUDA_CHECK(cudaDeviceSynchronize());

    for (int l = 0; l < nlayers; ++l) {
        float w0 = d_weights[l][0]; // EXPECT: host_deref_device_ptr
        if (std::fabs(w0) > 0.05f) printf("layer %d: suspicious init %f\n", l, w0);
    }

    float *d_act0, *d_act1;
    CUDA_CHECK(cudaMalloc(&d_act0, 1024 * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_act1, 1024 * sizeof(float)));
    std::vector<float> x(1024, 0.25f);
    CUDA_CHECK(cudaMemcpy(d_act0, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
    float* cur = d_act0;
    float* nxt = d_act1;
    for (int l = 0; l < nlayers; ++l) {
        dense_tanh<<<(widths[l + 1] + 127) / 128, 128>>>(d_weights[l], cur, nxt, widths[l], widths[l + 1]);
        float* t = cur; cur = nxt; nxt = t;
    }
    std::vector<float> y(widths.back());
    CUDA_CHECK(cudaMemcpy(y.data(), cur, y.size() * sizeof(float), cudaMemcpyDeviceToHost));
    printf("y[0] = %f\n", y[0]);

    CUDA_CHECK(cudaFree(d_act1));
    CUDA_CHECK(cudaFree(d_act0));
    for (float* w : d_weights) CUDA_CHECK(cudaFree(w));
    return 0;
}
