// case: a 2D heat simulation names its copy directions with constexpr cudaMemcpyKind constants and uses each one the right way round, including a snapshot copy inside the time loop.
// expect: none
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

constexpr cudaMemcpyKind kUp = cudaMemcpyHostToDevice;
constexpr cudaMemcpyKind kDown = cudaMemcpyDeviceToHost;
constexpr cudaMemcpyKind kOnDevice = cudaMemcpyDeviceToDevice;

__global__ void heat(const float* t, float* tn, int w, int h, float alpha) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
    int i = y * w + x;
    tn[i] = t[i] + alpha * (t[i - 1] + t[i + 1] + t[i - w] + t[i + w] - 4.f * t[i]);
}

int main() {
    const int w = 512, h = 512, steps = 1000;
    const size_t bytes = (size_t)w * h * sizeof(float);
    std::vector<float> grid(w * h, 0.f), snapshot(w * h);
    for (int x = 0; x < w; ++x) grid[x] = 100.f;

    float *d_t, *d_tn;
    cudaMalloc(&d_t, bytes);
    cudaMalloc(&d_tn, bytes);
    cudaMemcpy(d_t, grid.data(), bytes, kUp);
    cudaMemcpy(d_tn, d_t, bytes, kOnDevice);

    dim3 block(16, 16), g((w + 15) / 16, (h + 15) / 16);
    for (int s = 0; s < steps; ++s) {
        heat<<<g, block>>>(d_t, d_tn, w, h, 0.2f);
        cudaMemcpy(d_t, d_tn, bytes, kOnDevice);
        if (s % 250 == 0) {
            cudaMemcpy(snapshot.data(), d_t, bytes, kDown);
            printf("step %d: T(center) = %f\n", s, snapshot[(h / 2) * w + w / 2]);
        }
    }
    cudaMemcpy(grid.data(), d_t, bytes, kDown);
    printf("final T(10,256) = %f\n", grid[10 * w + 256]);

    cudaFree(d_t);
    cudaFree(d_tn);
    return 0;
}
