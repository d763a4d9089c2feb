// case: conjugate-gradient style Solver class whose step() keeps the residual-norm accumulator in a local initialized to nullptr that is never allocated; the norm kernel and the readback get null
// expect: unallocated_pointer=2
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
    do {                                                                    \
        cudaError_t e_ = (call);                                            \
        if (e_ != cudaSuccess) {                                            \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            std::exit(EXIT_FAILURE);                                        \
        }                                                                   \
    } while (0)

constexpr int kN = 1 << 16;

__global__ void residual(const double *b, const double *x, double *r, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double ax = 2.0 * x[i];
    if (i > 0) ax -= x[i - 1];
    if (i < n - 1) ax -= x[i + 1];
    r[i] = b[i] - ax;
}

__global__ void sq_norm(const double *r, double *norm, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(norm, r[i] * r[i]);
}

class Solver {
public:
    explicit Solver(const std::vector<double> &b) {
        CUDA_CHECK(cudaMalloc(&d_b_, kN * sizeof(double)));
        CUDA_CHECK(cudaMalloc(&d_x_, kN * sizeof(double)));
        CUDA_CHECK(cudaMalloc(&d_r_, kN * sizeof(double)));
        CUDA_CHECK(cudaMemcpy(d_b_, b.data(), kN * sizeof(double), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemset(d_x_, 0, kN * sizeof(double)));
    }
    ~Solver() {
        cudaFree(d_b_);
        cudaFree(d_x_);
        cudaFree(d_r_);
    }

    double residual_norm() {
        double *d_norm = nullptr;
        double norm = 0.0;
        residual<<<kN / 256, 256>>>(d_b_, d_x_, d_r_, kN);
        sq_norm<<<kN / 256, 256>>>(d_r_, d_norm, kN); // EXPECT: unallocated_pointer
        CUDA_CHECK(cudaMemcpy(&norm, d_norm, sizeof(double), cudaMemcpyDeviceToHost)); // EXPECT: unallocated_pointer
        return std::sqrt(norm);
    }

private:
    double *d_b_ = nullptr;
    double *d_x_ = nullptr;
    double *d_r_ = nullptr;
};

int main()
{
    std::vector<double> b(kN, 1.0);
    Solver solver(b);
    std::printf("initial residual %.6e\n", solver.residual_norm());
    return 0;
}
