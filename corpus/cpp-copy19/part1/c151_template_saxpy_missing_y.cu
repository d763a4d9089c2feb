// case: templated SAXPY/DAXPY driver whose y buffer is initialized to nullptr and never allocated; its upload, the launch that reads and writes it and the readback all get null
// expect: unallocated_pointer=3
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
    do {                                                                    \
        cudaError_t e = (call);                                             \
        if (e != cudaSuccess) {                                             \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
            std::exit(1);                                                   \
        }                                                                   \
    } while (0)

constexpr int kN = 1 << 20;

template <typename T>
__global__ void axpy(T a, const T *x, T *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

template <typename T>
T run_axpy(T a)
{
    std::vector<T> hx(kN, T(1)), hy(kN, T(2));
    T *dx = nullptr;
    T *dy = nullptr;
    CUDA_CHECK(cudaMalloc(&dx, kN * sizeof(T)));

    CUDA_CHECK(cudaMemcpy(dx, hx.data(), kN * sizeof(T), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dy, hy.data(), kN * sizeof(T), cudaMemcpyHostToDevice)); // EXPECT: unallocated_pointer

    axpy<T><<<(kN + 255) / 256, 256>>>(a, dx, dy, kN); // EXPECT: unallocated_pointer
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(hy.data(), dy, kN * sizeof(T), cudaMemcpyDeviceToHost)); // EXPECT: unallocated_pointer

    CUDA_CHECK(cudaFree(dx));
    CUDA_CHECK(cudaFree(dy));

    T err = T(0);
    for (int i = 0; i < kN; ++i) err += (hy[i] - (a + T(2))) * (hy[i] - (a + T(2)));
    return err;
}

int main()
{
    float e = run_axpy<float>(3.0f);
    std::printf("float error %g\n", double(e));
    return 0;
}
