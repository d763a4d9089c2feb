// case: ocean-atmosphere coupling between rank pairs; the atmosphere rank posts MPI_Irecv of the sea-surface temperature into d_sst, overlaps its advection kernel, then calls cudaDeviceSynchronize (which completes no MPI request) and launches surface_flux, which reads d_sst before MPI_Wait.
// expect: missing_sync=1
#include <mpi.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <utility>

#define CHECK(call)                                                            \
    do {                                                                       \
        cudaError_t err_ = (call);                                             \
        if (err_ != cudaSuccess) {                                             \
            fprintf(stderr, "CUDA error %s at %s:%d\n",                        \
                    cudaGetErrorString(err_), __FILE__, __LINE__);             \
            MPI_Abort(MPI_COMM_WORLD, 1);                                      \
        }                                                                      \
    } while (0)

enum { TAG_SST = 42 };

__global__ void ocean_step(float* sst, int n, int t) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) sst[i] = 0.999f * sst[i] + 0.001f * (15.0f + 10.0f * (float)((i + t) % 50) / 50.0f);
}

__global__ void advect_atmos(const float* temp, float* temp_new, int n, float c) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float l = temp[(i - 1 + n) % n];
        temp_new[i] = temp[i] - c * (temp[i] - l);
    }
}

__global__ void surface_flux(float* temp_new, const float* sst, int n, float k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) temp_new[i] += k * (sst[i] - temp_new[i]);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int partner = rank ^ 1;
    const bool is_ocean = (rank % 2) == 1;
    const bool coupled = partner < size;

    const int n = 1 << 20, couplings = 100;
    const int threads = 256, blocks = (n + threads - 1) / threads;
    float *d_sst, *d_temp, *d_temp_new;
    CHECK(cudaMalloc(&d_sst, n * sizeof(float)));
    CHECK(cudaMalloc(&d_temp, n * sizeof(float)));
    CHECK(cudaMalloc(&d_temp_new, n * sizeof(float)));
    CHECK(cudaMemset(d_sst, 0, n * sizeof(float)));
    CHECK(cudaMemset(d_temp, 0, n * sizeof(float)));
    CHECK(cudaMemset(d_temp_new, 0, n * sizeof(float)));
    CHECK(cudaDeviceSynchronize());

    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (int t = 0; t < couplings && coupled; ++t) {
        if (is_ocean) {
            ocean_step<<<blocks, threads, 0, s>>>(d_sst, n, t);
            CHECK(cudaStreamSynchronize(s));
            MPI_Send(d_sst, n, MPI_FLOAT, partner, TAG_SST, MPI_COMM_WORLD);
        } else {
            MPI_Request req;
            MPI_Irecv(d_sst, n, MPI_FLOAT, partner, TAG_SST, MPI_COMM_WORLD, &req);
            advect_atmos<<<blocks, threads, 0, s>>>(d_temp, d_temp_new, n, 0.3f);
            CHECK(cudaDeviceSynchronize());
            surface_flux<<<blocks, threads, 0, s>>>(d_temp_new, d_sst, n, 0.05f);  // EXPECT: missing_sync
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            CHECK(cudaStreamSynchronize(s));
            std::swap(d_temp, d_temp_new);
        }
    }

    float probe = 0.0f;
    CHECK(cudaMemcpy(&probe, is_ocean ? d_sst : d_temp, sizeof(float), cudaMemcpyDeviceToHost));
    float sum_probe = 0.0f;
    MPI_Reduce(&probe, &sum_probe, 1, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("sum of probes: %f\n", sum_probe);

    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d_sst));
    CHECK(cudaFree(d_temp));
    CHECK(cudaFree(d_temp_new));
    MPI_Finalize();
    return 0;
}
