// case: systolic ring matrix-vector product where x blocks circulate with MPI_Irecv/MPI_Isend on device memory; the padding cudaMemsetAsync of d_x_next is issued after MPI_Irecv into d_x_next was posted and before MPI_Waitall, racing the receive.
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

static int block_len(int n, int p, int r) { return n / p + (r < n % p ? 1 : 0); }
static int block_start(int n, int p, int r) { return r * (n / p) + (r < n % p ? r : n % p); }

__global__ void init_rows(double* A, int nloc, int n, int row0) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nloc) return;
    for (int j = 0; j < n; ++j) A[(size_t)i * n + j] = (row0 + i == j) ? 4.0 : 1.0 / (1.0 + fabs((double)(row0 + i - j)));
}

__global__ void init_x(double* x, int len, int maxb, int col0) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < maxb) x[j] = (j < len) ? 1.0 + 0.001 * (col0 + j) : 0.0;
}

__global__ void matvec_block(const double* A, const double* xblk, double* y, int nloc, int n, int col0, int len) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nloc) return;
    double acc = 0.0;
    for (int j = 0; j < len; ++j) acc += A[(size_t)i * n + col0 + j] * xblk[j];
    y[i] += acc;
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    const int n = 10007;  // not a multiple of the rank count: blocks are padded to maxb
    const int maxb = n / size + 1;
    const int nloc = block_len(n, size, rank), row0 = block_start(n, size, rank);
    const int left = (rank - 1 + size) % size, right = (rank + 1) % size;

    double *d_A, *d_x_cur, *d_x_next, *d_y, *h_y;
    CHECK(cudaMalloc(&d_A, (size_t)nloc * n * sizeof(double)));
    CHECK(cudaMalloc(&d_x_cur, maxb * sizeof(double)));
    CHECK(cudaMalloc(&d_x_next, maxb * sizeof(double)));
    CHECK(cudaMalloc(&d_y, nloc * sizeof(double)));
    CHECK(cudaMallocHost(&h_y, nloc * sizeof(double)));

    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const int tb = 128;
    init_rows<<<(nloc + tb - 1) / tb, tb, 0, s>>>(d_A, nloc, n, row0);
    init_x<<<(maxb + tb - 1) / tb, tb, 0, s>>>(d_x_cur, nloc, maxb, row0);
    CHECK(cudaMemsetAsync(d_y, 0, nloc * sizeof(double), s));
    CHECK(cudaStreamSynchronize(s));

    for (int step = 0; step < size; ++step) {
        int owner = (rank - step + size) % size;  // whose x block d_x_cur holds
        MPI_Request reqs[2];
        bool more = step < size - 1;
        if (more) {
            MPI_Irecv(d_x_next, maxb, MPI_DOUBLE, left, step, MPI_COMM_WORLD, &reqs[0]);
            CHECK(cudaMemsetAsync(d_x_next, 0, maxb * sizeof(double), s));  // EXPECT: missing_sync
            MPI_Isend(d_x_cur, maxb, MPI_DOUBLE, right, step, MPI_COMM_WORLD, &reqs[1]);
        }
        matvec_block<<<(nloc + tb - 1) / tb, tb, 0, s>>>(d_A, d_x_cur, d_y, nloc, n,
                                                         block_start(n, size, owner), block_len(n, size, owner));
        if (more) {
            MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
            CHECK(cudaMemcpyAsync(d_x_cur, d_x_next, maxb * sizeof(double), cudaMemcpyDeviceToDevice, s));
            CHECK(cudaStreamSynchronize(s));
        }
    }

    CHECK(cudaMemcpyAsync(h_y, d_y, nloc * sizeof(double), cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    double local = 0.0, norm2 = 0.0;
    for (int i = 0; i < nloc; ++i) local += h_y[i] * h_y[i];
    MPI_Allreduce(&local, &norm2, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("||Ax|| = %.6e\n", sqrt(norm2));

    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d_A));
    CHECK(cudaFree(d_x_cur));
    CHECK(cudaFree(d_x_next));
    CHECK(cudaFree(d_y));
    CHECK(cudaFreeHost(h_y));
    MPI_Finalize();
    return 0;
}
