// case: worker ranks stream snapshots to an I/O rank through a pinned buffer sent with MPI_Isend; MPI_Barrier is taken as proof the previous snapshot was delivered, so the next cudaMemcpyAsync into h_snap starts while the previous MPI_Isend of h_snap is still in flight.
// expect: missing_sync=1
#include <mpi.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

#define CHECK(call)                                                            \
    do {                                                                       \
        cudaError_t err_ = (call);                                             \
        if (err_ != cudaSuccess) {                                             \
            fprintf(stderr, "CUDA error %s at %s:%d\n",                        \
                    cudaGetErrorString(err_), __FILE__, __LINE__);             \
            MPI_Abort(MPI_COMM_WORLD, 1);                                      \
        }                                                                      \
    } while (0)

__global__ void relax(float* field, int n, int step) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float source = (i % 1024 == 0) ? 1.0f : 0.0f;
        field[i] = 0.98f * field[i] + 0.02f * source * (float)(step % 10);
    }
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int n = 1 << 20, nsnap = 8, steps_per_snap = 50;
    const size_t bytes = n * sizeof(float);

    if (rank == 0) {
        // I/O rank: drains one snapshot per worker after each barrier
        std::vector<float> h_io(n);
        for (int snap = 0; snap < nsnap; ++snap) {
            MPI_Barrier(MPI_COMM_WORLD);
            double checksum = 0.0;
            for (int r = 1; r < size; ++r) {
                MPI_Recv(h_io.data(), n, MPI_FLOAT, r, snap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                for (int i = 0; i < n; i += 1024) checksum += h_io[i];
            }
            printf("snapshot %d checksum %.6f\n", snap, checksum);
        }
    } else {
        cudaStream_t s;
        CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        float *d_field, *h_snap;
        CHECK(cudaMalloc(&d_field, bytes));
        CHECK(cudaMallocHost(&h_snap, bytes));
        CHECK(cudaMemsetAsync(d_field, 0, bytes, s));

        MPI_Request snap_req = MPI_REQUEST_NULL;
        for (int snap = 0; snap < nsnap; ++snap) {
            for (int k = 0; k < steps_per_snap; ++k)
                relax<<<(n + 255) / 256, 256, 0, s>>>(d_field, n, snap * steps_per_snap + k);
            MPI_Barrier(MPI_COMM_WORLD);  // the I/O rank has drained the previous snapshot
            CHECK(cudaMemcpyAsync(h_snap, d_field, bytes, cudaMemcpyDeviceToHost, s));  // EXPECT: missing_sync
            CHECK(cudaStreamSynchronize(s));
            MPI_Isend(h_snap, n, MPI_FLOAT, 0, snap, MPI_COMM_WORLD, &snap_req);
        }
        MPI_Wait(&snap_req, MPI_STATUS_IGNORE);

        CHECK(cudaFreeHost(h_snap));
        CHECK(cudaFree(d_field));
        CHECK(cudaStreamDestroy(s));
    }
    MPI_Finalize();
    return 0;
}
