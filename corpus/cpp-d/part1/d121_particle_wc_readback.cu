// case: game-engine particle pass derived from a ComputePass base: its CPU-culling readback buffer is allocated with the engine's upload-staging macro (cudaHostAllocWriteCombined) and then read by bounds(), and its destructor passes the address of a __device__ force table (from cudaGetSymbolAddress) to cudaFree.
// expect: write_combined_host_read=1, mismatched_free=1
#include <cuda_runtime.h>
#include <cfloat>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t e_ = (call);                                                  \
        if (e_ != cudaSuccess) {                                                  \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            std::exit(1);                                                         \
        }                                                                         \
    } while (0)
// engine-wide: host buffers the CPU fills and the GPU reads
#define ALLOC_STAGING(p, bytes) \
    CUDA_CHECK(cudaHostAlloc((void**)&(p), (bytes), cudaHostAllocWriteCombined | cudaHostAllocPortable))

__device__ float c_force_table[256];

__global__ void build_force_table(float* table)
{
    int i = threadIdx.x;
    table[i] = 1.0f / (1.0f + 0.05f * i * i);
}

__global__ void integrate(float4* pos, float4* vel, const float* table, int n, float dt)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = pos[i], v = vel[i];
    float r2 = p.x * p.x + p.y * p.y + p.z * p.z;
    float f = table[min((int)r2, 255)];
    v.x -= f * p.x * dt; v.y -= f * p.y * dt; v.z -= f * p.z * dt;
    p.x += v.x * dt; p.y += v.y * dt; p.z += v.z * dt;
    pos[i] = p; vel[i] = v;
}

struct Bounds { float lo[3], hi[3]; };

class ComputePass {
public:
    ComputePass() { CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
    virtual ~ComputePass() { cudaStreamDestroy(stream_); }
    virtual void dispatch(float dt) = 0;
    void wait() { CUDA_CHECK(cudaStreamSynchronize(stream_)); }
protected:
    cudaStream_t stream_ = nullptr;
};

class ParticlePass : public ComputePass {
public:
    explicit ParticlePass(int n) : n_(n), bytes_(size_t(n) * sizeof(float4))
    {
        CUDA_CHECK(cudaMalloc(&d_pos_, bytes_));
        CUDA_CHECK(cudaMalloc(&d_vel_, bytes_));
        ALLOC_STAGING(h_pos_, bytes_);
        CUDA_CHECK(cudaGetSymbolAddress(reinterpret_cast<void**>(&d_table_), c_force_table));
        build_force_table<<<1, 256, 0, stream_>>>(d_table_);
        for (int i = 0; i < n_; ++i) // write-only fill of the staging buffer
            h_pos_[i] = make_float4((i % 100) * 0.1f - 5.f, (i / 100 % 100) * 0.1f - 5.f, (i / 10000) * 0.1f, 1.f);
        CUDA_CHECK(cudaMemcpyAsync(d_pos_, h_pos_, bytes_, cudaMemcpyHostToDevice, stream_));
        CUDA_CHECK(cudaMemsetAsync(d_vel_, 0, bytes_, stream_));
    }
    ~ParticlePass() override
    {
        cudaStreamSynchronize(stream_);
        cudaFree(d_table_); // EXPECT: mismatched_free
        cudaFree(d_vel_);
        cudaFree(d_pos_);
        cudaFreeHost(h_pos_);
    }
    void dispatch(float dt) override
    {
        integrate<<<(n_ + 255) / 256, 256, 0, stream_>>>(d_pos_, d_vel_, d_table_, n_, dt);
    }
    void readback()
    {
        CUDA_CHECK(cudaMemcpyAsync(h_pos_, d_pos_, bytes_, cudaMemcpyDeviceToHost, stream_));
        wait();
    }
    Bounds bounds() const
    {
        Bounds b{{FLT_MAX, FLT_MAX, FLT_MAX}, {-FLT_MAX, -FLT_MAX, -FLT_MAX}};
        for (int i = 0; i < n_; ++i) {
            const float4 p = h_pos_[i]; // EXPECT: write_combined_host_read
            b.lo[0] = fminf(b.lo[0], p.x); b.hi[0] = fmaxf(b.hi[0], p.x);
            b.lo[1] = fminf(b.lo[1], p.y); b.hi[1] = fmaxf(b.hi[1], p.y);
            b.lo[2] = fminf(b.lo[2], p.z); b.hi[2] = fmaxf(b.hi[2], p.z);
        }
        return b;
    }
private:
    int n_;
    size_t bytes_;
    float4 *d_pos_ = nullptr, *d_vel_ = nullptr, *h_pos_ = nullptr;
    float* d_table_ = nullptr;
};

int main()
{
    ParticlePass pass(1 << 20);
    for (int frame = 0; frame < 30; ++frame) pass.dispatch(1.0f / 60.0f);
    pass.readback();
    Bounds b = pass.bounds();
    printf("particles: x [%.2f, %.2f] y [%.2f, %.2f] z [%.2f, %.2f]\n", b.lo[0], b.hi[0], b.lo[1],
           b.hi[1], b.lo[2], b.hi[2]);
    return 0;
}
