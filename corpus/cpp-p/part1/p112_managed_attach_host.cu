// case: a lookup table in managed memory allocated with cudaMemAttachHost is built by the host while an unrelated kernel runs (legal even without concurrent managed access), then attached to the stream with cudaStreamAttachMemAsync before the kernel that uses it; results read after the synchronize: correct.
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

#define LUT_SIZE 4096

__global__ void quantize(const float* in, int* idx, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) idx[i] = min(LUT_SIZE - 1, max(0, (int)(in[i] * (LUT_SIZE - 1))));
}

__global__ void apply_lut(const int* idx, const float* lut, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = lut[idx[i]];
}

int main() {
    const int n = 1 << 22;
    std::vector<float> h_in(n), h_out(n);
    for (int i = 0; i < n; ++i) h_in[i] = (float)(i % 1000) / 1000.0f;

    float *d_in, *d_out;
    int* d_idx;
    CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CHECK(cudaMalloc(&d_out, n * sizeof(float)));
    CHECK(cudaMalloc(&d_idx, n * sizeof(int)));
    CHECK(cudaMemcpy(d_in, h_in.data(), n * sizeof(float), cudaMemcpyHostToDevice));

    float* lut;
    CHECK(cudaMallocManaged(&lut, LUT_SIZE * sizeof(float), cudaMemAttachHost));

    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    quantize<<<(n + 255) / 256, 256, 0, s>>>(d_in, d_idx, n);
    CHECK(cudaGetLastError());

    // host-attached: the GPU does not own it while kernels run, so the host may write it
    for (int k = 0; k < LUT_SIZE; ++k) lut[k] = sqrtf((float)k / (LUT_SIZE - 1));

    CHECK(cudaStreamAttachMemAsync(s, lut, 0, cudaMemAttachSingle));
    apply_lut<<<(n + 255) / 256, 256, 0, s>>>(d_idx, lut, d_out, n);
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(s));

    CHECK(cudaMemcpy(h_out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    printf("out[999] = %f\n", h_out[999]);

    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(lut));
    CHECK(cudaFree(d_idx));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_in));
    return 0;
}
