// case: distributed transpose with MPI_Ialltoall on device buffers after cudaStreamSynchronize of the pack; while it is in flight one kernel only reads d_send (a checksum: two reads do not race) and another writes the twiddle table, and the unpack kernel reads d_recv after MPI_Wait: near miss.
// expect: none
#include <mpi.h>
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {
inline void cuda_try(cudaError_t e, const char* msg) {
    if (e == cudaSuccess) return;
    std::fprintf(stderr, "%s: %s\n", msg, cudaGetErrorString(e));
    MPI_Abort(MPI_COMM_WORLD, 1);
    std::exit(1);
}
}  // namespace

__global__ void pack_tiles(const float* __restrict__ a, float* __restrict__ send, int nloc, int N) {
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= nloc * N) return;
    const int row = idx / N, col = idx % N;
    send[(col / nloc) * nloc * nloc + (col % nloc) * nloc + row] = a[idx];
}

__global__ void unpack_tiles(const float* __restrict__ recv, float* __restrict__ at, int nloc, int N) {
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= nloc * N) return;
    const int p = idx / (nloc * nloc), rem = idx % (nloc * nloc);
    at[(rem / nloc) * N + p * nloc + rem % nloc] = recv[idx];
}

__global__ void checksum(const float* __restrict__ buf, int n, double* __restrict__ sum) {
    double acc = 0.0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) acc += buf[i];
    atomicAdd(sum, acc);
}

__global__ void twiddles(float* __restrict__ tw, int N) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < N) tw[k] = cosf(6.2831853f * k / N);
}

__global__ void apply_twiddles(float* __restrict__ at, const float* __restrict__ tw, int nloc, int N) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < nloc * N) at[idx] *= tw[idx % N];
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    const int N = 2048;
    if (N % P) MPI_Abort(MPI_COMM_WORLD, 2);
    const int nloc = N / P;
    const int elems = nloc * N;
    const size_t bytes = static_cast<size_t>(elems) * sizeof(float);

    std::vector<float> a(elems);
    for (int k = 0; k < elems; ++k) a[k] = static_cast<float>((rank * nloc + k / N) % 97) + 0.01f * (k % N);

    float *d_a, *d_send, *d_recv, *d_at, *d_tw;
    double* d_ck;
    cuda_try(cudaMalloc(&d_a, bytes), "alloc a");
    cuda_try(cudaMalloc(&d_send, bytes), "alloc send");
    cuda_try(cudaMalloc(&d_recv, bytes), "alloc recv");
    cuda_try(cudaMalloc(&d_at, bytes), "alloc at");
    cuda_try(cudaMalloc(&d_tw, N * sizeof(float)), "alloc tw");
    cuda_try(cudaMalloc(&d_ck, sizeof(double)), "alloc ck");
    cuda_try(cudaMemcpy(d_a, a.data(), bytes, cudaMemcpyHostToDevice), "upload");
    cuda_try(cudaMemset(d_recv, 0, bytes), "zero recv");
    cuda_try(cudaMemset(d_ck, 0, sizeof(double)), "zero ck");

    cudaStream_t s;
    cuda_try(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
    const int tpb = 256, blocks = (elems + tpb - 1) / tpb;

    pack_tiles<<<blocks, tpb, 0, s>>>(d_a, d_send, nloc, N);
    cuda_try(cudaStreamSynchronize(s), "pack");

    MPI_Request req;
    MPI_Ialltoall(d_send, nloc * nloc, MPI_FLOAT, d_recv, nloc * nloc, MPI_FLOAT, MPI_COMM_WORLD, &req);
    checksum<<<64, tpb, 0, s>>>(d_send, elems, d_ck);
    twiddles<<<(N + tpb - 1) / tpb, tpb, 0, s>>>(d_tw, N);
    MPI_Wait(&req, MPI_STATUS_IGNORE);

    unpack_tiles<<<blocks, tpb, 0, s>>>(d_recv, d_at, nloc, N);
    apply_twiddles<<<blocks, tpb, 0, s>>>(d_at, d_tw, nloc, N);
    cuda_try(cudaStreamSynchronize(s), "unpack");

    double sent_sum = 0.0, all_sum = 0.0;
    cuda_try(cudaMemcpy(&sent_sum, d_ck, sizeof(double), cudaMemcpyDeviceToHost), "checksum");
    MPI_Allreduce(&sent_sum, &all_sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    std::vector<float> at(elems);
    cuda_try(cudaMemcpy(at.data(), d_at, bytes, cudaMemcpyDeviceToHost), "download");
    if (rank == 0) std::printf("checksum %.3f, at[0] = %f\n", all_sum, at[0]);

    cudaFree(d_a);
    cudaFree(d_send);
    cudaFree(d_recv);
    cudaFree(d_at);
    cudaFree(d_tw);
    cudaFree(d_ck);
    cudaStreamDestroy(s);
    MPI_Finalize();
    return 0;
}
