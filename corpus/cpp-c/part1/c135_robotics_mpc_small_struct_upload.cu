// case: an arm MPC controller sends its gains and joint state each cycle through a function template upload_async<T>() that copies sizeof(T) bytes from a stack object (a few hundred bytes, under the 64 KiB threshold), while the large reference trajectory goes through cudaHostAlloc'd pinned memory; the stack objects stay untouched until the stream is synchronized.
// expect: none
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                            \
    do {                                                                            \
        cudaError_t e_ = (call);                                                    \
        if (e_ != cudaSuccess) {                                                    \
            std::fprintf(stderr, "mpc: %s (%s)\n", cudaGetErrorString(e_), #call);  \
            std::exit(1);                                                           \
        }                                                                           \
    } while (0)

constexpr int kJoints = 7;
constexpr int kHorizon = 64;
constexpr int kRollouts = 4096;
constexpr int kRefPoints = 1 << 16;

struct ControlGains { float q_pos[kJoints], q_vel[kJoints], r_torque[kJoints], torque_limit[kJoints]; };
struct JointState { float pos[kJoints], vel[kJoints]; double stamp; };
struct RefPoint { float pos[kJoints]; float vel[kJoints]; };   // 56 bytes, 64 Ki points = 3.5 MiB

template <typename T>
void upload_async(T* dst, const T& src, cudaStream_t s) {
    CUDA_CHECK(cudaMemcpyAsync(dst, &src, sizeof(T), cudaMemcpyHostToDevice, s));
}

__global__ void rollout_cost(const ControlGains* g, const JointState* x0, const RefPoint* ref, int ref_start, float* cost) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= kRollouts) return;
    float pos[kJoints], vel[kJoints], c = 0.f;
    for (int j = 0; j < kJoints; ++j) { pos[j] = x0->pos[j]; vel[j] = x0->vel[j]; }
    for (int t = 0; t < kHorizon; ++t) {
        const RefPoint& p = ref[(ref_start + t) % kRefPoints];
        for (int j = 0; j < kJoints; ++j) {
            float u = fminf(fmaxf(0.01f * ((r * 31 + t * 7 + j) % 200 - 100), -g->torque_limit[j]), g->torque_limit[j]);
            vel[j] += 0.002f * u;
            pos[j] += 0.002f * vel[j];
            c += g->q_pos[j] * (pos[j] - p.pos[j]) * (pos[j] - p.pos[j]) + g->q_vel[j] * (vel[j] - p.vel[j]) * (vel[j] - p.vel[j]) + g->r_torque[j] * u * u;
        }
    }
    cost[r] = c;
}

int main() {
    RefPoint* h_ref = nullptr;
    CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&h_ref), kRefPoints * sizeof(RefPoint), cudaHostAllocPortable));
    for (int i = 0; i < kRefPoints; ++i)
        for (int j = 0; j < kJoints; ++j) { h_ref[i].pos[j] = std::sin(0.001f * i + j); h_ref[i].vel[j] = std::cos(0.001f * i + j); }

    ControlGains* d_gains = nullptr;
    JointState* d_state = nullptr;
    RefPoint* d_ref = nullptr;
    float *d_cost = nullptr, *h_cost = nullptr;
    CUDA_CHECK(cudaMalloc(&d_gains, sizeof(ControlGains)));
    CUDA_CHECK(cudaMalloc(&d_state, sizeof(JointState)));
    CUDA_CHECK(cudaMalloc(&d_ref, kRefPoints * sizeof(RefPoint)));
    CUDA_CHECK(cudaMalloc(&d_cost, kRollouts * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_cost, kRollouts * sizeof(float)));

    cudaStream_t ctl;
    CUDA_CHECK(cudaStreamCreateWithFlags(&ctl, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMemcpyAsync(d_ref, h_ref, kRefPoints * sizeof(RefPoint), cudaMemcpyHostToDevice, ctl));

    for (int cycle = 0; cycle < 5; ++cycle) {
        ControlGains gains{};
        JointState state{};
        for (int j = 0; j < kJoints; ++j) {
            gains.q_pos[j] = 10.f; gains.q_vel[j] = 1.f; gains.r_torque[j] = 0.01f; gains.torque_limit[j] = 40.f;
            state.pos[j] = std::sin(0.001f * cycle * kHorizon + j);
            state.vel[j] = 0.f;
        }
        state.stamp = cycle * 0.002;

        upload_async(d_gains, gains, ctl);
        upload_async(d_state, state, ctl);
        rollout_cost<<<(kRollouts + 127) / 128, 128, 0, ctl>>>(d_gains, d_state, d_ref, cycle * kHorizon, d_cost);
        CUDA_CHECK(cudaMemcpyAsync(h_cost, d_cost, kRollouts * sizeof(float), cudaMemcpyDeviceToHost, ctl));
        CUDA_CHECK(cudaStreamSynchronize(ctl));

        int best = 0;
        for (int r = 1; r < kRollouts; ++r) if (h_cost[r] < h_cost[best]) best = r;
        std::printf("cycle %d: best rollout %d, cost %.3f\n", cycle, best, h_cost[best]);
    }

    CUDA_CHECK(cudaStreamDestroy(ctl));
    CUDA_CHECK(cudaFreeHost(h_cost));
    CUDA_CHECK(cudaFreeHost(h_ref));
    CUDA_CHECK(cudaFree(d_cost));
    CUDA_CHECK(cudaFree(d_ref));
    CUDA_CHECK(cudaFree(d_state));
    CUDA_CHECK(cudaFree(d_gains));
    return 0;
}
