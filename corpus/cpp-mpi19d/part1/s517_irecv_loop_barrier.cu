// case: halo exchange of a partitioned sparse operator: for (p < npeers) MPI_Irecv(peers[p].d_in, ..., &reqs[p]) then the sends, then MPI_Barrier in place of a wait; the scatter_add kernels read peers[p].d_in before MPI_Waitall completes the receives.
// expect: missing_sync=1
#include <mpi.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(call)                                                                      \
    do {                                                                              \
        cudaError_t e_ = (call);                                                      \
        if (e_ != cudaSuccess) {                                                      \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            MPI_Abort(MPI_COMM_WORLD, 1);                                             \
            std::exit(1);                                                             \
        }                                                                             \
    } while (0)

struct Peer {
    int rank;
    int send_tag, recv_tag;
    int count;
    int* d_send_idx;     // local rows whose values the peer needs
    int* d_recv_idx;     // local rows the peer's values couple into
    double* d_out;
    double* d_in;
};

__global__ void gather(const double* __restrict__ x, const int* __restrict__ idx, double* __restrict__ out, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = x[idx[k]];
}

// y = A_local x for a 2-D 5-point stencil on nx x ny rows of this rank.
__global__ void local_spmv(const double* __restrict__ x, double* __restrict__ y, int nx, int ny) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y;
    if (i < nx && j < ny) {
        const int c = j * nx + i;
        double v = 4.0 * x[c];
        if (i > 0) v -= x[c - 1];
        if (i < nx - 1) v -= x[c + 1];
        if (j > 0) v -= x[c - nx];
        if (j < ny - 1) v -= x[c + nx];
        y[c] = v;
    }
}

__global__ void scatter_add(const double* __restrict__ in, const int* __restrict__ idx, double* __restrict__ y,
                            int n, double coeff) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) y[idx[k]] += coeff * in[k];
}

static Peer make_peer(int rank, int send_tag, int recv_tag, const std::vector<int>& send_rows,
                      const std::vector<int>& recv_rows) {
    Peer p;
    p.rank = rank;
    p.send_tag = send_tag;
    p.recv_tag = recv_tag;
    p.count = static_cast<int>(send_rows.size());
    CK(cudaMalloc(&p.d_send_idx, p.count * sizeof(int)));
    CK(cudaMalloc(&p.d_recv_idx, p.count * sizeof(int)));
    CK(cudaMalloc(&p.d_out, p.count * sizeof(double)));
    CK(cudaMalloc(&p.d_in, p.count * sizeof(double)));
    CK(cudaMemcpy(p.d_send_idx, send_rows.data(), p.count * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(p.d_recv_idx, recv_rows.data(), p.count * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemset(p.d_in, 0, p.count * sizeof(double)));
    return p;
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm comm = MPI_COMM_WORLD;

    const int nx = 4096, ny = 1024, napply = 50;
    const int n = nx * ny;

    std::vector<int> bottom(nx), top(nx);
    for (int i = 0; i < nx; ++i) {
        bottom[i] = i;
        top[i] = (ny - 1) * nx + i;
    }
    std::vector<Peer> peers;
    if (rank > 0) peers.push_back(make_peer(rank - 1, 0, 1, bottom, bottom));
    if (rank + 1 < size) peers.push_back(make_peer(rank + 1, 1, 0, top, top));
    const int npeers = static_cast<int>(peers.size());

    std::vector<double> hx(n);
    for (int c = 0; c < n; ++c) hx[c] = 1.0 / (1.0 + (c % nx));
    double *d_x, *d_y;
    CK(cudaMalloc(&d_x, n * sizeof(double)));
    CK(cudaMalloc(&d_y, n * sizeof(double)));
    CK(cudaMemcpy(d_x, hx.data(), n * sizeof(double), cudaMemcpyHostToDevice));
    CK(cudaMemset(d_y, 0, n * sizeof(double)));

    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    std::vector<MPI_Request> reqs(2 * npeers, MPI_REQUEST_NULL);

    for (int a = 0; a < napply; ++a) {
        for (int p = 0; p < npeers; ++p)
            MPI_Irecv(peers[p].d_in, peers[p].count, MPI_DOUBLE, peers[p].rank, peers[p].recv_tag, comm, &reqs[p]);

        for (int p = 0; p < npeers; ++p)
            gather<<<(peers[p].count + 255) / 256, 256, 0, s>>>(d_x, peers[p].d_send_idx, peers[p].d_out, peers[p].count);
        CK(cudaStreamSynchronize(s));
        for (int p = 0; p < npeers; ++p)
            MPI_Isend(peers[p].d_out, peers[p].count, MPI_DOUBLE, peers[p].rank, peers[p].send_tag, comm,
                      &reqs[npeers + p]);

        local_spmv<<<dim3((nx + 255) / 256, ny), 256, 0, s>>>(d_x, d_y, nx, ny);

        MPI_Barrier(comm);   // all neighbours have sent their boundary by now
        for (int p = 0; p < npeers; ++p)
            scatter_add<<<(peers[p].count + 255) / 256, 256, 0, s>>>(peers[p].d_in, peers[p].d_recv_idx, d_y, peers[p].count, -1.0); // EXPECT: missing_sync
        MPI_Waitall(2 * npeers, reqs.data(), MPI_STATUSES_IGNORE);

        CK(cudaMemcpyAsync(d_x, d_y, n * sizeof(double), cudaMemcpyDeviceToDevice, s));
        CK(cudaStreamSynchronize(s));
    }

    CK(cudaMemcpy(hx.data(), d_x, n * sizeof(double), cudaMemcpyDeviceToHost));
    double local = 0.0, global = 0.0;
    for (double v : hx) local += v;
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, comm);
    if (rank == 0) std::printf("sum(A^%d x) = %.10e\n", napply, global);

    for (Peer& p : peers) {
        CK(cudaFree(p.d_send_idx));
        CK(cudaFree(p.d_recv_idx));
        CK(cudaFree(p.d_out));
        CK(cudaFree(p.d_in));
    }
    CK(cudaFree(d_x));
    CK(cudaFree(d_y));
    CK(cudaStreamDestroy(s));
    MPI_Finalize();
    return 0;
}
