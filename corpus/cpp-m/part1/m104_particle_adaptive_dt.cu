// case: A particle simulation keeps particles and its parameters in managed memory; right after launching the integrator it scans the particles for the largest speed (the kernel still writes them: missing_sync) and stores the new time step into the managed parameter block, which no running kernel uses but which devices without concurrent managed access fault on (managed_concurrent_access); the stream is synchronized only afterwards.
// expect: missing_sync=1, managed_concurrent_access=1
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#define CUDA_OK(call)                                                              \
    do {                                                                           \
        cudaError_t rc_ = (call);                                                  \
        if (rc_ != cudaSuccess) {                                                  \
            std::fprintf(stderr, "cuda: %s (%s:%d)\n", cudaGetErrorString(rc_),    \
                         __FILE__, __LINE__);                                      \
            std::exit(EXIT_FAILURE);                                               \
        }                                                                          \
    } while (0)

struct Particle {
    float3 pos;
    float3 vel;
    float mass;
};

struct SimParams {
    float dt;
    float gravity;
    float damping;
    float box;
    float cfl;
};

__global__ void integrate(Particle* p, int n, SimParams prm) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Particle q = p[i];
    q.vel.y -= prm.gravity * prm.dt;
    q.vel.x *= prm.damping; q.vel.y *= prm.damping; q.vel.z *= prm.damping;
    q.pos.x += q.vel.x * prm.dt; q.pos.y += q.vel.y * prm.dt; q.pos.z += q.vel.z * prm.dt;
    if (q.pos.y < 0.0f) { q.pos.y = -q.pos.y; q.vel.y = -q.vel.y; }
    if (fabsf(q.pos.x) > prm.box) q.vel.x = -q.vel.x;
    if (fabsf(q.pos.z) > prm.box) q.vel.z = -q.vel.z;
    p[i] = q;
}

class ParticleSystem {
public:
    explicit ParticleSystem(int n) : n_(n) {
        CUDA_OK(cudaMallocManaged(&particles_, sizeof(Particle) * n_));
        CUDA_OK(cudaMallocManaged(&params_, sizeof(SimParams)));
        CUDA_OK(cudaStreamCreate(&stream_));
        *params_ = SimParams{1e-3f, 9.81f, 0.999f, 50.0f, 0.2f};
        for (int i = 0; i < n_; ++i) {
            float a = 0.001f * i;
            particles_[i].pos = make_float3(10.0f * std::cos(a), 5.0f + (i % 97) * 0.1f, 10.0f * std::sin(a));
            particles_[i].vel = make_float3(std::sin(3 * a), 0.0f, std::cos(5 * a));
            particles_[i].mass = 1.0f;
        }
    }
    ~ParticleSystem() {
        cudaStreamDestroy(stream_);
        cudaFree(params_);
        cudaFree(particles_);
    }

    void step() {
        integrate<<<(n_ + 255) / 256, 256, 0, stream_>>>(particles_, n_, *params_);
        CUDA_OK(cudaGetLastError());

        // Adaptive time step from the fastest particle.
        float vmax = 0.0f;
        for (int i = 0; i < n_; ++i) {
            const float3 v = particles_[i].vel;  // EXPECT: missing_sync
            vmax = std::max(vmax, std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z));
        }
        float dt = vmax > 0.0f ? 0.05f / vmax : 1e-3f;
        params_->dt = std::min(dt, 1e-2f);  // EXPECT: managed_concurrent_access

        CUDA_OK(cudaStreamSynchronize(stream_));
        time_ += params_->dt;
    }

    double kinetic_energy() const {
        double e = 0.0;
        for (int i = 0; i < n_; ++i) {
            const Particle& q = particles_[i];
            e += 0.5 * q.mass * (q.vel.x * q.vel.x + q.vel.y * q.vel.y + q.vel.z * q.vel.z);
        }
        return e;
    }

    double time() const { return time_; }

private:
    int n_;
    Particle* particles_ = nullptr;
    SimParams* params_ = nullptr;
    cudaStream_t stream_ = nullptr;
    double time_ = 0.0;
};

int main() {
    ParticleSystem sys(1 << 18);
    for (int s = 0; s < 200; ++s) {
        sys.step();
        if (s % 50 == 0) std::printf("t=%.4f E=%.3f\n", sys.time(), sys.kinetic_energy());
    }
    return 0;
}
