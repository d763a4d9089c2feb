// case: a particle system's create function stores its cudaMalloc'd arrays in a ParticleSystem struct returned to the caller, which releases them with particles_destroy
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(x)                                                        \
    do {                                                                     \
        cudaError_t e = (x);                                                 \
        if (e != cudaSuccess) {                                              \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,               \
                    cudaGetErrorString(e));                                  \
            exit(EXIT_FAILURE);                                              \
        }                                                                    \
    } while (0)

#define NUM_PARTICLES 262144
#define GRAVITY -9.81f
#define DT 0.005f

struct ParticleSystem {
    float* x;
    float* y;
    float* vx;
    float* vy;
    int n;
};

static ParticleSystem particles_create(int n) {
    ParticleSystem ps;
    ps.n = n;
    CUDA_CHECK(cudaMalloc(&ps.x, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&ps.y, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&ps.vx, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&ps.vy, n * sizeof(float)));
    return ps;
}

static void particles_destroy(ParticleSystem& ps) {
    CUDA_CHECK(cudaFree(ps.x));
    CUDA_CHECK(cudaFree(ps.y));
    CUDA_CHECK(cudaFree(ps.vx));
    CUDA_CHECK(cudaFree(ps.vy));
}

__global__ void emit(float* x, float* y, float* vx, float* vy, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    x[i] = 0.f;
    y[i] = 0.f;
    vx[i] = 5.f * __sinf(i * 0.001f);
    vy[i] = 20.f + 5.f * __cosf(i * 0.001f);
}

__global__ void step(float* x, float* y, float* vx, float* vy, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    vy[i] += GRAVITY * DT;
    x[i] += vx[i] * DT;
    y[i] += vy[i] * DT;
    if (y[i] < 0.f) { y[i] = 0.f; vy[i] = -0.6f * vy[i]; vx[i] *= 0.9f; }
}

int main() {
    ParticleSystem ps = particles_create(NUM_PARTICLES);
    const int tpb = 256, blocks = (NUM_PARTICLES + tpb - 1) / tpb;
    emit<<<blocks, tpb>>>(ps.x, ps.y, ps.vx, ps.vy, ps.n);
    for (int s = 0; s < 2000; ++s) step<<<blocks, tpb>>>(ps.x, ps.y, ps.vx, ps.vy, ps.n);
    CUDA_CHECK(cudaGetLastError());

    float* hx = (float*)malloc(NUM_PARTICLES * sizeof(float));
    float* hy = (float*)malloc(NUM_PARTICLES * sizeof(float));
    CUDA_CHECK(cudaMemcpy(hx, ps.x, NUM_PARTICLES * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(hy, ps.y, NUM_PARTICLES * sizeof(float), cudaMemcpyDeviceToHost));
    float max_x = 0.f, max_y = 0.f;
    for (int i = 0; i < NUM_PARTICLES; ++i) {
        if (hx[i] > max_x) max_x = hx[i];
        if (hy[i] > max_y) max_y = hy[i];
    }
    CUDA_CHECK(cudaMemcpy(hx, ps.vx, NUM_PARTICLES * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(hy, ps.vy, NUM_PARTICLES * sizeof(float), cudaMemcpyDeviceToHost));
    double ke = 0.0;
    for (int i = 0; i < NUM_PARTICLES; ++i) ke += 0.5 * (hx[i] * hx[i] + hy[i] * hy[i]);
    printf("spread: x up to %.2f, y up to %.2f, mean KE %.3f\n", max_x, max_y,
           ke / NUM_PARTICLES);

    free(hx);
    free(hy);
    particles_destroy(ps);
    return 0;
}
