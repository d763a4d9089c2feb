// case: a camera-projection kernel's std::array of intrinsics is "uploaded" with cudaMemcpyDeviceToHost and the arguments in upload order, so the std::array is named as device source and the cudaMalloc buffer as host destination.
// expect: memcpy_kind_mismatch=1
#include <array>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

__global__ void project(const float3* pts, const float* K, float2* uv, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float3 p = pts[i];
    uv[i] = make_float2(K[0] * p.x / p.z + K[2], K[4] * p.y / p.z + K[5]);
}

int main() {
    const std::array<float, 9> intrinsics = {800.f, 0.f, 320.f, 0.f, 800.f, 240.f, 0.f, 0.f, 1.f};
    const int n = 50000;
    std::vector<float3> points(n);
    for (int i = 0; i < n; ++i) points[i] = make_float3(0.01f * i, 0.02f * i, 5.0f + i * 1e-4f);
    std::vector<float2> pixels(n);

    float* d_K;
    float3* d_pts;
    float2* d_uv;
    cudaMalloc(&d_K, sizeof(intrinsics));
    cudaMalloc(&d_pts, n * sizeof(float3));
    cudaMalloc(&d_uv, n * sizeof(float2));

    cudaMemcpy(d_K, intrinsics.data(), sizeof(intrinsics), cudaMemcpyDeviceToHost); // EXPECT: memcpy_kind_mismatch
    cudaMemcpy(d_pts, points.data(), n * sizeof(float3), cudaMemcpyHostToDevice);

    project<<<(n + 255) / 256, 256>>>(d_pts, d_K, d_uv, n);
    cudaMemcpy(pixels.data(), d_uv, n * sizeof(float2), cudaMemcpyDeviceToHost);
    printf("uv[1000] = (%f, %f)\n", pixels[1000].x, pixels[1000].y);

    cudaFree(d_K);
    cudaFree(d_pts);
    cudaFree(d_uv);
    return 0;
}
