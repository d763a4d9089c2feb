// case: a CFD halo-exchange step carves its pack buffers from a header VmmPool; the pool's destructor, run at the end of the solver scope after the stream is synchronized, frees the reserved address range before unmapping it.
// expect: vmm_lifecycle=1
#include "vmm_pool.h"
#include <cuda_runtime.h>
#include <vector>

__global__ void pack_faces(const double* field, int nx, int ny, int nz, double* west, double* east) {
    int j = blockIdx.x * blockDim.x + threadIdx.x, k = blockIdx.y;
    if (j >= ny || k >= nz) return;
    west[k * ny + j] = field[((size_t)k * ny + j) * nx + 1];
    east[k * ny + j] = field[((size_t)k * ny + j) * nx + nx - 2];
}

__global__ void unpack_faces(double* field, int nx, int ny, int nz, const double* west, const double* east) {
    int j = blockIdx.x * blockDim.x + threadIdx.x, k = blockIdx.y;
    if (j >= ny || k >= nz) return;
    field[((size_t)k * ny + j) * nx + nx - 1] = west[k * ny + j];   // periodic in x
    field[((size_t)k * ny + j) * nx + 0] = east[k * ny + j];
}

int main() {
    CU_OK(cuInit(0));
    CUdevice dev; CU_OK(cuDeviceGet(&dev, 0));
    CUcontext ctx; CU_OK(cuDevicePrimaryCtxRetain(&ctx, dev)); CU_OK(cuCtxSetCurrent(ctx));

    const int nx = 256, ny = 256, nz = 256;
    double* d_field = nullptr;
    cudaMalloc(&d_field, (size_t)nx * ny * nz * sizeof(double));
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cudaMemsetAsync(d_field, 0, (size_t)nx * ny * nz * sizeof(double), s);

    std::vector<double> face((size_t)ny * nz);
    {
        VmmPool pool(0, 2 * (size_t)ny * nz * sizeof(double) + 4096);
        double* west = pool.carve<double>((size_t)ny * nz);
        double* east = pool.carve<double>((size_t)ny * nz);
        dim3 grid((ny + 127) / 128, nz);
        for (int step = 0; step < 10; ++step) {
            pack_faces<<<grid, 128, 0, s>>>(d_field, nx, ny, nz, west, east);
            unpack_faces<<<grid, 128, 0, s>>>(d_field, nx, ny, nz, west, east);
        }
        cudaStreamSynchronize(s);
        cudaMemcpy(face.data(), west, face.size() * sizeof(double), cudaMemcpyDeviceToHost);
    }   // ~VmmPool
    std::printf("west face sample %.3f\n", face[face.size() / 2]);

    cudaStreamDestroy(s);
    cudaFree(d_field);
    return 0;
}
