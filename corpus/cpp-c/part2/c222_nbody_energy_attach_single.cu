// case: an N-body integrator logs kinetic energy from a managed accumulator attached (cudaMemAttachSingle) to the diagnostics stream; the host reads it after synchronizing that stream while the next force step runs on the other stream
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "nbody: %s (%s)\n", cudaGetErrorString(e_), #x); std::exit(1); } } while (0)

__global__ void kick(const float4* pos, float4* vel, int n, float dt, float eps2) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 pi = pos[i];
    float3 a = make_float3(0.f, 0.f, 0.f);
    for (int j = 0; j < n; ++j) {
        float4 pj = pos[j];
        float dx = pj.x - pi.x, dy = pj.y - pi.y, dz = pj.z - pi.z;
        float inv = rsqrtf(dx * dx + dy * dy + dz * dz + eps2);
        float s = pj.w * inv * inv * inv;
        a.x += dx * s; a.y += dy * s; a.z += dz * s;
    }
    vel[i].x += dt * a.x; vel[i].y += dt * a.y; vel[i].z += dt * a.z;
}

__global__ void drift(float4* pos, const float4* vel, int n, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    pos[i].x += dt * vel[i].x; pos[i].y += dt * vel[i].y; pos[i].z += dt * vel[i].z;
}

__global__ void kinetic(const float4* vel_snap, const float4* pos_snap, double* energy, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 v = vel_snap[i];
    atomicAdd(energy, 0.5 * pos_snap[i].w * (v.x * v.x + v.y * v.y + v.z * v.z));
}

int main() {
    const int n = 16384, steps = 50;
    std::vector<float4> h_pos(n), h_vel(n, make_float4(0.f, 0.f, 0.f, 0.f));
    for (int i = 0; i < n; ++i) h_pos[i] = make_float4((i % 128) * 0.1f, (i / 128) * 0.1f, 0.f, 1.f / n);

    float4 *pos, *vel, *pos_snap, *vel_snap;
    CK(cudaMalloc(&pos, n * sizeof(float4)));
    CK(cudaMalloc(&vel, n * sizeof(float4)));
    CK(cudaMalloc(&pos_snap, n * sizeof(float4)));
    CK(cudaMalloc(&vel_snap, n * sizeof(float4)));
    CK(cudaMemcpy(pos, h_pos.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(vel, h_vel.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
    CK(cudaDeviceSynchronize());

    cudaStream_t force, diag;
    cudaEvent_t snap_ready;
    CK(cudaStreamCreateWithFlags(&force, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&diag, cudaStreamNonBlocking));
    CK(cudaEventCreateWithFlags(&snap_ready, cudaEventDisableTiming));

    double* energy = nullptr;
    CK(cudaMallocManaged(&energy, sizeof(double)));
    CK(cudaStreamAttachMemAsync(diag, energy, 0, cudaMemAttachSingle));
    CK(cudaStreamSynchronize(diag));

    const int blocks = (n + 255) / 256;
    auto step = [&](cudaStream_t st) {
        kick<<<blocks, 256, 0, st>>>(pos, vel, n, 1e-3f, 1e-4f);
        drift<<<blocks, 256, 0, st>>>(pos, vel, n, 1e-3f);
    };
    step(force);
    for (int s = 0; s < steps; ++s) {
        CK(cudaMemcpyAsync(pos_snap, pos, n * sizeof(float4), cudaMemcpyDeviceToDevice, force));
        CK(cudaMemcpyAsync(vel_snap, vel, n * sizeof(float4), cudaMemcpyDeviceToDevice, force));
        CK(cudaEventRecord(snap_ready, force));
        step(force);                        // step s+1 overlaps the diagnostics

        *energy = 0.0;                      // diag is idle: synchronized at the end of the last turn
        CK(cudaStreamWaitEvent(diag, snap_ready, 0));
        kinetic<<<blocks, 256, 0, diag>>>(vel_snap, pos_snap, energy, n);
        CK(cudaStreamSynchronize(diag));
        if (s % 10 == 0) std::printf("step %d: E_kin = %.6e\n", s, *energy);
    }

    CK(cudaDeviceSynchronize());
    CK(cudaFree(energy));
    CK(cudaFree(vel_snap)); CK(cudaFree(pos_snap)); CK(cudaFree(vel)); CK(cudaFree(pos));
    CK(cudaEventDestroy(snap_ready));
    CK(cudaStreamDestroy(diag)); CK(cudaStreamDestroy(force));
    return 0;
}
