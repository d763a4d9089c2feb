// case: a game's GPU particle system page-locks its spawn vector with cudaHostRegister, uploads it with cudaMemcpyAsync and immediately refills it for the next frame before the stream is synchronized: registered memory is read by the copy in stream order, so the refill races the upload.
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::abort(); } } while (0)

struct Particle { float px, py, pz, vx, vy, vz, life, pad; };
constexpr int kSpawnPerFrame = 65536;
constexpr int kCapacity = 1 << 20;

__global__ void integrate(Particle* pool, int capacity, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= capacity || pool[i].life <= 0.f) return;
    pool[i].vy -= 9.81f * dt;
    pool[i].px += pool[i].vx * dt;
    pool[i].py += pool[i].vy * dt;
    pool[i].pz += pool[i].vz * dt;
    pool[i].life -= dt;
}

class ParticleSystem {
public:
    ParticleSystem() : spawn_(kSpawnPerFrame), rng_(1234u) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&d_pool_, size_t(kCapacity) * sizeof(Particle)));
        CUDA_CHECK(cudaMemsetAsync(d_pool_, 0, size_t(kCapacity) * sizeof(Particle), stream_));
        // page-locked in place: DMA straight from the vector, no staging copy
        CUDA_CHECK(cudaHostRegister(spawn_.data(), spawn_.size() * sizeof(Particle), cudaHostRegisterDefault));
        refill(0.f);
    }
    ~ParticleSystem() {
        cudaStreamSynchronize(stream_);
        cudaHostUnregister(spawn_.data());
        cudaFree(d_pool_);
        cudaStreamDestroy(stream_);
    }

    void frame(int n, float dt) {
        size_t slot = size_t(n % (kCapacity / kSpawnPerFrame)) * kSpawnPerFrame;
        CUDA_CHECK(cudaMemcpyAsync(d_pool_ + slot, spawn_.data(), spawn_.size() * sizeof(Particle),
                                   cudaMemcpyHostToDevice, stream_));
        integrate<<<kCapacity / 256, 256, 0, stream_>>>(d_pool_, kCapacity, dt);
        // prepare next frame's spawn batch while the GPU integrates
        for (auto& p : spawn_) {
            rng_ = rng_ * 1664525u + 1013904223u;
            float r = float(rng_ >> 8) / 16777216.0f;
            p = Particle{0.f, 0.f, 0.f, r - 0.5f, 5.0f + r, 0.5f - r, 2.0f, 0.f}; // EXPECT: missing_sync
        }
        CUDA_CHECK(cudaStreamSynchronize(stream_));
    }

private:
    void refill(float jitter) {
        for (auto& p : spawn_) {
            rng_ = rng_ * 1664525u + 1013904223u;
            float r = float(rng_ >> 8) / 16777216.0f + jitter;
            p = Particle{0.f, 0.f, 0.f, r - 0.5f, 5.0f + r, 0.5f - r, 2.0f, 0.f};
        }
    }

    std::vector<Particle> spawn_;
    unsigned rng_;
    cudaStream_t stream_{};
    Particle* d_pool_ = nullptr;
};

int main() {
    ParticleSystem ps;
    for (int n = 0; n < 120; ++n) ps.frame(n, 1.0f / 60.0f);
    std::puts("simulated 120 frames");
    return 0;
}
