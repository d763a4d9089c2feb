// case: a two-GPU stencil exchanges halos with cudaMemcpyPeerAsync after an event wait; the receive buffer on GPU 1 holds HALO_ROWS rows but the copy moves both halos (2 * HALO_ROWS rows), past the end of the destination.
// expect: copy_out_of_bounds=1
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

#define NX 4096
#define NY 2048
#define HALO_ROWS 2

__global__ void relax(float* f, int nx, int ny) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x > 0 && y > 0 && x < nx - 1 && y < ny - 1)
        f[y * nx + x] = 0.25f * (f[y * nx + x - 1] + f[y * nx + x + 1] + f[(y - 1) * nx + x] + f[(y + 1) * nx + x]);
}

int main() {
    int ndev = 0;
    CHECK(cudaGetDeviceCount(&ndev));
    if (ndev < 2) { printf("needs two GPUs\n"); return 0; }

    float *d_field0, *d_halo1;
    cudaStream_t s0, s1;
    cudaEvent_t relaxed;
    CHECK(cudaSetDevice(0));
    CHECK(cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&relaxed, cudaEventDisableTiming));
    CHECK(cudaMalloc(&d_field0, NX * NY * sizeof(float)));
    CHECK(cudaMemsetAsync(d_field0, 0, NX * NY * sizeof(float), s0));
    CHECK(cudaSetDevice(1));
    CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CHECK(cudaMalloc(&d_halo1, HALO_ROWS * NX * sizeof(float)));

    CHECK(cudaSetDevice(0));
    dim3 block(32, 8), grid(NX / 32, NY / 8);
    relax<<<grid, block, 0, s0>>>(d_field0, NX, NY);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(relaxed, s0));

    CHECK(cudaSetDevice(1));
    CHECK(cudaStreamWaitEvent(s1, relaxed, 0));
    CHECK(cudaMemcpyPeerAsync(d_halo1, 1, d_field0, 0, 2 * HALO_ROWS * NX * sizeof(float), s1));  // EXPECT: copy_out_of_bounds
    CHECK(cudaStreamSynchronize(s1));

    CHECK(cudaFree(d_halo1));
    CHECK(cudaStreamDestroy(s1));
    CHECK(cudaSetDevice(0));
    CHECK(cudaStreamSynchronize(s0));
    CHECK(cudaFree(d_field0));
    CHECK(cudaEventDestroy(relaxed));
    CHECK(cudaStreamDestroy(s0));
    return 0;
}
