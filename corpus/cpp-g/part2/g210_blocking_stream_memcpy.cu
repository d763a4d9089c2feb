// case: a stencil solver launches its kernels on a stream made with plain cudaStreamCreate (a blocking stream) and reads the residuals back with blocking cudaMemcpy on the legacy default stream, which waits for that stream's work, so the host reads are ordered.
// expect: none
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <utility>
#include <vector>

#define SOLVER_CHECK(x)                                                              \
    do {                                                                             \
        cudaError_t err_ = (x);                                                      \
        if (err_ != cudaSuccess) throw std::runtime_error(cudaGetErrorString(err_)); \
    } while (0)

__global__ void jacobi_step(const float* u, float* u_next, float* residual, int nx, int ny) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x <= 0 || y <= 0 || x >= nx - 1 || y >= ny - 1) return;
    int i = y * nx + x;
    float v = 0.25f * (u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx]);
    u_next[i] = v;
    residual[i] = fabsf(v - u[i]);
}

class JacobiSolver {
public:
    JacobiSolver(int nx, int ny) : nx_(nx), ny_(ny), host_residual_(static_cast<size_t>(nx) * ny) {
        SOLVER_CHECK(cudaStreamCreate(&stream_));  // blocking w.r.t. the legacy default stream
        size_t bytes = sizeof(float) * nx * ny;
        SOLVER_CHECK(cudaMalloc(&u_, bytes));
        SOLVER_CHECK(cudaMalloc(&u_next_, bytes));
        SOLVER_CHECK(cudaMalloc(&residual_, bytes));
        SOLVER_CHECK(cudaMemset(u_, 0, bytes));
        SOLVER_CHECK(cudaMemset(u_next_, 0, bytes));
        SOLVER_CHECK(cudaMemset(residual_, 0, bytes));
    }
    ~JacobiSolver() {
        cudaDeviceSynchronize();
        cudaFree(u_);
        cudaFree(u_next_);
        cudaFree(residual_);
        cudaStreamDestroy(stream_);
    }

    float iterate(int sweeps) {
        dim3 block(32, 8), grid((nx_ + 31) / 32, (ny_ + 7) / 8);
        for (int s = 0; s < sweeps; ++s) {
            jacobi_step<<<grid, block, 0, stream_>>>(u_, u_next_, residual_, nx_, ny_);
            std::swap(u_, u_next_);
        }
        // Legacy-stream copy: starts after all prior work of blocking streams, returns when done.
        SOLVER_CHECK(cudaMemcpy(host_residual_.data(), residual_, sizeof(float) * host_residual_.size(),
                                cudaMemcpyDeviceToHost));
        float worst = 0.f;
        for (float r : host_residual_) worst = std::fmax(worst, r);
        return worst;
    }

private:
    int nx_, ny_;
    std::vector<float> host_residual_;
    cudaStream_t stream_{};
    float* u_ = nullptr;
    float* u_next_ = nullptr;
    float* residual_ = nullptr;
};

int main() {
    JacobiSolver solver(2048, 2048);
    for (int epoch = 0; epoch < 5; ++epoch) {
        float r = solver.iterate(50);
        std::printf("epoch %d max residual %g\n", epoch, r);
        if (r < 1e-6f) break;
    }
    return 0;
}
