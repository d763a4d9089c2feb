// case: a reaction-diffusion solver ping-pongs two cudaMalloc fields with std::swap inside its loop and copies the field currently held in d_cur back to a std::vector with DeviceToHost, correctly.
// expect: none
#include <cstdio>
#include <utility>
#include <vector>
#include <cuda_runtime.h>

__global__ void diffuse(const float* u, float* un, int n, float D, float k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < 1 || i >= n - 1) return;
    float lap = u[i - 1] - 2.f * u[i] + u[i + 1];
    un[i] = u[i] + D * lap + k * u[i] * (1.f - u[i]);
}

int main() {
    const int n = 1 << 18, steps = 400, dumpEvery = 100;
    std::vector<float> u(n, 0.f), frame(n);
    for (int i = n / 2 - 50; i < n / 2 + 50; ++i) u[i] = 1.f;

    float *d_cur, *d_next;
    cudaMalloc(&d_cur, n * sizeof(float));
    cudaMalloc(&d_next, n * sizeof(float));
    cudaMemcpy(d_cur, u.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_next, d_cur, n * sizeof(float), cudaMemcpyDeviceToDevice);

    for (int s = 1; s <= steps; ++s) {
        diffuse<<<(n + 255) / 256, 256>>>(d_cur, d_next, n, 0.2f, 0.01f);
        std::swap(d_cur, d_next);
        if (s % dumpEvery == 0) {
            cudaMemcpy(frame.data(), d_cur, n * sizeof(float), cudaMemcpyDeviceToHost);
            int front = 0;
            for (int i = n / 2; i < n && frame[i] > 0.5f; ++i) front = i - n / 2;
            printf("step %d: front at +%d\n", s, front);
        }
    }
    cudaMemcpy(u.data(), d_cur, n * sizeof(float), cudaMemcpyDeviceToHost);

    cudaFree(d_cur);
    cudaFree(d_next);
    return 0;
}
