// Asynchronous statistics logger: each solver rank ships a few numbers about its field to a
// dedicated monitor rank with MPI_Isend and returns at once, so logging never stalls a step.
#pragma once

#include <mpi.h>
#include <cuda_runtime.h>

constexpr int kNumStats = 4;   // min, max, sum, sum of squares

// One block of 256 threads reduces the whole field.
__global__ void field_stats(const double* __restrict__ u, int n, double* __restrict__ stats) {
    __shared__ double smin[256], smax[256], ssum[256], ssq[256];
    double lo = 1e300, hi = -1e300, sum = 0.0, sq = 0.0;
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        const double v = u[i];
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
        sum += v;
        sq += v * v;
    }
    smin[threadIdx.x] = lo;
    smax[threadIdx.x] = hi;
    ssum[threadIdx.x] = sum;
    ssq[threadIdx.x] = sq;
    __syncthreads();
    for (unsigned off = blockDim.x / 2; off > 0; off /= 2) {
        if (threadIdx.x < off) {
            const int o = threadIdx.x + off;
            smin[threadIdx.x] = smin[o] < smin[threadIdx.x] ? smin[o] : smin[threadIdx.x];
            smax[threadIdx.x] = smax[o] > smax[threadIdx.x] ? smax[o] : smax[threadIdx.x];
            ssum[threadIdx.x] += ssum[o];
            ssq[threadIdx.x] += ssq[o];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        stats[0] = smin[0];
        stats[1] = smax[0];
        stats[2] = ssum[0];
        stats[3] = ssq[0];
    }
}

class AsyncStatsLogger {
public:
    AsyncStatsLogger(MPI_Comm comm, int monitor) : comm_(comm), monitor_(monitor) {
        cudaMalloc(&d_stats_, kNumStats * sizeof(double));
        cudaMemset(d_stats_, 0, kNumStats * sizeof(double));
    }
    ~AsyncStatsLogger() { cudaFree(d_stats_); }

    AsyncStatsLogger(const AsyncStatsLogger&) = delete;
    AsyncStatsLogger& operator=(const AsyncStatsLogger&) = delete;

    // Device buffer the statistics kernel writes into.
    double* stats_buffer() { return d_stats_; }

    // Ships what the stream has written into stats_buffer(); does not wait for delivery.
    void post(cudaStream_t stream, int step) {
        cudaStreamSynchronize(stream);
        MPI_Wait(&pending_, MPI_STATUS_IGNORE);   // the previous record has been delivered
        MPI_Isend(d_stats_, kNumStats, MPI_DOUBLE, monitor_, step, comm_, &pending_);
    }

    // Waits for the last record; call before the logger goes away.
    void drain() { MPI_Wait(&pending_, MPI_STATUS_IGNORE); }

private:
    MPI_Comm comm_;
    int monitor_;
    double* d_stats_ = nullptr;
    MPI_Request pending_ = MPI_REQUEST_NULL;
};
