// Bandwidth-optimal ring all-reduce over CUDA-aware MPI (reduce-scatter, then allgather).
// d holds nranks chunks of `chunk` elements; d_scratch holds one chunk.
#pragma once

#include <mpi.h>
#include <cuda_runtime.h>
#include <cstddef>

__global__ void ring_accumulate(double* __restrict__ dst, const double* __restrict__ src, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        dst[i] += src[i];
}

// The caller must have finished all device work on d before calling.
inline void ring_allreduce(double* d, double* d_scratch, size_t chunk, cudaStream_t stream, MPI_Comm comm) {
    int rank = 0, nranks = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    const int next = (rank + 1) % nranks;
    const int prev = (rank + nranks - 1) % nranks;
    const int count = static_cast<int>(chunk);

    for (int step = 0; step < nranks - 1; ++step) {
        const int s = (rank - step + nranks) % nranks;
        const int r = (rank - step - 1 + nranks) % nranks;
        MPI_Sendrecv(d + chunk * s, count, MPI_DOUBLE, next, step,
                     d_scratch, count, MPI_DOUBLE, prev, step, comm, MPI_STATUS_IGNORE);
        ring_accumulate<<<160, 256, 0, stream>>>(d + chunk * r, d_scratch, chunk);
        // The next Sendrecv overwrites d_scratch and sends the chunk just accumulated.
        cudaStreamSynchronize(stream);
    }

    for (int step = 0; step < nranks - 1; ++step) {
        const int s = (rank - step + 1 + nranks) % nranks;
        const int r = (rank - step + nranks) % nranks;
        MPI_Sendrecv(d + chunk * s, count, MPI_DOUBLE, next, 500 + step,
                     d + chunk * r, count, MPI_DOUBLE, prev, 500 + step, comm, MPI_STATUS_IGNORE);
    }
}
