// case: a finite-element assembler builds a host table of per-element-type device pointers (pointer arithmetic on cudaMalloc'd pools, never a dereference), uploads the table and runs a batched mat-vec through it
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x)                                                                  \
    do {                                                                               \
        cudaError_t e = (x);                                                           \
        if (e != cudaSuccess) {                                                        \
            std::fprintf(stderr, "fem: %s -> %s\n", #x, cudaGetErrorString(e));        \
            std::exit(1);                                                              \
        }                                                                              \
    } while (0)

constexpr int kDofs = 24;   // hexahedral element, 8 nodes x 3 dofs

// y_e = K_e * u_e for every element e, with K_e found through the pointer table.
__global__ void element_matvec(const double* const* Ke, const double* const* ue, double* const* ye, int n_elem) {
    int e = blockIdx.x;
    int r = threadIdx.x;
    if (e >= n_elem || r >= kDofs) return;
    const double* K = Ke[e];
    double acc = 0.0;
    for (int c = 0; c < kDofs; ++c) acc += K[r * kDofs + c] * ue[e][c];
    ye[e][r] = acc;
}

__global__ void fill_pool(double* p, size_t n, double v) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) p[i] = v * (1.0 + (i % kDofs == i / kDofs % kDofs));
}

int main() {
    const int n_elem = 100000;
    const size_t k_stride = kDofs * kDofs, v_stride = kDofs;

    double *K_pool = nullptr, *u_pool = nullptr, *y_pool = nullptr;
    CUDA_CHECK(cudaMalloc(&K_pool, n_elem * k_stride * sizeof(double)));
    CUDA_CHECK(cudaMalloc(&u_pool, n_elem * v_stride * sizeof(double)));
    CUDA_CHECK(cudaMalloc(&y_pool, n_elem * v_stride * sizeof(double)));

    // Host-side pointer tables: each entry is a device address inside a pool.
    std::vector<const double*> hK(n_elem), hU(n_elem);
    std::vector<double*> hY(n_elem);
    for (int e = 0; e < n_elem; ++e) {
        hK[e] = K_pool + e * k_stride;
        hU[e] = u_pool + e * v_stride;
        hY[e] = y_pool + e * v_stride;
    }
    if (hK[n_elem - 1] == nullptr || hY[0] != y_pool) return 1;   // sanity check on addresses only

    const double** dK = nullptr;
    const double** dU = nullptr;
    double** dY = nullptr;
    CUDA_CHECK(cudaMalloc(&dK, n_elem * sizeof(double*)));
    CUDA_CHECK(cudaMalloc(&dU, n_elem * sizeof(double*)));
    CUDA_CHECK(cudaMalloc(&dY, n_elem * sizeof(double*)));
    CUDA_CHECK(cudaMemcpy(dK, hK.data(), n_elem * sizeof(double*), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dU, hU.data(), n_elem * sizeof(double*), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dY, hY.data(), n_elem * sizeof(double*), cudaMemcpyHostToDevice));

    fill_pool<<<(unsigned)((n_elem * k_stride + 255) / 256), 256>>>(K_pool, n_elem * k_stride, 1.0);
    fill_pool<<<(unsigned)((n_elem * v_stride + 255) / 256), 256>>>(u_pool, n_elem * v_stride, 0.5);
    element_matvec<<<n_elem, 32>>>(dK, dU, dY, n_elem);
    CUDA_CHECK(cudaGetLastError());

    std::vector<double> y(n_elem * v_stride);
    CUDA_CHECK(cudaMemcpy(y.data(), y_pool, y.size() * sizeof(double), cudaMemcpyDeviceToHost));
    double norm = 0.0;
    for (double v : y) norm += v * v;
    std::printf("||y||^2 = %.6e over %d elements\n", norm, n_elem);

    CUDA_CHECK(cudaFree(dY)); CUDA_CHECK(cudaFree(dU)); CUDA_CHECK(cudaFree(dK));
    CUDA_CHECK(cudaFree(y_pool)); CUDA_CHECK(cudaFree(u_pool)); CUDA_CHECK(cudaFree(K_pool));
    return 0;
}
