// case: 2-D Jacobi with row halos on a non-blocking stream; each pack kernel is followed by its own event and each MPI_Isend waits for that event with cudaEventSynchronize, so no send buffer is handed to MPI while a kernel writes it (near miss of s203).
// expect: none
#include <mpi.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <utility>
#include <vector>

#define CUDA_CHECK(call)                                                       \
    do {                                                                       \
        cudaError_t e_ = (call);                                               \
        if (e_ != cudaSuccess) {                                               \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                 \
                    cudaGetErrorString(e_));                                   \
            MPI_Abort(MPI_COMM_WORLD, 2);                                      \
        }                                                                      \
    } while (0)

__global__ void pack_row(const float* u, float* buf, int nx, int row) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx) buf[i] = u[row * nx + i];
}

__global__ void unpack_row(float* u, const float* buf, int nx, int row) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx) u[row * nx + i] = buf[i];
}

__global__ void jacobi_step(const float* u, float* unew, int nx, int ny) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y + 1;
    if (i > 0 && i < nx - 1 && j <= ny)
        unew[j * nx + i] = 0.25f * (u[j * nx + i - 1] + u[j * nx + i + 1] +
                                    u[(j - 1) * nx + i] + u[(j + 1) * nx + i]);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int nx = 2048, ny = 512, iters = 100;
    const int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    const int down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    const size_t field_bytes = (size_t)nx * (ny + 2) * sizeof(float);
    const size_t row_bytes = nx * sizeof(float);

    std::vector<float> h_u((size_t)nx * (ny + 2), 0.0f);
    if (rank == size - 1)
        for (int i = 0; i < nx; ++i) h_u[(size_t)(ny + 1) * nx + i] = 100.0f;

    float *d_u, *d_unew, *d_top_send, *d_bot_send, *d_top_recv, *d_bot_recv;
    CUDA_CHECK(cudaMalloc(&d_u, field_bytes));
    CUDA_CHECK(cudaMalloc(&d_unew, field_bytes));
    CUDA_CHECK(cudaMalloc(&d_top_send, row_bytes));
    CUDA_CHECK(cudaMalloc(&d_bot_send, row_bytes));
    CUDA_CHECK(cudaMalloc(&d_top_recv, row_bytes));
    CUDA_CHECK(cudaMalloc(&d_bot_recv, row_bytes));
    CUDA_CHECK(cudaMemcpy(d_u, h_u.data(), field_bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_unew, h_u.data(), field_bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_top_recv, 0, row_bytes));
    CUDA_CHECK(cudaMemset(d_bot_recv, 0, row_bytes));
    CUDA_CHECK(cudaDeviceSynchronize());

    cudaStream_t s;
    cudaEvent_t top_ready, bot_ready;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&top_ready, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&bot_ready, cudaEventDisableTiming));
    const int t1 = 256, b1 = (nx + t1 - 1) / t1;
    dim3 block(32, 8), grid((nx + 31) / 32, (ny + 7) / 8);

    for (int it = 0; it < iters; ++it) {
        MPI_Request reqs[4];
        MPI_Irecv(d_top_recv, nx, MPI_FLOAT, up, 1, MPI_COMM_WORLD, &reqs[0]);
        MPI_Irecv(d_bot_recv, nx, MPI_FLOAT, down, 0, MPI_COMM_WORLD, &reqs[1]);

        pack_row<<<b1, t1, 0, s>>>(d_u, d_top_send, nx, 1);
        CUDA_CHECK(cudaEventRecord(top_ready, s));
        pack_row<<<b1, t1, 0, s>>>(d_u, d_bot_send, nx, ny);
        CUDA_CHECK(cudaEventRecord(bot_ready, s));

        CUDA_CHECK(cudaEventSynchronize(top_ready));
        MPI_Isend(d_top_send, nx, MPI_FLOAT, up, 0, MPI_COMM_WORLD, &reqs[2]);
        CUDA_CHECK(cudaEventSynchronize(bot_ready));
        MPI_Isend(d_bot_send, nx, MPI_FLOAT, down, 1, MPI_COMM_WORLD, &reqs[3]);

        MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
        if (up != MPI_PROC_NULL) unpack_row<<<b1, t1, 0, s>>>(d_u, d_top_recv, nx, 0);
        if (down != MPI_PROC_NULL) unpack_row<<<b1, t1, 0, s>>>(d_u, d_bot_recv, nx, ny + 1);
        jacobi_step<<<grid, block, 0, s>>>(d_u, d_unew, nx, ny);
        CUDA_CHECK(cudaStreamSynchronize(s));
        std::swap(d_u, d_unew);
    }

    CUDA_CHECK(cudaMemcpy(h_u.data(), d_u, field_bytes, cudaMemcpyDeviceToHost));
    float local_max = 0.0f, global_max = 0.0f;
    for (int j = 1; j <= ny; ++j)
        for (int i = 0; i < nx; ++i)
            if (h_u[(size_t)j * nx + i] > local_max) local_max = h_u[(size_t)j * nx + i];
    MPI_Allreduce(&local_max, &global_max, 1, MPI_FLOAT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) printf("max temperature: %f\n", global_max);

    CUDA_CHECK(cudaEventDestroy(top_ready));
    CUDA_CHECK(cudaEventDestroy(bot_ready));
    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(d_u));
    CUDA_CHECK(cudaFree(d_unew));
    CUDA_CHECK(cudaFree(d_top_send));
    CUDA_CHECK(cudaFree(d_bot_send));
    CUDA_CHECK(cudaFree(d_top_recv));
    CUDA_CHECK(cudaFree(d_bot_recv));
    MPI_Finalize();
    return 0;
}
