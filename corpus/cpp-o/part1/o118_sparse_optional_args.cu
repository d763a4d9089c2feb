// case: ELL-format SpMV with an optional diagonal-scaling vector: pointers start as nullptr but are allocated through a helper this file defines or on both branches of the mode switch, and the one left null goes to a kernel parameter the kernel tests before use: correct.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "%s\n", cudaGetErrorString(e)); exit(1); } } while (0)

enum class Precond { None, Jacobi, RowNorm };

static void alloc_device(float** p, size_t n)
{
    CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(p), n * sizeof(float)));
}

__global__ void spmv_ell(int rows, int width, const int* __restrict__ cols, const float* __restrict__ vals,
                         const float* __restrict__ x, const float* __restrict__ diag_scale, float* __restrict__ y)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float acc = 0.f;
    for (int k = 0; k < width; ++k) {
        int c = cols[k * rows + r];
        if (c >= 0) acc += vals[k * rows + r] * x[c];
    }
    if (diag_scale != nullptr) acc *= diag_scale[r];
    y[r] = acc;
}

int main(int argc, char** argv)
{
    const int rows = argc > 1 ? atoi(argv[1]) : 1 << 18, width = 5;
    Precond mode = argc > 2 ? static_cast<Precond>(atoi(argv[2]) % 3) : Precond::None;

    std::vector<int> cols((size_t)rows * width);
    std::vector<float> vals((size_t)rows * width), x(rows, 1.f), scale(rows);
    for (int r = 0; r < rows; ++r)
        for (int k = 0; k < width; ++k) {
            int c = r + k - width / 2;
            cols[(size_t)k * rows + r] = (c >= 0 && c < rows) ? c : -1;
            vals[(size_t)k * rows + r] = k == width / 2 ? 4.f : -1.f;
        }

    int* d_cols = nullptr;
    float *d_vals = nullptr, *d_x = nullptr, *d_y = nullptr, *d_scale = nullptr;
    CUDA_CHECK(cudaMalloc(&d_cols, cols.size() * sizeof(int)));
    alloc_device(&d_vals, vals.size());
    alloc_device(&d_x, rows);
    alloc_device(&d_y, rows);

    switch (mode) {
    case Precond::Jacobi:
        for (int r = 0; r < rows; ++r) scale[r] = 0.25f;
        CUDA_CHECK(cudaMalloc(&d_scale, rows * sizeof(float)));
        CUDA_CHECK(cudaMemcpy(d_scale, scale.data(), rows * sizeof(float), cudaMemcpyHostToDevice));
        break;
    case Precond::RowNorm:
        for (int r = 0; r < rows; ++r) scale[r] = 1.f / 7.f;
        alloc_device(&d_scale, rows);
        CUDA_CHECK(cudaMemcpy(d_scale, scale.data(), rows * sizeof(float), cudaMemcpyHostToDevice));
        break;
    case Precond::None:
        break;                      // d_scale stays null: the kernel checks it
    }

    CUDA_CHECK(cudaMemcpy(d_cols, cols.data(), cols.size() * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_vals, vals.data(), vals.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_x, x.data(), rows * sizeof(float), cudaMemcpyHostToDevice));
    spmv_ell<<<(rows + 255) / 256, 256>>>(rows, width, d_cols, d_vals, d_x, d_scale, d_y);
    CUDA_CHECK(cudaGetLastError());

    std::vector<float> y(rows);
    CUDA_CHECK(cudaMemcpy(y.data(), d_y, rows * sizeof(float), cudaMemcpyDeviceToHost));
    printf("y[0]=%.3f y[mid]=%.3f\n", y[0], y[rows / 2]);

    CUDA_CHECK(cudaFree(d_scale));   // null in Precond::None: a no-op
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_vals));
    CUDA_CHECK(cudaFree(d_cols));
    return 0;
}
