// case: neighbour exchange of a graph-partitioned vector: for (p < npeers) MPI_Irecv(inbox[p], ..., &recv_reqs[p]), then a MPI_Waitany loop launches the unpack kernel for whichever peer's data arrived, and MPI_Waitall retires the sends before the outboxes are refilled: near miss.
// expect: none
#include <mpi.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

static inline void cuda_check(cudaError_t rc, int line) {
    if (rc != cudaSuccess) {
        std::fprintf(stderr, "cuda error line %d: %s\n", line, cudaGetErrorString(rc));
        MPI_Abort(MPI_COMM_WORLD, 1);
        std::exit(1);
    }
}
#define CUDA(x) cuda_check((x), __LINE__)

__global__ void pack(const float* __restrict__ x, const int* __restrict__ idx, float* __restrict__ out, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = x[idx[k]];
}

__global__ void unpack_add(const float* __restrict__ in, const int* __restrict__ idx, float* __restrict__ y, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) y[idx[k]] += in[k];
}

__global__ void diag_scale(const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 0.5f * x[i];
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    // Each rank talks to up to 4 ranks at distance 1 and 2 on a ring (a stand-in for a graph partition).
    std::vector<int> nbrs;
    for (int d : {1, 2}) {
        if (size > d) {
            nbrs.push_back((rank + d) % size);
            nbrs.push_back((rank - d + size) % size);
        }
    }
    const int npeers = static_cast<int>(nbrs.size());
    const int n = 1 << 20, per_peer = 8192, iters = 30;

    std::vector<int> idx(per_peer);
    std::vector<float*> d_inbox(npeers), d_outbox(npeers);
    std::vector<int*> d_idx(npeers);
    for (int p = 0; p < npeers; ++p) {
        for (int k = 0; k < per_peer; ++k) idx[k] = (p * per_peer + k * 7) % n;
        CUDA(cudaMalloc(&d_inbox[p], per_peer * sizeof(float)));
        CUDA(cudaMalloc(&d_outbox[p], per_peer * sizeof(float)));
        CUDA(cudaMalloc(&d_idx[p], per_peer * sizeof(int)));
        CUDA(cudaMemcpy(d_idx[p], idx.data(), per_peer * sizeof(int), cudaMemcpyHostToDevice));
        CUDA(cudaMemset(d_inbox[p], 0, per_peer * sizeof(float)));
    }

    std::vector<float> hx(n, 1.0f);
    float *d_x, *d_y;
    CUDA(cudaMalloc(&d_x, n * sizeof(float)));
    CUDA(cudaMalloc(&d_y, n * sizeof(float)));
    CUDA(cudaMemcpy(d_x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA(cudaMemset(d_y, 0, n * sizeof(float)));

    cudaStream_t s;
    CUDA(cudaStreamCreate(&s));
    std::vector<MPI_Request> recv_reqs(npeers), send_reqs(npeers);
    const int pb = (per_peer + 255) / 256;

    for (int it = 0; it < iters; ++it) {
        for (int p = 0; p < npeers; ++p)
            MPI_Irecv(d_inbox[p], per_peer, MPI_FLOAT, nbrs[p], it, MPI_COMM_WORLD, &recv_reqs[p]);

        for (int p = 0; p < npeers; ++p)
            pack<<<pb, 256, 0, s>>>(d_x, d_idx[p], d_outbox[p], per_peer);
        CUDA(cudaStreamSynchronize(s));
        for (int p = 0; p < npeers; ++p)
            MPI_Isend(d_outbox[p], per_peer, MPI_FLOAT, nbrs[p], it, MPI_COMM_WORLD, &send_reqs[p]);

        diag_scale<<<(n + 255) / 256, 256, 0, s>>>(d_x, d_y, n);

        for (int done = 0; done < npeers; ++done) {
            int p = MPI_UNDEFINED;
            MPI_Waitany(npeers, recv_reqs.data(), &p, MPI_STATUS_IGNORE);
            unpack_add<<<pb, 256, 0, s>>>(d_inbox[p], d_idx[p], d_y, per_peer);
        }
        MPI_Waitall(npeers, send_reqs.data(), MPI_STATUSES_IGNORE);

        CUDA(cudaMemcpyAsync(d_x, d_y, n * sizeof(float), cudaMemcpyDeviceToDevice, s));
        CUDA(cudaStreamSynchronize(s));
    }

    CUDA(cudaMemcpy(hx.data(), d_x, n * sizeof(float), cudaMemcpyDeviceToHost));
    if (rank == 0) std::printf("x[0] = %g\n", hx[0]);

    for (int p = 0; p < npeers; ++p) {
        CUDA(cudaFree(d_inbox[p]));
        CUDA(cudaFree(d_outbox[p]));
        CUDA(cudaFree(d_idx[p]));
    }
    CUDA(cudaFree(d_x));
    CUDA(cudaFree(d_y));
    CUDA(cudaStreamDestroy(s));
    MPI_Finalize();
    return 0;
}
