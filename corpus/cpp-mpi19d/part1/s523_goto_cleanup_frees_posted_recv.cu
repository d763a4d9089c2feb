// case: C-style time step with goto-cleanup error handling; the MPI_Irecv into d_recv is posted early, and when the CFL check fails the code jumps to cleanup, which cudaFree()s d_recv while that receive is still posted (the MPI_Waitall is only on the success path).
// expect: missing_sync=1
#include <mpi.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define NX (1 << 20)
#define TPB 256

__global__ void init_field(double* v, int n, int rank) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = 1.0 + 0.5 * sin(0.001 * (i + rank * n));
}

__global__ void pack_boundary(const double* v, double* out, int n, int m) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m) out[i] = v[n - m + i];
}

__global__ void max_speed(const double* v, int n, double* vmax) {
    __shared__ double s[TPB];
    double m = 0.0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) m = fmax(m, fabs(v[i]));
    s[threadIdx.x] = m;
    __syncthreads();
    for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] = fmax(s[threadIdx.x], s[threadIdx.x + k]);
        __syncthreads();
    }
    if (threadIdx.x == 0) vmax[blockIdx.x] = s[0];
}

__global__ void advance(double* v, const double* ghost, int n, int m, double dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const double left = i >= m ? v[i - m] : ghost[i];
        v[i] -= dt * (v[i] - left);
    }
}

int main(int argc, char** argv) {
    int rank = 0, size = 1, status = EXIT_FAILURE;
    const int m = 4096;                 /* boundary values exchanged per step */
    const int nblocks = 64;
    double *d_v = NULL, *d_send = NULL, *d_recv = NULL, *d_vmax = NULL, *h_vmax = NULL;
    MPI_Request reqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    cudaStream_t stream = NULL;
    double vmax = 0.0, dt = 0.0;
    int b;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (cudaStreamCreate(&stream) != cudaSuccess) goto cleanup;
    if (cudaMalloc(&d_v, NX * sizeof(double)) != cudaSuccess) goto cleanup;
    if (cudaMalloc(&d_send, m * sizeof(double)) != cudaSuccess) goto cleanup;
    if (cudaMalloc(&d_recv, m * sizeof(double)) != cudaSuccess) goto cleanup;
    if (cudaMalloc(&d_vmax, nblocks * sizeof(double)) != cudaSuccess) goto cleanup;
    if (cudaMallocHost(&h_vmax, nblocks * sizeof(double)) != cudaSuccess) goto cleanup;
    if (cudaMemset(d_recv, 0, m * sizeof(double)) != cudaSuccess) goto cleanup;

    init_field<<<(NX + TPB - 1) / TPB, TPB, 0, stream>>>(d_v, NX, rank);

    /* Post the receive early so the neighbour's data can land while we prepare. */
    MPI_Irecv(d_recv, m, MPI_DOUBLE, (rank + size - 1) % size, 0, MPI_COMM_WORLD, &reqs[0]);

    pack_boundary<<<(m + TPB - 1) / TPB, TPB, 0, stream>>>(d_v, d_send, NX, m);
    max_speed<<<nblocks, TPB, 0, stream>>>(d_v, NX, d_vmax);
    cudaMemcpyAsync(h_vmax, d_vmax, nblocks * sizeof(double), cudaMemcpyDeviceToHost, stream);
    cudaStreamSynchronize(stream);

    for (b = 0; b < nblocks; ++b) vmax = h_vmax[b] > vmax ? h_vmax[b] : vmax;
    MPI_Allreduce(MPI_IN_PLACE, &vmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    dt = 0.5 / (vmax * NX);
    if (!(dt > 1e-12) || !isfinite(dt)) {
        fprintf(stderr, "rank %d: CFL check failed (vmax = %g)\n", rank, vmax);
        goto cleanup;
    }

    MPI_Isend(d_send, m, MPI_DOUBLE, (rank + 1) % size, 0, MPI_COMM_WORLD, &reqs[1]);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);

    advance<<<(NX + TPB - 1) / TPB, TPB, 0, stream>>>(d_v, d_recv, NX, m, dt);
    max_speed<<<nblocks, TPB, 0, stream>>>(d_v, NX, d_vmax);
    cudaMemcpyAsync(h_vmax, d_vmax, nblocks * sizeof(double), cudaMemcpyDeviceToHost, stream);
    cudaStreamSynchronize(stream);
    if (rank == 0) printf("dt = %.3e, block-0 max after step = %.6f\n", dt, h_vmax[0]);
    status = EXIT_SUCCESS;

cleanup:
    cudaFree(d_recv); // EXPECT: missing_sync
    cudaFree(d_send);
    cudaFree(d_vmax);
    cudaFree(d_v);
    cudaFreeHost(h_vmax);
    if (stream) cudaStreamDestroy(stream);
    MPI_Finalize();
    return status;
}
