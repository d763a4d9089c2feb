// case: worker ranks compute a partial force field on a non-blocking stream and MPI_Ssend it from device memory to rank 0 each step; the only cudaStreamSynchronize sits inside the every-tenth-step logging branch, so on the other steps the kernel may still be writing d_partial when MPI_Ssend reads it.
// expect: missing_sync=1
#include <mpi.h>
#include <cuda_runtime.h>
#include <cmath>
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

__global__ void compute_partial(float* partial, int n, int rank, int step) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) partial[i] = sinf(0.01f * (i + 37 * rank)) * cosf(0.1f * step);
}

__global__ void accumulate(float* total, const float* part, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) total[i] += part[i];
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int n = 1 << 19, steps = 100, log_every = 10;
    const int tb = 256, nb = (n + tb - 1) / tb;

    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *d_partial, *d_remote, *d_total;
    CHECK(cudaMalloc(&d_partial, n * sizeof(float)));
    CHECK(cudaMalloc(&d_remote, n * sizeof(float)));
    CHECK(cudaMalloc(&d_total, n * sizeof(float)));
    CHECK(cudaMemsetAsync(d_remote, 0, n * sizeof(float), s));
    CHECK(cudaMemsetAsync(d_total, 0, n * sizeof(float), s));
    CHECK(cudaStreamSynchronize(s));

    double t0 = MPI_Wtime();
    for (int step = 0; step < steps; ++step) {
        compute_partial<<<nb, tb, 0, s>>>(d_partial, n, rank, step);
        if (step % log_every == 0) {
            CHECK(cudaStreamSynchronize(s));
            if (rank == 1) printf("step %d: %.3f s\n", step, MPI_Wtime() - t0);
        }
        if (rank != 0) {
            MPI_Ssend(d_partial, n, MPI_FLOAT, 0, step, MPI_COMM_WORLD);  // EXPECT: missing_sync
        } else {
            accumulate<<<nb, tb, 0, s>>>(d_total, d_partial, n);
            for (int r = 1; r < size; ++r) {
                MPI_Recv(d_remote, n, MPI_FLOAT, r, step, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                accumulate<<<nb, tb, 0, s>>>(d_total, d_remote, n);
                CHECK(cudaStreamSynchronize(s));
            }
        }
    }
    CHECK(cudaStreamSynchronize(s));

    if (rank == 0) {
        float* h_total = nullptr;
        CHECK(cudaMallocHost(&h_total, n * sizeof(float)));
        CHECK(cudaMemcpyAsync(h_total, d_total, n * sizeof(float), cudaMemcpyDeviceToHost, s));
        CHECK(cudaStreamSynchronize(s));
        printf("total[1] = %f\n", h_total[1]);
        CHECK(cudaFreeHost(h_total));
    }
    CHECK(cudaFree(d_partial));
    CHECK(cudaFree(d_remote));
    CHECK(cudaFree(d_total));
    CHECK(cudaStreamDestroy(s));
    MPI_Finalize();
    return 0;
}
