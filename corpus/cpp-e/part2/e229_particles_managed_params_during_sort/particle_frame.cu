// case: a game's particle system launches its depth-sort key kernel (device memory only) and, while it may still run, the frame loop writes the next frame's fields into the globally attached managed SimParams that only the later integrate kernel reads.
// expect: managed_concurrent_access=1
#include "sim_params.h"
#include <cstdint>

constexpr int kParticles = 1 << 20;

__global__ void depth_keys(const float4* pos, uint32_t* keys, int n, float cam_z) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) keys[i] = __float_as_uint(fabsf(pos[i].z - cam_z));
}

__global__ void integrate(float4* pos, float4* vel, int n, const SimParams* p) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    vel[i].x += (p->wind_x - p->drag * vel[i].x) * p->dt;
    vel[i].y += p->gravity * p->dt;
    vel[i].z += (p->wind_z - p->drag * vel[i].z) * p->dt;
    pos[i].x += vel[i].x * p->dt;
    pos[i].y += vel[i].y * p->dt;
    pos[i].z += vel[i].z * p->dt;
}

class ParticleFrame {
public:
    ParticleFrame() : params_(make_params()) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&render_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaStreamCreateWithFlags(&sim_, cudaStreamNonBlocking));
        DEVICE_ZEROED(d_pos_, kParticles);
        DEVICE_ZEROED(d_vel_, kParticles);
        DEVICE_ZEROED(d_keys_, kParticles);
        DEVICE_ZEROED(d_render_pos_, kParticles);   // last frame's positions, owned by the renderer
    }
    ~ParticleFrame() {
        cudaDeviceSynchronize();
        cudaFree(d_render_pos_);
        cudaFree(d_keys_);
        cudaFree(d_vel_);
        cudaFree(d_pos_);
        cudaFree(params_);
        cudaStreamDestroy(sim_);
        cudaStreamDestroy(render_);
    }

    void tick(int frame, float wind) {
        depth_keys<<<kParticles / 256, 256, 0, render_>>>(d_render_pos_, d_keys_, kParticles, 10.f);
        params_->frame = frame; // EXPECT: managed_concurrent_access
        params_->wind_x = wind;
        params_->wind_z = 0.5f * wind;
        integrate<<<kParticles / 256, 256, 0, sim_>>>(d_pos_, d_vel_, kParticles, params_);
        CUDA_CHECK(cudaStreamSynchronize(sim_));
        CUDA_CHECK(cudaStreamSynchronize(render_));
        // hand this frame's positions to the renderer for the next sort
        CUDA_CHECK(cudaMemcpyAsync(d_render_pos_, d_pos_, sizeof(float4) * kParticles, cudaMemcpyDeviceToDevice, render_));
        CUDA_CHECK(cudaStreamSynchronize(render_));
    }

private:
    SimParams* params_;
    cudaStream_t render_{}, sim_{};
    float4* d_pos_ = nullptr;
    float4* d_vel_ = nullptr;
    uint32_t* d_keys_ = nullptr;
    float4* d_render_pos_ = nullptr;
};

int main() {
    ParticleFrame pf;
    for (int f = 0; f < 240; ++f) pf.tick(f, 0.01f * (f % 30));
    std::puts("240 frames");
    return 0;
}
