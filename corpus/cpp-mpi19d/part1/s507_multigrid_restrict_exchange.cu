// case: distributed geometric multigrid V-cycle; on the way down each level restricts the residual and packs the coarse top row, then MPI_Sendrecv exchanges that ghost row without waiting for the pack kernel, which may still be writing coarse.ghost_send.
// expect: missing_sync=1
#include <mpi.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                         \
    do {                                                                              \
        cudaError_t rc_ = (x);                                                        \
        if (rc_ != cudaSuccess) {                                                     \
            std::fprintf(stderr, "%s (%s:%d)\n", cudaGetErrorString(rc_), __FILE__, __LINE__); \
            MPI_Abort(MPI_COMM_WORLD, 1);                                             \
            std::exit(1);                                                             \
        }                                                                             \
    } while (0)

static const int MAX_LEVELS = 8;

struct Level {
    int nx, ny;              // local interior points; rows are split across ranks
    double* u;               // solution / correction
    double* f;               // right-hand side
    double* r;               // residual
    double* ghost_send;      // top row, for the rank above
    double* ghost_recv;      // top row of the rank below
};

__global__ void smooth_jacobi(double* __restrict__ u, const double* __restrict__ f, int nx, int ny, double h2) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i > 0 && i < nx - 1 && j > 0 && j < ny - 1) {
        const int c = j * nx + i;
        // damped, in place (red-black ordering omitted for brevity)
        u[c] = 0.8 * 0.25 * (u[c - 1] + u[c + 1] + u[c - nx] + u[c + nx] + h2 * f[c]) + 0.2 * u[c];
    }
}

__global__ void residual(const double* __restrict__ u, const double* __restrict__ f, double* __restrict__ r,
                         int nx, int ny, double inv_h2) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < nx && j < ny) {
        const int c = j * nx + i;
        double lap = 0.0;
        if (i > 0 && i < nx - 1 && j > 0 && j < ny - 1)
            lap = (u[c - 1] + u[c + 1] + u[c - nx] + u[c + nx] - 4.0 * u[c]) * inv_h2;
        r[c] = f[c] + lap;
    }
}

// Full weighting onto the coarse grid (nx/2 x ny/2).
__global__ void restrict_fw(const double* __restrict__ r, double* __restrict__ fc, int nxf, int nyf) {
    const int nxc = nxf / 2, nyc = nyf / 2;
    int I = blockIdx.x * blockDim.x + threadIdx.x;
    int J = blockIdx.y * blockDim.y + threadIdx.y;
    if (I < nxc && J < nyc) {
        const int i = 2 * I, j = 2 * J;
        const int i1 = i + 1 < nxf ? i + 1 : i, j1 = j + 1 < nyf ? j + 1 : j;
        fc[J * nxc + I] = 0.25 * (r[j * nxf + i] + r[j * nxf + i1] + r[j1 * nxf + i] + r[j1 * nxf + i1]);
    }
}

__global__ void pack_top(const double* __restrict__ a, double* __restrict__ row, int nx, int ny) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx) row[i] = a[(ny - 1) * nx + i];
}

// Couples the bottom row of this rank to the row received from the rank below.
__global__ void add_ghost(const double* __restrict__ ghost, double* __restrict__ a, int nx, double w) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx) a[i] += w * ghost[i];
}

__global__ void prolong_add(const double* __restrict__ uc, double* __restrict__ uf, int nxf, int nyf) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    const int nxc = nxf / 2, nyc = nyf / 2;
    if (i < nxf && j < nyf) {
        const int I = i / 2 < nxc ? i / 2 : nxc - 1;
        const int J = j / 2 < nyc ? j / 2 : nyc - 1;
        uf[j * nxf + i] += uc[J * nxc + I];
    }
}

static dim3 grid_for(int nx, int ny, dim3 b) { return dim3((nx + b.x - 1) / b.x, (ny + b.y - 1) / b.y); }

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int up = (rank + 1) % size;
    const int down = (rank + size - 1) % size;
    MPI_Comm comm = MPI_COMM_WORLD;

    const int nlev = 5;
    const int nx0 = 1024, ny0 = 512;
    const int ncycles = 10;
    const dim3 blk(32, 8);

    Level lv[MAX_LEVELS];
    for (int l = 0; l < nlev; ++l) {
        lv[l].nx = nx0 >> l;
        lv[l].ny = ny0 >> l;
        const size_t cells = static_cast<size_t>(lv[l].nx) * lv[l].ny * sizeof(double);
        const size_t row = static_cast<size_t>(lv[l].nx) * sizeof(double);
        CK(cudaMalloc(&lv[l].u, cells));
        CK(cudaMalloc(&lv[l].f, cells));
        CK(cudaMalloc(&lv[l].r, cells));
        CK(cudaMalloc(&lv[l].ghost_send, row));
        CK(cudaMalloc(&lv[l].ghost_recv, row));
        CK(cudaMemset(lv[l].u, 0, cells));
        CK(cudaMemset(lv[l].f, 0, cells));
        CK(cudaMemset(lv[l].r, 0, cells));
        CK(cudaMemset(lv[l].ghost_send, 0, row));
        CK(cudaMemset(lv[l].ghost_recv, 0, row));
    }

    std::vector<double> rhs(static_cast<size_t>(nx0) * ny0, 0.0);
    for (int j = ny0 / 4; j < 3 * ny0 / 4; ++j)
        for (int i = nx0 / 4; i < 3 * nx0 / 4; ++i) rhs[static_cast<size_t>(j) * nx0 + i] = 1.0;
    CK(cudaMemcpy(lv[0].f, rhs.data(), rhs.size() * sizeof(double), cudaMemcpyHostToDevice));

    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    std::vector<double> t_level(nlev, 0.0);

    for (int cycle = 0; cycle < ncycles; ++cycle) {
        // Down: smooth, restrict, exchange the coarse ghost row.
        for (int l = 0; l + 1 < nlev; ++l) {
            Level& fine = lv[l];
            Level& coarse = lv[l + 1];
            const double h = 1.0 / (fine.nx - 1);
            const double t0 = MPI_Wtime();

            smooth_jacobi<<<grid_for(fine.nx, fine.ny, blk), blk, 0, s>>>(fine.u, fine.f, fine.nx, fine.ny, h * h);
            residual<<<grid_for(fine.nx, fine.ny, blk), blk, 0, s>>>(fine.u, fine.f, fine.r, fine.nx, fine.ny, 1.0 / (h * h));
            restrict_fw<<<grid_for(coarse.nx, coarse.ny, blk), blk, 0, s>>>(fine.r, coarse.f, fine.nx, fine.ny);
            pack_top<<<(coarse.nx + 127) / 128, 128, 0, s>>>(coarse.f, coarse.ghost_send, coarse.nx, coarse.ny);

            MPI_Sendrecv(coarse.ghost_send, coarse.nx, MPI_DOUBLE, up, 100 + l, // EXPECT: missing_sync
                         coarse.ghost_recv, coarse.nx, MPI_DOUBLE, down, 100 + l,
                         comm, MPI_STATUS_IGNORE);

            add_ghost<<<(coarse.nx + 127) / 128, 128, 0, s>>>(coarse.ghost_recv, coarse.f, coarse.nx, 0.25);
            CK(cudaMemsetAsync(coarse.u, 0, static_cast<size_t>(coarse.nx) * coarse.ny * sizeof(double), s));
            CK(cudaStreamSynchronize(s));   // per-level timing
            t_level[l] += MPI_Wtime() - t0;
        }

        // Coarsest level: many sweeps.
        Level& bottom = lv[nlev - 1];
        const double hb = 1.0 / (bottom.nx - 1);
        for (int sweep = 0; sweep < 50; ++sweep)
            smooth_jacobi<<<grid_for(bottom.nx, bottom.ny, blk), blk, 0, s>>>(bottom.u, bottom.f, bottom.nx, bottom.ny, hb * hb);

        // Up: exchange the correction's ghost row, prolongate, post-smooth.
        for (int l = nlev - 2; l >= 0; --l) {
            Level& fine = lv[l];
            Level& coarse = lv[l + 1];
            const double h = 1.0 / (fine.nx - 1);

            pack_top<<<(coarse.nx + 127) / 128, 128, 0, s>>>(coarse.u, coarse.ghost_send, coarse.nx, coarse.ny);
            CK(cudaStreamSynchronize(s));
            MPI_Sendrecv(coarse.ghost_send, coarse.nx, MPI_DOUBLE, up, 200 + l,
                         coarse.ghost_recv, coarse.nx, MPI_DOUBLE, down, 200 + l,
                         comm, MPI_STATUS_IGNORE);
            add_ghost<<<(coarse.nx + 127) / 128, 128, 0, s>>>(coarse.ghost_recv, coarse.u, coarse.nx, 0.25);
            prolong_add<<<grid_for(fine.nx, fine.ny, blk), blk, 0, s>>>(coarse.u, fine.u, fine.nx, fine.ny);
            smooth_jacobi<<<grid_for(fine.nx, fine.ny, blk), blk, 0, s>>>(fine.u, fine.f, fine.nx, fine.ny, h * h);
        }
        CK(cudaStreamSynchronize(s));
    }

    std::vector<double> sol(static_cast<size_t>(nx0) * ny0);
    CK(cudaMemcpy(sol.data(), lv[0].u, sol.size() * sizeof(double), cudaMemcpyDeviceToHost));
    double local = 0.0, global = 0.0;
    for (double v : sol) local += v * v;
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, comm);
    if (rank == 0) std::printf("|u|^2 = %.10e, level-0 time %.3f s\n", global, t_level[0]);

    for (int l = 0; l < nlev; ++l) {
        CK(cudaFree(lv[l].u));
        CK(cudaFree(lv[l].f));
        CK(cudaFree(lv[l].r));
        CK(cudaFree(lv[l].ghost_send));
        CK(cudaFree(lv[l].ghost_recv));
    }
    CK(cudaStreamDestroy(s));
    MPI_Finalize();
    return 0;
}
