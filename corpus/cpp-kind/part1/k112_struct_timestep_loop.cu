// case: a header-style SimState struct initialised by sim_init (device positions, malloc'd host positions); the per-timestep output copy inside the loop uses cudaMemcpyHostToDevice for a device-to-host transfer.
// expect: memcpy_kind_mismatch=1
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

/* ---- sim.h ---- */
typedef struct {
    int n;
    float4* d_pos;
    float4* d_vel;
    float4* h_pos;
} SimState;

static void sim_init(SimState* s, int n) {
    s->n = n;
    cudaMalloc((void**)&s->d_pos, n * sizeof(float4));
    cudaMalloc((void**)&s->d_vel, n * sizeof(float4));
    s->h_pos = (float4*)malloc(n * sizeof(float4));
    cudaMemset(s->d_pos, 0, n * sizeof(float4));
    cudaMemset(s->d_vel, 0, n * sizeof(float4));
}

static void sim_free(SimState* s) {
    cudaFree(s->d_pos);
    cudaFree(s->d_vel);
    free(s->h_pos);
}
/* ---- end sim.h ---- */

__global__ void integrate(float4* pos, float4* vel, int n, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    vel[i].y -= 9.81f * dt;
    pos[i].x += vel[i].x * dt;
    pos[i].y += vel[i].y * dt;
    pos[i].z += vel[i].z * dt;
}

int main() {
    SimState sim;
    sim_init(&sim, 10000);
    const int steps = 200, outputEvery = 50;
    for (int step = 0; step < steps; ++step) {
        integrate<<<(sim.n + 127) / 128, 128>>>(sim.d_pos, sim.d_vel, sim.n, 0.001f);
        if (step % outputEvery == 0) {
            cudaMemcpy(sim.h_pos, sim.d_pos, sim.n * sizeof(float4), cudaMemcpyHostToDevice); // EXPECT: memcpy_kind_mismatch
            printf("step %d: y0 = %f\n", step, sim.h_pos[0].y);
        }
    }
    sim_free(&sim);
    return 0;
}
