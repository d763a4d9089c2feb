// case: particle migration in both directions where post_recv/post_send return MPI_Request by value into reqs[4]; MPI_Waitall over all four runs before the kernel that inserts the arrivals from d_in_lo/d_in_hi, and only a drift kernel on other buffers overlaps the exchange: near miss.
// expect: none
#include <mpi.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

void check(cudaError_t e, int line) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "line %d: %s\n", line, cudaGetErrorString(e));
        MPI_Abort(MPI_COMM_WORLD, 1);
        std::exit(1);
    }
}

MPI_Request post_recv(float* buf, int count, int src, int tag) {
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Irecv(buf, count, MPI_FLOAT, src, tag, MPI_COMM_WORLD, &r);
    return r;
}

MPI_Request post_send(const float* buf, int count, int dst, int tag) {
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Isend(buf, count, MPI_FLOAT, dst, tag, MPI_COMM_WORLD, &r);
    return r;
}

}  // namespace

__global__ void reset_slots(float* __restrict__ lo, float* __restrict__ hi, int cap) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < cap) {
        lo[i] = -1.0f;
        hi[i] = -1.0f;
    }
}

__global__ void pack_both(float* __restrict__ x, float* __restrict__ lo, float* __restrict__ hi,
                          int* __restrict__ counters, int n, int cap, float L) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || x[i] < 0.0f) return;
    if (x[i] >= L) {
        int k = atomicAdd(&counters[1], 1);
        if (k < cap) { hi[k] = x[i] - L; x[i] = -1.0f; }
    } else if (x[i] < 1e-7f && x[i] != 0.0f) {
        int k = atomicAdd(&counters[0], 1);
        if (k < cap) { lo[k] = L - 1e-7f; x[i] = -1.0f; }
    }
}

__global__ void drift(float* __restrict__ x, const float* __restrict__ v, int n, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && x[i] >= 0.0f) x[i] += v[i] * dt;
}

__global__ void insert(const float* __restrict__ from_lo, const float* __restrict__ from_hi,
                       float* __restrict__ x, int n, int cap) {
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    int slot = 0;
    for (int k = 0; k < 2 * cap; ++k) {
        const float v = k < cap ? from_lo[k] : from_hi[k - cap];
        if (v < 0.0f) continue;
        while (slot < n && x[slot] >= 0.0f) ++slot;
        if (slot == n) return;
        x[slot] = v;
    }
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int lo = (rank + size - 1) % size, hi = (rank + 1) % size;

    const int n = 200000, cap = 2048, steps = 64;
    const float L = 1.0f, dt = 2e-3f;

    std::vector<float> x(n, -1.0f), v(n);
    for (int i = 0; i < n; ++i) {
        if (i % 2 == 0) x[i] = L * static_cast<float>(i) / n;
        v[i] = (i % 3 == 0) ? -0.3f : 0.7f;
    }

    float *d_x, *d_v, *d_out_lo, *d_out_hi, *d_in_lo, *d_in_hi;
    int* d_cnt;
    check(cudaMalloc(&d_x, n * sizeof(float)), __LINE__);
    check(cudaMalloc(&d_v, n * sizeof(float)), __LINE__);
    check(cudaMalloc(&d_out_lo, cap * sizeof(float)), __LINE__);
    check(cudaMalloc(&d_out_hi, cap * sizeof(float)), __LINE__);
    check(cudaMalloc(&d_in_lo, cap * sizeof(float)), __LINE__);
    check(cudaMalloc(&d_in_hi, cap * sizeof(float)), __LINE__);
    check(cudaMalloc(&d_cnt, 2 * sizeof(int)), __LINE__);
    check(cudaMemcpy(d_x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice), __LINE__);
    check(cudaMemcpy(d_v, v.data(), n * sizeof(float), cudaMemcpyHostToDevice), __LINE__);
    check(cudaMemset(d_in_lo, 0, cap * sizeof(float)), __LINE__);
    check(cudaMemset(d_in_hi, 0, cap * sizeof(float)), __LINE__);

    cudaStream_t s;
    check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), __LINE__);
    const int nb = (n + 255) / 256, cb = (cap + 255) / 256;

    for (int step = 0; step < steps; ++step) {
        reset_slots<<<cb, 256, 0, s>>>(d_out_lo, d_out_hi, cap);
        check(cudaMemsetAsync(d_cnt, 0, 2 * sizeof(int), s), __LINE__);
        pack_both<<<nb, 256, 0, s>>>(d_x, d_out_lo, d_out_hi, d_cnt, n, cap, L);
        check(cudaStreamSynchronize(s), __LINE__);

        MPI_Request reqs[4];
        reqs[0] = post_recv(d_in_lo, cap, lo, 2 * step);
        reqs[1] = post_recv(d_in_hi, cap, hi, 2 * step + 1);
        reqs[2] = post_send(d_out_hi, cap, hi, 2 * step);
        reqs[3] = post_send(d_out_lo, cap, lo, 2 * step + 1);

        drift<<<nb, 256, 0, s>>>(d_x, d_v, n, dt);

        MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
        insert<<<1, 1, 0, s>>>(d_in_lo, d_in_hi, d_x, n, cap);
    }
    check(cudaStreamSynchronize(s), __LINE__);

    check(cudaMemcpy(x.data(), d_x, n * sizeof(float), cudaMemcpyDeviceToHost), __LINE__);
    int alive = 0, total = 0;
    for (float xi : x) alive += xi >= 0.0f;
    MPI_Allreduce(&alive, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) std::printf("alive: %d\n", total);

    cudaFree(d_x);
    cudaFree(d_v);
    cudaFree(d_out_lo);
    cudaFree(d_out_hi);
    cudaFree(d_in_lo);
    cudaFree(d_in_hi);
    cudaFree(d_cnt);
    cudaStreamDestroy(s);
    MPI_Finalize();
    return 0;
}
