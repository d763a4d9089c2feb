// case: particle advection step: a 48-byte parameter struct and a 1 KiB coefficient table go up with cudaMemcpyAsync from the stack (pageable, but well under 64 KiB), while the 12 MiB particle arrays are staged through cudaMallocHost memory
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                     \
    do {                                                                     \
        cudaError_t err_ = (call);                                           \
        if (err_ != cudaSuccess) {                                           \
            std::fprintf(stderr, "CUDA error %s at %s:%d\n",                 \
                         cudaGetErrorString(err_), __FILE__, __LINE__);      \
            std::exit(EXIT_FAILURE);                                         \
        }                                                                    \
    } while (0)

struct StepParams {
    float dt;
    float damping;
    float gravity[3];
    float bounds_min[3];
    float bounds_max[3];
    int n;
};

constexpr int kCoeffs = 256;

__global__ void advect(float3* pos, float3* vel, const StepParams* p, const float* coeffs) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p->n) return;
    float drag = coeffs[i % kCoeffs];
    vel[i].x = (vel[i].x + p->gravity[0] * p->dt) * p->damping * drag;
    vel[i].y = (vel[i].y + p->gravity[1] * p->dt) * p->damping * drag;
    vel[i].z = (vel[i].z + p->gravity[2] * p->dt) * p->damping * drag;
    pos[i].x = fminf(fmaxf(pos[i].x + vel[i].x * p->dt, p->bounds_min[0]), p->bounds_max[0]);
    pos[i].y = fminf(fmaxf(pos[i].y + vel[i].y * p->dt, p->bounds_min[1]), p->bounds_max[1]);
    pos[i].z = fminf(fmaxf(pos[i].z + vel[i].z * p->dt, p->bounds_min[2]), p->bounds_max[2]);
}

int main() {
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float3);
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    float3 *h_pos = nullptr, *h_vel = nullptr, *d_pos = nullptr, *d_vel = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_pos, bytes));
    CUDA_CHECK(cudaMallocHost(&h_vel, bytes));
    CUDA_CHECK(cudaMalloc(&d_pos, bytes));
    CUDA_CHECK(cudaMalloc(&d_vel, bytes));
    StepParams* d_params = nullptr;
    float* d_coeffs = nullptr;
    CUDA_CHECK(cudaMalloc(&d_params, sizeof(StepParams)));
    CUDA_CHECK(cudaMalloc(&d_coeffs, kCoeffs * sizeof(float)));

    for (int i = 0; i < n; ++i) {
        h_pos[i] = make_float3(i % 100, (i / 100) % 100, i / 10000);
        h_vel[i] = make_float3(0.f, 0.f, 0.f);
    }
    StepParams params = {0.01f, 0.999f, {0.f, -9.81f, 0.f}, {0.f, 0.f, 0.f}, {100.f, 100.f, 100.f}, n};
    float coeffs[kCoeffs];
    for (int k = 0; k < kCoeffs; ++k) coeffs[k] = 1.0f - 0.0001f * k;

    CUDA_CHECK(cudaMemcpyAsync(d_params, &params, sizeof(params), cudaMemcpyHostToDevice, s));
    CUDA_CHECK(cudaMemcpyAsync(d_coeffs, coeffs, sizeof(coeffs), cudaMemcpyHostToDevice, s));
    CUDA_CHECK(cudaMemcpyAsync(d_pos, h_pos, bytes, cudaMemcpyHostToDevice, s));
    CUDA_CHECK(cudaMemcpyAsync(d_vel, h_vel, bytes, cudaMemcpyHostToDevice, s));
    for (int step = 0; step < 100; ++step)
        advect<<<(n + 255) / 256, 256, 0, s>>>(d_pos, d_vel, d_params, d_coeffs);
    CUDA_CHECK(cudaMemcpyAsync(h_pos, d_pos, bytes, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));

    std::printf("particle 0 at (%f, %f, %f)\n", h_pos[0].x, h_pos[0].y, h_pos[0].z);

    cudaFree(d_coeffs);
    cudaFree(d_params);
    cudaFree(d_vel);
    cudaFree(d_pos);
    cudaFreeHost(h_vel);
    cudaFreeHost(h_pos);
    cudaStreamDestroy(s);
    return 0;
}
