// case: batched tridiagonal solver: SOLVER_HOST_WORKSPACE is defined to 0, so the workspace comes from cudaMalloc in the #else arm, but the destructor releases it unconditionally with cudaFreeHost
// expect: mismatched_free=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define SOLVER_HOST_WORKSPACE 0

#define CUDA_CHECK(call)                                                     \
    do {                                                                     \
        cudaError_t err_ = (call);                                           \
        if (err_ != cudaSuccess) {                                           \
            std::fprintf(stderr, "CUDA error %s at %s:%d\n",                 \
                         cudaGetErrorString(err_), __FILE__, __LINE__);      \
            std::exit(EXIT_FAILURE);                                         \
        }                                                                    \
    } while (0)

// Thomas algorithm, one system per thread; workspace holds the modified upper diagonal.
__global__ void thomas_batched(const double* a, const double* b, const double* c, double* d,
                               double* cprime, int n, int systems) {
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= systems) return;
    const size_t off = static_cast<size_t>(s) * n;
    cprime[off] = c[off] / b[off];
    d[off] = d[off] / b[off];
    for (int i = 1; i < n; ++i) {
        double m = b[off + i] - a[off + i] * cprime[off + i - 1];
        cprime[off + i] = c[off + i] / m;
        d[off + i] = (d[off + i] - a[off + i] * d[off + i - 1]) / m;
    }
    for (int i = n - 2; i >= 0; --i) d[off + i] -= cprime[off + i] * d[off + i + 1];
}

class TridiagSolver {
public:
    TridiagSolver(int n, int systems) : n_(n), systems_(systems) {
        size_t bytes = static_cast<size_t>(n_) * systems_ * sizeof(double);
        CUDA_CHECK(cudaMalloc(&d_a_, bytes));
        CUDA_CHECK(cudaMalloc(&d_b_, bytes));
        CUDA_CHECK(cudaMalloc(&d_c_, bytes));
        CUDA_CHECK(cudaMalloc(&d_rhs_, bytes));
#if SOLVER_HOST_WORKSPACE
        CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&workspace_), bytes, cudaHostAllocMapped));
#else
        CUDA_CHECK(cudaMalloc(&workspace_, bytes));
#endif
    }

    ~TridiagSolver() {
        cudaDeviceSynchronize();
        cudaFreeHost(workspace_); // EXPECT: mismatched_free
        cudaFree(d_rhs_);
        cudaFree(d_c_);
        cudaFree(d_b_);
        cudaFree(d_a_);
    }

    void solve(cudaStream_t s) {
        thomas_batched<<<(systems_ + 127) / 128, 128, 0, s>>>(d_a_, d_b_, d_c_, d_rhs_, workspace_, n_, systems_);
        CUDA_CHECK(cudaGetLastError());
    }

    double* rhs() { return d_rhs_; }

private:
    int n_, systems_;
    double *d_a_ = nullptr, *d_b_ = nullptr, *d_c_ = nullptr, *d_rhs_ = nullptr;
    double* workspace_ = nullptr;
};

int main() {
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));
    {
        TridiagSolver solver(512, 4096);
        solver.solve(s);
        CUDA_CHECK(cudaStreamSynchronize(s));
        std::puts("solved 4096 systems");
    }
    cudaStreamDestroy(s);
    return 0;
}
