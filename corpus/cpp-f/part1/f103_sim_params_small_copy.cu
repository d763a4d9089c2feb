// case: an N-body step uploads a 48-byte parameter struct from the stack and reads back a 4-byte survivor count into a stack int with cudaMemcpyAsync; both are pageable but tiny, and a device-to-pageable copy completes before the call returns.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>

#define CUDA_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    printf("cuda: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); exit(2); } } while (0)

struct SimParams {
    float dt;
    float softening;
    float gravity;
    float box[3];
    int   n;
    int   step;
    float kill_radius;
    float pad[3];
};

__global__ void integrate(float4* pos, float4* vel, const SimParams* p, int* alive) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p->n) return;
    float4 v = vel[i];
    v.y -= p->gravity * p->dt;
    float4 x = pos[i];
    x.x += v.x * p->dt; x.y += v.y * p->dt; x.z += v.z * p->dt;
    pos[i] = x; vel[i] = v;
    if (x.x * x.x + x.y * x.y + x.z * x.z < p->kill_radius * p->kill_radius)
        atomicAdd(alive, 1);
}

int main() {
    const int n = 1 << 20;
    float4 *d_pos, *d_vel;
    SimParams* d_params;
    int* d_alive;
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMalloc(&d_pos, n * sizeof(float4)));
    CUDA_CHECK(cudaMalloc(&d_vel, n * sizeof(float4)));
    CUDA_CHECK(cudaMalloc(&d_params, sizeof(SimParams)));
    CUDA_CHECK(cudaMalloc(&d_alive, sizeof(int)));
    CUDA_CHECK(cudaMemsetAsync(d_pos, 0, n * sizeof(float4), stream));
    CUDA_CHECK(cudaMemsetAsync(d_vel, 0, n * sizeof(float4), stream));

    for (int step = 0; step < 100; ++step) {
        SimParams params{};
        params.dt = 1e-3f;
        params.softening = 1e-4f;
        params.gravity = 9.81f;
        params.box[0] = params.box[1] = params.box[2] = 100.f;
        params.n = n;
        params.step = step;
        params.kill_radius = 50.f;
        CUDA_CHECK(cudaMemcpyAsync(d_params, &params, sizeof(SimParams),
                                   cudaMemcpyHostToDevice, stream));
        CUDA_CHECK(cudaMemsetAsync(d_alive, 0, sizeof(int), stream));
        integrate<<<(n + 255) / 256, 256, 0, stream>>>(d_pos, d_vel, d_params, d_alive);

        int alive = 0;
        CUDA_CHECK(cudaMemcpyAsync(&alive, d_alive, sizeof(int),
                                   cudaMemcpyDeviceToHost, stream));
        if (step % 10 == 0) printf("step %d: %d bodies inside the kill radius\n", step, alive);
    }

    CUDA_CHECK(cudaStreamSynchronize(stream));
    cudaFree(d_alive);
    cudaFree(d_params);
    cudaFree(d_vel);
    cudaFree(d_pos);
    cudaStreamDestroy(stream);
    return 0;
}
