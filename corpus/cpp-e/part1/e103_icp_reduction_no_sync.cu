// case: A point-cloud ICP solver (RAII class deriving from a solver base) copies each iteration's 6x6 normal-equation sums into pinned memory with cudaMemcpyAsync and reads them on the host before synchronizing the stream.
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "CUDA %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); std::abort(); } } while (0)

constexpr int kPoints = 1 << 16;
constexpr int kSysLen = 27; // 21 upper-triangular JtJ + 6 Jtr

__global__ void accumulate_normal_eqs(const float4* src, const float4* dst, int n, float* sys)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float rx = dst[i].x - src[i].x, ry = dst[i].y - src[i].y, rz = dst[i].z - src[i].z;
    float r = rx + ry + rz;
    for (int k = 0; k < kSysLen; ++k) atomicAdd(&sys[k], (k < 21 ? 1.0f : r) * 1e-3f);
}

class SolverBase {
public:
    explicit SolverBase(int max_iters) : max_iters_(max_iters) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    }
    virtual ~SolverBase() { cudaStreamDestroy(stream_); }
protected:
    int max_iters_;
    cudaStream_t stream_{};
};

class IcpSolver : public SolverBase {
public:
    IcpSolver(const std::vector<float4>& src, const std::vector<float4>& dst)
        : SolverBase(20), n_((int)src.size()) {
        CUDA_CHECK(cudaMalloc(&d_src_, n_ * sizeof(float4)));
        CUDA_CHECK(cudaMalloc(&d_dst_, n_ * sizeof(float4)));
        CUDA_CHECK(cudaMalloc(&d_sys_, kSysLen * sizeof(float)));
        CUDA_CHECK(cudaMallocHost(&h_sys_, kSysLen * sizeof(float)));
        CUDA_CHECK(cudaMemcpy(d_src_, src.data(), n_ * sizeof(float4), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(d_dst_, dst.data(), n_ * sizeof(float4), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    ~IcpSolver() override {
        cudaStreamSynchronize(stream_);
        cudaFreeHost(h_sys_);
        cudaFree(d_sys_); cudaFree(d_dst_); cudaFree(d_src_);
    }

    float run() {
        float last_update = 0.f;
        for (int it = 0; it < max_iters_; ++it) {
            enqueue_reduction();
            float A[kSysLen];
            for (int k = 0; k < kSysLen; ++k) A[k] = h_sys_[k]; // EXPECT: missing_sync
            last_update = solve_step(A);
            if (last_update < 1e-6f) break;
        }
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        return last_update;
    }

private:
    void enqueue_reduction() {
        CUDA_CHECK(cudaMemsetAsync(d_sys_, 0, kSysLen * sizeof(float), stream_));
        accumulate_normal_eqs<<<(n_ + 255) / 256, 256, 0, stream_>>>(d_src_, d_dst_, n_, d_sys_);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpyAsync(h_sys_, d_sys_, kSysLen * sizeof(float), cudaMemcpyDeviceToHost, stream_));
    }
    static float solve_step(const float* A) {
        float diag = 0.f, rhs = 0.f;
        for (int k = 0; k < 6; ++k) diag += A[k];
        for (int k = 21; k < kSysLen; ++k) rhs += A[k];
        return diag != 0.f ? (rhs / diag) * (rhs / diag) : 0.f;
    }

    int n_;
    float4* d_src_ = nullptr;
    float4* d_dst_ = nullptr;
    float* d_sys_ = nullptr;
    float* h_sys_ = nullptr;
};

int main()
{
    std::vector<float4> src(kPoints), dst(kPoints);
    for (int i = 0; i < kPoints; ++i) {
        src[i] = make_float4(i * 1e-3f, 0.f, 1.f, 1.f);
        dst[i] = make_float4(i * 1e-3f + 0.01f, 0.02f, 1.f, 1.f);
    }
    IcpSolver icp(src, dst);
    std::printf("final update %g\n", icp.run());
    return 0;
}
