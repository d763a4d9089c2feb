// case: a naive square matrix multiply whose readback copies from d_A (same size) instead of d_C, so the product the kernel wrote into d_C is freed unread.
// expect: unread_kernel_output=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); exit(1); } } while (0)

#define DIM 512

template <typename T>
__global__ void matmul_naive(const T* A, const T* B, T* C, int n)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < n && col < n) {
        T acc = 0;
        for (int k = 0; k < n; ++k) acc += A[row * n + k] * B[k * n + col];
        C[row * n + col] = acc;
    }
}

template <typename T>
void gpu_matmul(const T* hA, const T* hB, T* hC)
{
    const size_t bytes = DIM * DIM * sizeof(T);
    T *dA, *dB, *dC;
    CHECK(cudaMalloc(&dA, bytes));
    CHECK(cudaMalloc(&dB, bytes));
    CHECK(cudaMalloc(&dC, bytes));
    CHECK(cudaMemcpy(dA, hA, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, hB, bytes, cudaMemcpyHostToDevice));

    dim3 block(16, 16), grid(DIM / 16, DIM / 16);
    matmul_naive<T><<<grid, block>>>(dA, dB, dC, DIM);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(hC, dA, bytes, cudaMemcpyDeviceToHost));

    CHECK(cudaFree(dA));
    CHECK(cudaFree(dB));
    CHECK(cudaFree(dC)); // EXPECT: unread_kernel_output
}

int main()
{
    double* A = new double[DIM * DIM];
    double* B = new double[DIM * DIM];
    double* C = new double[DIM * DIM];
    for (int i = 0; i < DIM * DIM; ++i) {
        A[i] = (i % DIM == i / DIM) ? 2.0 : 0.0;
        B[i] = double(i % 10);
    }

    gpu_matmul<double>(A, B, C);
    printf("C[1] = %f (expected %f)\n", C[1], 2.0 * B[1]);

    delete[] A;
    delete[] B;
    delete[] C;
    return 0;
}
