// case: C-style time step with goto-cleanup error handling where both MPI_Irecv and MPI_Isend are posted before the CFL check, the requests start as MPI_REQUEST_NULL, and cleanup begins with MPI_Waitall over them before any cudaFree, so no path frees a buffer MPI still uses: near miss.
// expect: none
#include <mpi.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define NX (1 << 20)
#define HALO 2048
#define TPB 256

__global__ void init_field(float* v, int n, int rank) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = 2.0f + cosf(0.002f * (float)(i + rank * n));
}

__global__ void pack_boundary(const float* v, float* out, int n, int m) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m) out[i] = v[n - m + i];
}

__global__ void block_max(const float* v, int n, float* out) {
    __shared__ float s[TPB];
    float m = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) m = fmaxf(m, fabsf(v[i]));
    s[threadIdx.x] = m;
    __syncthreads();
    for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] = fmaxf(s[threadIdx.x], s[threadIdx.x + k]);
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

__global__ void upwind(float* v, const float* ghost, int n, int m, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] -= dt * (v[i] - (i >= m ? v[i - m] : ghost[i]));
}

static int check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
        return 1;
    }
    return 0;
}

int main(int argc, char** argv) {
    int rank = 0, size = 1, rc = EXIT_FAILURE, b;
    const int nblk = 80;
    float *d_v = NULL, *d_out = NULL, *d_in = NULL, *d_bmax = NULL, *h_bmax = NULL;
    MPI_Request reqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    cudaStream_t s = NULL;
    float vmax = 0.0f, dt = 0.0f;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (check(cudaStreamCreate(&s), "stream")) goto cleanup;
    if (check(cudaMalloc(&d_v, NX * sizeof(float)), "v")) goto cleanup;
    if (check(cudaMalloc(&d_out, HALO * sizeof(float)), "out")) goto cleanup;
    if (check(cudaMalloc(&d_in, HALO * sizeof(float)), "in")) goto cleanup;
    if (check(cudaMalloc(&d_bmax, nblk * sizeof(float)), "bmax")) goto cleanup;
    if (check(cudaMallocHost(&h_bmax, nblk * sizeof(float)), "h_bmax")) goto cleanup;
    if (check(cudaMemset(d_in, 0, HALO * sizeof(float)), "zero in")) goto cleanup;

    init_field<<<(NX + TPB - 1) / TPB, TPB, 0, s>>>(d_v, NX, rank);
    pack_boundary<<<(HALO + TPB - 1) / TPB, TPB, 0, s>>>(d_v, d_out, NX, HALO);
    block_max<<<nblk, TPB, 0, s>>>(d_v, NX, d_bmax);
    cudaMemcpyAsync(h_bmax, d_bmax, nblk * sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);

    MPI_Irecv(d_in, HALO, MPI_FLOAT, (rank + size - 1) % size, 7, MPI_COMM_WORLD, &reqs[0]);
    MPI_Isend(d_out, HALO, MPI_FLOAT, (rank + 1) % size, 7, MPI_COMM_WORLD, &reqs[1]);

    for (b = 0; b < nblk; ++b) vmax = h_bmax[b] > vmax ? h_bmax[b] : vmax;
    MPI_Allreduce(MPI_IN_PLACE, &vmax, 1, MPI_FLOAT, MPI_MAX, MPI_COMM_WORLD);
    dt = 0.5f / (vmax * NX);
    if (!(dt > 1e-12f) || !isfinite(dt)) {
        fprintf(stderr, "rank %d: CFL check failed (vmax = %g)\n", rank, vmax);
        goto cleanup;
    }

    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    upwind<<<(NX + TPB - 1) / TPB, TPB, 0, s>>>(d_v, d_in, NX, HALO, dt);
    block_max<<<nblk, TPB, 0, s>>>(d_v, NX, d_bmax);
    cudaMemcpyAsync(h_bmax, d_bmax, nblk * sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    if (rank == 0) printf("dt = %.3e, block-0 max = %.6f\n", dt, h_bmax[0]);
    rc = EXIT_SUCCESS;

cleanup:
    /* Every rank posted both requests before any check that can fail after them. */
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_bmax);
    cudaFree(d_v);
    cudaFreeHost(h_bmax);
    if (s) cudaStreamDestroy(s);
    MPI_Finalize();
    return rc;
}
