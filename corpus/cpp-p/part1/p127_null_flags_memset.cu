// case: a particle step keeps an optional per-particle "escaped" flag array; the kernel tests the pointer for null, but the host clears it unconditionally with cudaMemsetAsync although its cudaMalloc was left out, so the memset is given a null pointer (the kernel launch itself is fine).
// expect: unallocated_pointer=1
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void step(float4* p, int* escaped, float dt, float radius, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 q = p[i];
    q.x += q.w * dt;
    q.y += q.w * dt;
    p[i] = q;
    if (escaped && q.x * q.x + q.y * q.y > radius * radius) escaped[i] = 1;
}

int main() {
    const int n = 1 << 20;
    std::vector<float4> h_p(n);
    for (int i = 0; i < n; ++i) h_p[i] = make_float4(0.0f, 0.0f, 0.0f, (float)(i % 7));

    float4* d_p;
    int* d_escaped = nullptr;
    CHECK(cudaMalloc(&d_p, n * sizeof(float4)));
    CHECK(cudaMemcpy(d_p, h_p.data(), n * sizeof(float4), cudaMemcpyHostToDevice));

    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMemsetAsync(d_escaped, 0, n * sizeof(int), s));  // EXPECT: unallocated_pointer
    for (int it = 0; it < 100; ++it) {
        step<<<(n + 255) / 256, 256, 0, s>>>(d_p, d_escaped, 0.01f, 5.0f, n);
    }
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemcpy(h_p.data(), d_p, n * sizeof(float4), cudaMemcpyDeviceToHost));
    printf("p[6] = (%f, %f)\n", h_p[6].x, h_p[6].y);

    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d_p));
    return 0;
}
