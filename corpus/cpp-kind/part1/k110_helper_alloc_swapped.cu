// case: buffers come from visible helpers deviceAlloc (cudaMalloc) and hostAlloc (malloc); the ReLU layer's output download passes them swapped with cudaMemcpyDeviceToHost.
// expect: memcpy_kind_mismatch=1
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

static float* deviceAlloc(size_t count) {
    float* p = nullptr;
    if (cudaMalloc(&p, count * sizeof(float)) != cudaSuccess) { fprintf(stderr, "oom\n"); exit(1); }
    return p;
}

static float* hostAlloc(size_t count) {
    float* p = (float*)malloc(count * sizeof(float));
    if (!p) { fprintf(stderr, "oom\n"); exit(1); }
    return p;
}

__global__ void relu(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] > 0.f ? in[i] : 0.f;
}

int main() {
    const int batch = 64, features = 4096;
    const int n = batch * features;
    float* act = hostAlloc(n);
    float* out = hostAlloc(n);
    for (int i = 0; i < n; ++i) act[i] = (i % 3) - 1.0f;

    float* d_act = deviceAlloc(n);
    float* d_out = deviceAlloc(n);
    cudaMemcpy(d_act, act, n * sizeof(float), cudaMemcpyHostToDevice);

    relu<<<(n + 255) / 256, 256>>>(d_act, d_out, n);
    cudaDeviceSynchronize();

    cudaMemcpy(d_out, out, n * sizeof(float), cudaMemcpyDeviceToHost); // EXPECT: memcpy_kind_mismatch

    int zeros = 0;
    for (int i = 0; i < n; ++i) zeros += (out[i] == 0.f);
    printf("zeros: %d / %d\n", zeros, n);

    cudaFree(d_act);
    cudaFree(d_out);
    free(act);
    free(out);
    return 0;
}
