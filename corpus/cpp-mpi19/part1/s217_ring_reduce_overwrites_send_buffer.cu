// case: ring reduction of per-rank GPU vectors through pinned host buffers; each round waits only for the MPI_Irecv, then the host loop forwards the received block by writing h_send while the round's MPI_Isend may still be reading it.
// expect: missing_sync=1
#include <mpi.h>
#include <cuda_runtime.h>
#include <cstdio>

#define CHECK(call)                                                            \
    do {                                                                       \
        cudaError_t err_ = (call);                                             \
        if (err_ != cudaSuccess) {                                             \
            fprintf(stderr, "CUDA error %s at %s:%d\n",                        \
                    cudaGetErrorString(err_), __FILE__, __LINE__);             \
            MPI_Abort(MPI_COMM_WORLD, 1);                                      \
        }                                                                      \
    } while (0)

__global__ void local_contribution(float* v, int n, int rank) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = (float)((i % 100) * (rank + 1)) * 0.01f;
}

__global__ void scale(float* v, int n, float f) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] *= f;
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int n = 1 << 16;
    const size_t bytes = n * sizeof(float);
    const int left = (rank - 1 + size) % size, right = (rank + 1) % size;

    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *d_v, *h_send, *h_recv, *h_acc;
    CHECK(cudaMalloc(&d_v, bytes));
    CHECK(cudaMallocHost(&h_send, bytes));
    CHECK(cudaMallocHost(&h_recv, bytes));
    CHECK(cudaMallocHost(&h_acc, bytes));

    local_contribution<<<(n + 255) / 256, 256, 0, s>>>(d_v, n, rank);
    CHECK(cudaMemcpyAsync(h_send, d_v, bytes, cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < n; ++i) h_acc[i] = h_send[i];

    // after size-1 rounds every rank has added every other rank's vector
    for (int round = 0; round < size - 1; ++round) {
        MPI_Request rreq, sreq;
        MPI_Irecv(h_recv, n, MPI_FLOAT, left, round, MPI_COMM_WORLD, &rreq);
        MPI_Isend(h_send, n, MPI_FLOAT, right, round, MPI_COMM_WORLD, &sreq);
        MPI_Wait(&rreq, MPI_STATUS_IGNORE);
        for (int i = 0; i < n; ++i) {
            h_acc[i] += h_recv[i];
            h_send[i] = h_recv[i];  // EXPECT: missing_sync
        }
        MPI_Wait(&sreq, MPI_STATUS_IGNORE);
    }

    CHECK(cudaMemcpyAsync(d_v, h_acc, bytes, cudaMemcpyHostToDevice, s));
    scale<<<(n + 255) / 256, 256, 0, s>>>(d_v, n, 1.0f / size);
    CHECK(cudaMemcpyAsync(h_acc, d_v, bytes, cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    if (rank == 0) printf("mean[99] = %f (expected %f)\n", h_acc[99], 0.99f * (size + 1) / 2.0f);

    CHECK(cudaFree(d_v));
    CHECK(cudaFreeHost(h_send));
    CHECK(cudaFreeHost(h_recv));
    CHECK(cudaFreeHost(h_acc));
    CHECK(cudaStreamDestroy(s));
    MPI_Finalize();
    return 0;
}
