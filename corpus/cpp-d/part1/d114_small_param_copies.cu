// case: cloth simulation that sends a 28-byte parameter struct and a 24-byte bounds array from the stack with cudaMemcpyAsync every frame and reads a 4-byte collision counter back into a stack variable right after its cudaMemcpyAsync (a device-to-pageable copy has completed when the call returns); the 12 MiB of vertex data go through cudaMallocHost memory and are read after a stream synchronize: correct.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t e_ = (call);                                                  \
        if (e_ != cudaSuccess) {                                                  \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            std::exit(1);                                                         \
        }                                                                         \
    } while (0)
#define SYNC_STREAM(s) CUDA_CHECK(cudaStreamSynchronize(s))

struct StepParams {
    float dt;
    float gravity[3];
    float damping;
    int substeps;
    int n;
};

__global__ void integrate(float4* pos, float4* vel, const StepParams* p, const float* bounds,
                          unsigned int* collisions)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p->n) return;
    float4 x = pos[i], v = vel[i];
    float h = p->dt / p->substeps;
    for (int s = 0; s < p->substeps; ++s) {
        v.x = (v.x + p->gravity[0] * h) * p->damping;
        v.y = (v.y + p->gravity[1] * h) * p->damping;
        v.z = (v.z + p->gravity[2] * h) * p->damping;
        x.x += v.x * h; x.y += v.y * h; x.z += v.z * h;
        if (x.y < bounds[1]) { x.y = bounds[1]; v.y = -0.3f * v.y; atomicAdd(collisions, 1u); }
    }
    pos[i] = x;
    vel[i] = v;
}

int main()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float4);
    float4* h_pos = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_pos, bytes));
    for (int i = 0; i < n; ++i)
        h_pos[i] = make_float4((i % 1024) * 0.01f, 2.0f, (i / 1024) * 0.01f, 1.0f);

    float4 *d_pos, *d_vel;
    StepParams* d_params;
    float* d_bounds;
    unsigned int* d_collisions;
    CUDA_CHECK(cudaMalloc(&d_pos, bytes));
    CUDA_CHECK(cudaMalloc(&d_vel, bytes));
    CUDA_CHECK(cudaMalloc(&d_params, sizeof(StepParams)));
    CUDA_CHECK(cudaMalloc(&d_bounds, 6 * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_collisions, sizeof(unsigned int)));

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMemcpyAsync(d_pos, h_pos, bytes, cudaMemcpyHostToDevice, s));
    CUDA_CHECK(cudaMemsetAsync(d_vel, 0, bytes, s));

    float bounds[6] = {-10.f, 0.f, -10.f, 10.f, 10.f, 10.f};
    CUDA_CHECK(cudaMemcpyAsync(d_bounds, bounds, sizeof(bounds), cudaMemcpyHostToDevice, s));

    unsigned long long total_hits = 0;
    StepParams params{1.0f / 60.0f, {0.f, -9.81f, 0.f}, 0.999f, 4, n};
    for (int frame = 0; frame < 120; ++frame) {
        params.substeps = frame < 10 ? 8 : 4;
        CUDA_CHECK(cudaMemcpyAsync(d_params, &params, sizeof(params), cudaMemcpyHostToDevice, s));
        CUDA_CHECK(cudaMemsetAsync(d_collisions, 0, sizeof(unsigned int), s));
        integrate<<<(n + 255) / 256, 256, 0, s>>>(d_pos, d_vel, d_params, d_bounds, d_collisions);

        unsigned int hits = 0;
        CUDA_CHECK(cudaMemcpyAsync(&hits, d_collisions, sizeof(hits), cudaMemcpyDeviceToHost, s));
        total_hits += hits;
    }

    CUDA_CHECK(cudaMemcpyAsync(h_pos, d_pos, bytes, cudaMemcpyDeviceToHost, s));
    SYNC_STREAM(s);
    float min_y = h_pos[0].y;
    for (int i = 1; i < n; ++i) min_y = h_pos[i].y < min_y ? h_pos[i].y : min_y;
    printf("cloth: %llu floor contacts, lowest vertex at y=%.4f\n", total_hits, min_y);

    CUDA_CHECK(cudaStreamDestroy(s));
    cudaFree(d_pos); cudaFree(d_vel); cudaFree(d_params); cudaFree(d_bounds); cudaFree(d_collisions);
    CUDA_CHECK(cudaFreeHost(h_pos));
    return 0;
}
