// case: Jacobi heat solver: the only cudaStreamSynchronize between the async residual copy and the host's convergence test sits inside #ifdef HEAT_DEBUG_SYNC, which the default build does not define
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

#define CUDA_CHECK(call)                                                     \
    do {                                                                     \
        cudaError_t err_ = (call);                                           \
        if (err_ != cudaSuccess) {                                           \
            std::fprintf(stderr, "CUDA error %s at %s:%d\n",                 \
                         cudaGetErrorString(err_), __FILE__, __LINE__);      \
            std::exit(EXIT_FAILURE);                                         \
        }                                                                    \
    } while (0)

__global__ void jacobi_step(const float* u, float* u_new, float* residual, int nx, int ny) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
    int i = y * nx + x;
    float v = 0.25f * (u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx]);
    u_new[i] = v;
    atomicAdd(residual, fabsf(v - u[i]));
}

class HeatSolver {
public:
    HeatSolver(int nx, int ny) : nx_(nx), ny_(ny) {
        size_t bytes = static_cast<size_t>(nx_) * ny_ * sizeof(float);
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&d_u_, bytes));
        CUDA_CHECK(cudaMalloc(&d_u_new_, bytes));
        CUDA_CHECK(cudaMalloc(&d_residual_, sizeof(float)));
        CUDA_CHECK(cudaMallocHost(&h_residual_, sizeof(float)));
        CUDA_CHECK(cudaMemsetAsync(d_u_, 0, bytes, stream_));
        CUDA_CHECK(cudaMemsetAsync(d_u_new_, 0, bytes, stream_));
    }
    ~HeatSolver() {
        cudaStreamSynchronize(stream_);
        cudaFreeHost(h_residual_);
        cudaFree(d_residual_);
        cudaFree(d_u_new_);
        cudaFree(d_u_);
        cudaStreamDestroy(stream_);
    }

    int solve(int max_iters, float tol) {
        dim3 block(32, 8);
        dim3 grid((nx_ + 31) / 32, (ny_ + 7) / 8);
        for (int it = 0; it < max_iters; ++it) {
            CUDA_CHECK(cudaMemsetAsync(d_residual_, 0, sizeof(float), stream_));
            jacobi_step<<<grid, block, 0, stream_>>>(d_u_, d_u_new_, d_residual_, nx_, ny_);
            CUDA_CHECK(cudaMemcpyAsync(h_residual_, d_residual_, sizeof(float), cudaMemcpyDeviceToHost, stream_));
#ifdef HEAT_DEBUG_SYNC
            CUDA_CHECK(cudaStreamSynchronize(stream_));
            std::printf("iter %d residual %g\n", it, *h_residual_);
#endif
            std::swap(d_u_, d_u_new_);
            if (*h_residual_ < tol) return it; // EXPECT: missing_sync
        }
        return max_iters;
    }

private:
    int nx_, ny_;
    cudaStream_t stream_ = nullptr;
    float* d_u_ = nullptr;
    float* d_u_new_ = nullptr;
    float* d_residual_ = nullptr;
    float* h_residual_ = nullptr;
};

int main() {
    HeatSolver solver(2048, 2048);
    int iters = solver.solve(500, 1e-3f);
    std::printf("converged after %d iterations\n", iters);
    return 0;
}
