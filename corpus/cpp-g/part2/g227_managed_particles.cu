// case: an N-body integrator keeps its run statistics in a cudaMallocManaged struct and updates them on the host in every step's loop body right after launching the integrate kernel, which does not use the stats but is still running (a fault without concurrent managed access).
// expect: managed_concurrent_access=1
#include <cuda_runtime.h>
#include <cstdio>
#include <stdexcept>

#define NB_CHECK(x)                                                                \
    do {                                                                           \
        cudaError_t e_ = (x);                                                      \
        if (e_ != cudaSuccess) throw std::runtime_error(cudaGetErrorString(e_));   \
    } while (0)

struct RunStats {
    long long step;
    double sim_time;
    double wall_budget_left;
};

__global__ void integrate(float4* pos, float4* vel, int n, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = pos[i], v = vel[i];
    float r2 = p.x * p.x + p.y * p.y + p.z * p.z + 1e-3f;
    float inv = rsqrtf(r2 * r2 * r2);
    v.x -= p.x * inv * dt; v.y -= p.y * inv * dt; v.z -= p.z * inv * dt;
    p.x += v.x * dt; p.y += v.y * dt; p.z += v.z * dt;
    pos[i] = p;
    vel[i] = v;
}

class Simulation {
public:
    explicit Simulation(int n) : n_(n) {
        NB_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        NB_CHECK(cudaMalloc(&pos_, n * sizeof(float4)));
        NB_CHECK(cudaMalloc(&vel_, n * sizeof(float4)));
        NB_CHECK(cudaMemset(pos_, 0, n * sizeof(float4)));
        NB_CHECK(cudaMemset(vel_, 0, n * sizeof(float4)));
        NB_CHECK(cudaMallocManaged(&stats_, sizeof(RunStats)));
        stats_->step = 0;
        stats_->sim_time = 0.0;
        stats_->wall_budget_left = 3600.0;
    }
    ~Simulation() {
        cudaStreamSynchronize(stream_);
        cudaFree(stats_);
        cudaFree(pos_);
        cudaFree(vel_);
        cudaStreamDestroy(stream_);
    }

    void run(int steps, float dt) {
        const unsigned blocks = (n_ + 255) / 256;
        for (int s = 0; s < steps; ++s) {
            integrate<<<blocks, 256, 0, stream_>>>(pos_, vel_, n_, dt);
            stats_->step += 1;
            stats_->sim_time += dt;
            if (s % 100 == 99) {
                NB_CHECK(cudaStreamSynchronize(stream_));
                std::printf("checkpoint at step %d\n", s + 1);
            }
        }
        NB_CHECK(cudaStreamSynchronize(stream_));
    }

private:
    int n_;
    cudaStream_t stream_{};
    float4* pos_ = nullptr;
    float4* vel_ = nullptr;
    RunStats* stats_ = nullptr;
};

int main() {
    Simulation sim(1 << 18);
    sim.run(1000, 1e-3f);
    return 0;
}
