// case: traffic simulator keeps a managed statistics block allocated with cudaMemAttachHost (no kernel ever takes it) and attaches the vehicle array to its own stream; the host updates the stats while the kernel runs and reads vehicles only after synchronizing that stream: correct even without concurrent managed access.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

struct Vehicle { float pos, vel; int lane, id; };
struct RunStats { long steps; double wall_ms; int lanes; };

__global__ void idm_step(Vehicle* v, int n, float dt, float road)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const Vehicle me = v[i];
    const Vehicle lead = v[(i + 1) % n];
    float gap = fmodf(lead.pos - me.pos + road, road) - 4.5f;
    float s_star = 2.f + me.vel * 1.5f + me.vel * (me.vel - lead.vel) / (2.f * sqrtf(1.5f * 2.f));
    float acc = 1.5f * (1.f - powf(me.vel / 33.f, 4.f) - (s_star * s_star) / (gap * gap + 1e-3f));
    __syncthreads();
    float nv = fmaxf(0.f, me.vel + acc * dt);
    v[i].vel = nv;
    v[i].pos = fmodf(me.pos + nv * dt, road);
}

int main(int argc, char** argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100000;
    const float road = 5.f * n;
    cudaStream_t sim;
    CUDA_CHECK(cudaStreamCreateWithFlags(&sim, cudaStreamNonBlocking));

    Vehicle* cars;
    CUDA_CHECK(cudaMallocManaged(&cars, n * sizeof(Vehicle)));
    RunStats* stats;
    CUDA_CHECK(cudaMallocManaged(&stats, sizeof(RunStats), cudaMemAttachHost));
    CUDA_CHECK(cudaStreamAttachMemAsync(sim, cars, 0, cudaMemAttachSingle));
    CUDA_CHECK(cudaStreamSynchronize(sim));

    for (int i = 0; i < n; ++i) cars[i] = {i * 5.f, 20.f + (i % 7), i % 3, i};
    stats->steps = 0;
    stats->lanes = 3;
    stats->wall_ms = 0.0;

    cudaEvent_t t0, t1;
    CUDA_CHECK(cudaEventCreate(&t0));
    CUDA_CHECK(cudaEventCreate(&t1));
    for (int block = 0; block < 10; ++block) {
        CUDA_CHECK(cudaEventRecord(t0, sim));
        for (int k = 0; k < 100; ++k) idm_step<<<(n + 255) / 256, 256, 0, sim>>>(cars, n, 0.1f, road);
        CUDA_CHECK(cudaEventRecord(t1, sim));
        stats->steps += 100;                          // host-attached: not taken by kernels on `sim`
        CUDA_CHECK(cudaStreamSynchronize(sim));
        float ms = 0.f;
        CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
        stats->wall_ms += ms;
        double mean_v = 0.0;
        for (int i = 0; i < n; ++i) mean_v += cars[i].vel;
        printf("after %ld steps: mean speed %.2f m/s (%.1f ms)\n", stats->steps, mean_v / n, stats->wall_ms);
    }

    CUDA_CHECK(cudaEventDestroy(t1));
    CUDA_CHECK(cudaEventDestroy(t0));
    CUDA_CHECK(cudaFree(stats));
    CUDA_CHECK(cudaFree(cars));
    CUDA_CHECK(cudaStreamDestroy(sim));
    return 0;
}
