// case: An SPH particle step downloads all particle positions through a header template that does cudaMemcpyAsync into a std::vector (pageable, 16 MiB); the upload template is only used with cudaMallocHost staging.
// expect: pageable_async_copy=1
#include "transfer.cuh"
#include <cmath>

struct Particle {
    float4 pos;   // xyz + mass
    float4 vel;   // xyz + density
};

__global__ void integrate(Particle* p, int n, float dt, float3 gravity) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Particle q = p[i];
    q.vel.x += gravity.x * dt;
    q.vel.y += gravity.y * dt;
    q.vel.z += gravity.z * dt;
    q.pos.x += q.vel.x * dt;
    q.pos.y += q.vel.y * dt;
    q.pos.z += q.vel.z * dt;
    if (q.pos.y < 0.f) { q.pos.y = -q.pos.y; q.vel.y *= -0.5f; }
    p[i] = q;
}

class ParticleSystem {
public:
    explicit ParticleSystem(int n) : n_(n) {
        SPH_CHECK(cudaStreamCreate(&stream_));
        SPH_CHECK(cudaMalloc(&d_particles_, n * sizeof(Particle)));
        SPH_CHECK(cudaMallocHost(&h_staging_, n * sizeof(Particle)));
    }
    ~ParticleSystem() {
        cudaStreamSynchronize(stream_);
        cudaFreeHost(h_staging_);
        cudaFree(d_particles_);
        cudaStreamDestroy(stream_);
    }

    void seed() {
        for (int i = 0; i < n_; ++i) {
            float t = 0.001f * i;
            h_staging_[i].pos = make_float4(std::cos(t), 1.f + 0.01f * (i % 100), std::sin(t), 1.f);
            h_staging_[i].vel = make_float4(0.f, 0.f, 0.f, 1000.f);
        }
        sph::upload_async(d_particles_, h_staging_, size_t(n_), stream_);
    }

    void step(float dt) {
        integrate<<<(n_ + 255) / 256, 256, 0, stream_>>>(d_particles_, n_, dt,
                                                          make_float3(0.f, -9.81f, 0.f));
    }

    std::vector<Particle> snapshot() {
        std::vector<Particle> out;
        sph::download_async(out, d_particles_, size_t(n_), stream_);
        SPH_CHECK(cudaStreamSynchronize(stream_));
        return out;
    }

private:
    int n_;
    cudaStream_t stream_;
    Particle* d_particles_ = nullptr;
    Particle* h_staging_ = nullptr;
};

int main() {
    const int n = 1 << 19;  // 512k particles, 32 bytes each
    ParticleSystem sys(n);
    sys.seed();
    for (int it = 0; it < 100; ++it) sys.step(1e-3f);
    std::vector<Particle> frame = sys.snapshot();
    double ymean = 0.0;
    for (const Particle& p : frame) ymean += p.pos.y;
    printf("mean height %.5f\n", ymean / n);
    return 0;
}
