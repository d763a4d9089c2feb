// case: 2D Jacobi heat solver copies the block residuals into pinned memory with cudaMemcpyAsync and reads them for the convergence test before synchronizing the stream.
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cmath>

#define CUDA_CHECK(call)                                                        \
    do {                                                                        \
        cudaError_t err_ = (call);                                              \
        if (err_ != cudaSuccess) {                                              \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,                  \
                    cudaGetErrorString(err_));                                  \
            exit(EXIT_FAILURE);                                                 \
        }                                                                       \
    } while (0)

constexpr int BLOCK = 16;

__global__ void jacobi_step(const float* __restrict__ in, float* __restrict__ out,
                            float* __restrict__ block_resid, int nx, int ny)
{
    __shared__ float sres[BLOCK * BLOCK];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    int j = blockIdx.y * BLOCK + threadIdx.y;
    int t = threadIdx.y * BLOCK + threadIdx.x;
    float r = 0.f;
    if (i > 0 && j > 0 && i < nx - 1 && j < ny - 1) {
        float v = 0.25f * (in[j * nx + i - 1] + in[j * nx + i + 1] +
                           in[(j - 1) * nx + i] + in[(j + 1) * nx + i]);
        r = fabsf(v - in[j * nx + i]);
        out[j * nx + i] = v;
    } else if (i < nx && j < ny) {
        out[j * nx + i] = in[j * nx + i];
    }
    sres[t] = r;
    __syncthreads();
    for (int s = BLOCK * BLOCK / 2; s > 0; s >>= 1) {
        if (t < s) sres[t] = fmaxf(sres[t], sres[t + s]);
        __syncthreads();
    }
    if (t == 0) block_resid[blockIdx.y * gridDim.x + blockIdx.x] = sres[0];
}

int main(int argc, char** argv)
{
    int nx = argc > 1 ? atoi(argv[1]) : 2048;
    int ny = argc > 2 ? atoi(argv[2]) : 2048;
    const float tol = 1e-4f;
    size_t cells = (size_t)nx * ny;

    dim3 block(BLOCK, BLOCK);
    dim3 grid((nx + BLOCK - 1) / BLOCK, (ny + BLOCK - 1) / BLOCK);
    size_t nblocks = (size_t)grid.x * grid.y;

    std::vector<float> init(cells, 0.f);
    for (int i = 0; i < nx; ++i) init[i] = 100.f;   // hot top wall

    float *d_a, *d_b, *d_resid, *h_resid;
    CUDA_CHECK(cudaMalloc(&d_a, cells * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_b, cells * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_resid, nblocks * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_resid, nblocks * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_a, init.data(), cells * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, d_a, cells * sizeof(float), cudaMemcpyDeviceToDevice));

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));

    int iter = 0;
    float maxres = INFINITY;
    while (iter < 20000 && maxres > tol) {
        jacobi_step<<<grid, block, 0, stream>>>(d_a, d_b, d_resid, nx, ny);
        std::swap(d_a, d_b);
        ++iter;
        if (iter % 100 == 0) {
            CUDA_CHECK(cudaMemcpyAsync(h_resid, d_resid, nblocks * sizeof(float),
                                       cudaMemcpyDeviceToHost, stream));
            maxres = 0.f;
            for (size_t b = 0; b < nblocks; ++b)
                maxres = fmaxf(maxres, h_resid[b]);   // EXPECT: missing_sync
            printf("iter %6d  residual %.3e\n", iter, maxres);
        }
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));

    std::vector<float> result(cells);
    CUDA_CHECK(cudaMemcpy(result.data(), d_a, cells * sizeof(float), cudaMemcpyDeviceToHost));
    printf("centre temperature %.4f after %d iterations\n", result[(ny / 2) * nx + nx / 2], iter);

    CUDA_CHECK(cudaStreamDestroy(stream));
    CUDA_CHECK(cudaFreeHost(h_resid));
    CUDA_CHECK(cudaFree(d_resid));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_a));
    return 0;
}
