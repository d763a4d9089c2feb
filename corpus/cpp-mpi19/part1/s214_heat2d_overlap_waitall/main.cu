// case: 2-D heat equation overlapping the halo exchange with the interior update on other buffers; helpers post the receives and sends into one request array and the boundary kernel that reads top_recv/bot_recv runs only after MPI_Waitall over all four requests.
// expect: none
#include <mpi.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <utility>
#include <vector>
#include "exchange.h"

__global__ void pack_edges(const float* u, float* top, float* bot, int nx, int ny) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx) { top[i] = u[i]; bot[i] = u[(ny - 1) * nx + i]; }
}

// rows 1..ny-2 need no halo
__global__ void heat_interior(const float* u, float* unew, int nx, int ny, float a) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < 1 || i >= nx - 1 || j < 1 || j >= ny - 1) return;
    float c = u[j * nx + i];
    unew[j * nx + i] = c + a * (u[j * nx + i - 1] + u[j * nx + i + 1] + u[(j - 1) * nx + i] + u[(j + 1) * nx + i] - 4.0f * c);
}

// rows 0 and ny-1 use the received neighbour rows
__global__ void heat_boundary(const float* u, const float* top_recv, const float* bot_recv,
                              float* unew, int nx, int ny, float a) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < 1 || i >= nx - 1) return;
    for (int side = 0; side < 2; ++side) {
        int j = side == 0 ? 0 : ny - 1;
        float above = side == 0 ? top_recv[i] : u[(j - 1) * nx + i];
        float below = side == 0 ? u[(j + 1) * nx + i] : bot_recv[i];
        float c = u[j * nx + i];
        unew[j * nx + i] = c + a * (u[j * nx + i - 1] + u[j * nx + i + 1] + above + below - 4.0f * c);
    }
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int nx = 1024, ny = 1024, steps = 300;
    const float alpha = 0.2f;
    const int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    const int down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    const size_t bytes = (size_t)nx * ny * sizeof(float);

    std::vector<float> h_u((size_t)nx * ny, 0.0f);
    h_u[(size_t)(ny / 2) * nx + nx / 2] = 1000.0f * (rank + 1);

    float *d_u, *d_unew;
    CUDA_TRY(cudaMalloc(&d_u, bytes));
    CUDA_TRY(cudaMalloc(&d_unew, bytes));
    CUDA_TRY(cudaMemcpy(d_u, h_u.data(), bytes, cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemcpy(d_unew, h_u.data(), bytes, cudaMemcpyHostToDevice));
    HaloBuffers hb;
    halo_create(hb, nx);
    CUDA_TRY(cudaDeviceSynchronize());

    cudaStream_t s;
    CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    dim3 blk(32, 8), grd((nx + 31) / 32, (ny + 7) / 8);
    const int t1 = 256, b1 = (nx + t1 - 1) / t1;

    for (int step = 0; step < steps; ++step) {
        MPI_Request reqs[4];
        post_receives(hb, up, down, reqs);
        pack_edges<<<b1, t1, 0, s>>>(d_u, hb.top_send, hb.bot_send, nx, ny);
        CUDA_TRY(cudaStreamSynchronize(s));
        start_sends(hb, up, down, reqs);

        // overlap: the interior touches neither the halo rows nor the MPI buffers
        heat_interior<<<grd, blk, 0, s>>>(d_u, d_unew, nx, ny, alpha);

        MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
        heat_boundary<<<b1, t1, 0, s>>>(d_u, hb.top_recv, hb.bot_recv, d_unew, nx, ny, alpha);
        CUDA_TRY(cudaStreamSynchronize(s));
        std::swap(d_u, d_unew);
    }

    CUDA_TRY(cudaMemcpy(h_u.data(), d_u, bytes, cudaMemcpyDeviceToHost));
    double local = 0.0, total = 0.0;
    for (float v : h_u) local += v;
    MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("total heat: %.3f\n", total);

    CUDA_TRY(cudaStreamDestroy(s));
    halo_destroy(hb);
    CUDA_TRY(cudaFree(d_u));
    CUDA_TRY(cudaFree(d_unew));
    MPI_Finalize();
    return 0;
}
