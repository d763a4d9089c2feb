// case: A particle integrator's enqueue_step helper launches a kernel and returns without synchronizing; main calls it in a loop and then waits with a checked cudaStreamSynchronize (the launch's own function never synchronizes).
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                       \
    do {                                                                       \
        cudaError_t rc_ = (call);                                              \
        if (rc_ != cudaSuccess) {                                              \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                 \
                    cudaGetErrorString(rc_));                                  \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

struct Particles {
    float* pos = nullptr;
    float* vel = nullptr;
    int n = 0;
};

__global__ void integrate(float* pos, float* vel, int n, float dt, float g) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    vel[i] -= g * dt;
    pos[i] += vel[i] * dt;
    if (pos[i] < 0.0f) {
        pos[i] = -pos[i];
        vel[i] = -0.9f * vel[i];
    }
}

// Enqueues one step; the caller decides when to wait.
static void enqueue_step(const Particles& p, float dt, cudaStream_t s) {
    integrate<<<(p.n + 255) / 256, 256, 0, s>>>(p.pos, p.vel, p.n, dt, 9.81f);
}

int main() {
    Particles p;
    p.n = 1 << 20;
    const size_t bytes = p.n * sizeof(float);
    std::vector<float> h_pos(p.n), h_vel(p.n, 0.0f);
    for (int i = 0; i < p.n; ++i) h_pos[i] = 1.0f + float(i % 100) * 0.1f;

    CUDA_CHECK(cudaMalloc(&p.pos, bytes));
    CUDA_CHECK(cudaMalloc(&p.vel, bytes));
    CUDA_CHECK(cudaMemcpy(p.pos, h_pos.data(), bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(p.vel, h_vel.data(), bytes, cudaMemcpyHostToDevice));

    const cudaStream_t s = 0;
    for (int step = 0; step < 1000; ++step) enqueue_step(p, 1e-3f, s);
    CUDA_CHECK(cudaStreamSynchronize(s));

    CUDA_CHECK(cudaMemcpy(h_pos.data(), p.pos, bytes, cudaMemcpyDeviceToHost));
    float highest = 0.0f;
    for (float x : h_pos) highest = x > highest ? x : highest;
    printf("highest particle after 1 s: %.3f\n", highest);

    CUDA_CHECK(cudaFree(p.vel));
    CUDA_CHECK(cudaFree(p.pos));
    return 0;
}
