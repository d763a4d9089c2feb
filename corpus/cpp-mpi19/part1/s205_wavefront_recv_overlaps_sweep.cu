// case: pipelined wavefront sweep across ranks on a non-blocking stream; to overlap communication, the MPI_Recv of the next chunk's inflow line into d_in is issued while sweep_chunk, which reads d_in, may still be running.
// expect: missing_sync=1
#include <mpi.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

static void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        fprintf(stderr, "%s failed: %s\n", what, cudaGetErrorString(e));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

// One thread per column of chunk c: carries the inflow value down the rows of
// this rank's block and leaves the outflow value for the next rank.
__global__ void sweep_chunk(const float* in_line, float* field, float* out_line,
                            int c, int chunk, int nx, int ny) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= chunk) return;
    int col = c * chunk + j;
    float carry = in_line[j];
    for (int r = 0; r < ny; ++r) {
        float v = 0.5f * (field[r * nx + col] + carry);
        field[r * nx + col] = v;
        carry = v;
    }
    out_line[j] = carry;
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    const int nx = 8192, ny = 256, chunk = 1024;
    const int nchunks = nx / chunk;
    const size_t field_bytes = (size_t)nx * ny * sizeof(float);

    std::vector<float> h_field((size_t)nx * ny);
    for (size_t k = 0; k < h_field.size(); ++k) h_field[k] = (float)((k * 7 + rank) % 13);

    float *d_field, *d_in, *d_out;
    check(cudaMalloc(&d_field, field_bytes), "cudaMalloc field");
    check(cudaMalloc(&d_in, chunk * sizeof(float)), "cudaMalloc in");
    check(cudaMalloc(&d_out, chunk * sizeof(float)), "cudaMalloc out");
    check(cudaMemcpy(d_field, h_field.data(), field_bytes, cudaMemcpyHostToDevice), "upload");
    check(cudaMemset(d_in, 0, chunk * sizeof(float)), "memset in");  // rank 0: zero inflow
    check(cudaDeviceSynchronize(), "setup");

    cudaStream_t s;
    check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
    const int threads = 256, blocks = (chunk + threads - 1) / threads;

    double t0 = MPI_Wtime();
    if (rank > 0) MPI_Recv(d_in, chunk, MPI_FLOAT, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int c = 0; c < nchunks; ++c) {
        sweep_chunk<<<blocks, threads, 0, s>>>(d_in, d_field, d_out, c, chunk, nx, ny);
        if (rank > 0 && c + 1 < nchunks)
            MPI_Recv(d_in, chunk, MPI_FLOAT, rank - 1, c + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);  // EXPECT: missing_sync
        check(cudaStreamSynchronize(s), "sweep");
        if (rank < size - 1) MPI_Send(d_out, chunk, MPI_FLOAT, rank + 1, c, MPI_COMM_WORLD);
    }
    double t1 = MPI_Wtime();

    check(cudaMemcpy(h_field.data(), d_field, field_bytes, cudaMemcpyDeviceToHost), "download");
    double local = 0.0, total = 0.0;
    for (float v : h_field) local += v;
    MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("sweep: %.3f s, checksum %.4e\n", t1 - t0, total);

    check(cudaStreamDestroy(s), "stream destroy");
    check(cudaFree(d_field), "free field");
    check(cudaFree(d_in), "free in");
    check(cudaFree(d_out), "free out");
    MPI_Finalize();
    return 0;
}
