// case: a lattice-Boltzmann style relaxation writes the new distribution on the device and hands it to write_checkpoint(), declared here and defined in another library (it reads the buffer), before freeing it.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s\n", cudaGetErrorString(e)); std::exit(1); } } while (0)

#define CELLS (128 * 128)
#define Q 9

// io/checkpoint.cpp: streams device data to disk through a staging buffer.
int write_checkpoint(const char* path, const float* d_data, size_t count);

__global__ void bgk_relax(const float* f, const float* feq, float* f_out, float omega, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) f_out[i] = f[i] - omega * (f[i] - feq[i]);
}

int main()
{
    std::vector<float> f(CELLS * Q), feq(CELLS * Q);
    for (int i = 0; i < CELLS * Q; ++i) {
        f[i] = 1.0f / Q + 0.001f * (i % 7);
        feq[i] = 1.0f / Q;
    }

    float *d_f, *d_feq, *d_fout;
    CUDA_CHECK(cudaMalloc(&d_f, CELLS * Q * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_feq, CELLS * Q * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_fout, CELLS * Q * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_f, f.data(), CELLS * Q * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_feq, feq.data(), CELLS * Q * sizeof(float), cudaMemcpyHostToDevice));

    bgk_relax<<<(CELLS * Q + 255) / 256, 256>>>(d_f, d_feq, d_fout, 1.2f, CELLS * Q);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());

    if (write_checkpoint("lbm_step1.bin", d_fout, CELLS * Q) != 0)
        std::fprintf(stderr, "checkpoint failed\n");

    CUDA_CHECK(cudaFree(d_f));
    CUDA_CHECK(cudaFree(d_feq));
    CUDA_CHECK(cudaFree(d_fout));
    return 0;
}
