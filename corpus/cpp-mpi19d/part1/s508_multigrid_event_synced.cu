// case: multigrid V-cycle whose coarse ghost rows go out with MPI_Isend/MPI_Irecv after cudaEventSynchronize of an event recorded behind the pack kernel, and are applied only after MPI_Waitall; the memset of the coarse correction that overlaps the exchange touches another buffer: near miss.
// expect: none
#include <mpi.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

static void ck(cudaError_t e, const char* file, int line) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "%s:%d %s\n", file, line, cudaGetErrorString(e));
        MPI_Abort(MPI_COMM_WORLD, 1);
        std::exit(1);
    }
}
#define CK(x) ck((x), __FILE__, __LINE__)

struct GridLevel {
    int n;                 // n x n local points
    float* u;
    float* rhs;
    float* res;
    float* edge_out;       // packed top edge of rhs
    float* edge_in;        // edge received from below
};

__global__ void relax(float* __restrict__ u, const float* __restrict__ rhs, int n, float h2) {
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i > 0 && j > 0 && i < n - 1 && j < n - 1) {
        const int c = j * n + i;
        u[c] = 0.25f * (u[c - 1] + u[c + 1] + u[c - n] + u[c + n] + h2 * rhs[c]);
    }
}

__global__ void compute_residual(const float* __restrict__ u, const float* __restrict__ rhs,
                                 float* __restrict__ res, int n, float ih2) {
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < n && j < n) {
        const int c = j * n + i;
        const bool inner = i > 0 && j > 0 && i < n - 1 && j < n - 1;
        res[c] = inner ? rhs[c] + ih2 * (u[c - 1] + u[c + 1] + u[c - n] + u[c + n] - 4.0f * u[c]) : 0.0f;
    }
}

__global__ void restrict_injection(const float* __restrict__ fine, float* __restrict__ coarse, int nc) {
    int I = blockIdx.x * blockDim.x + threadIdx.x, J = blockIdx.y * blockDim.y + threadIdx.y;
    if (I < nc && J < nc) coarse[J * nc + I] = fine[(2 * J) * (2 * nc) + 2 * I];
}

__global__ void pack_edge(const float* __restrict__ a, float* __restrict__ edge, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) edge[i] = a[(n - 1) * n + i];
}

__global__ void apply_edge(const float* __restrict__ edge, float* __restrict__ a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] += 0.25f * edge[i];
}

__global__ void interpolate_add(const float* __restrict__ uc, float* __restrict__ uf, int nf) {
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < nf && j < nf) uf[j * nf + i] += uc[(j / 2) * (nf / 2) + i / 2];
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int above = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
    const int below = rank > 0 ? rank - 1 : MPI_PROC_NULL;

    const int levels = 6, n0 = 1024, cycles = 8;
    std::vector<GridLevel> L(levels);
    for (int l = 0; l < levels; ++l) {
        GridLevel& g = L[l];
        g.n = n0 >> l;
        const size_t area = static_cast<size_t>(g.n) * g.n * sizeof(float);
        CK(cudaMalloc(&g.u, area));
        CK(cudaMalloc(&g.rhs, area));
        CK(cudaMalloc(&g.res, area));
        CK(cudaMalloc(&g.edge_out, g.n * sizeof(float)));
        CK(cudaMalloc(&g.edge_in, g.n * sizeof(float)));
        CK(cudaMemset(g.u, 0, area));
        CK(cudaMemset(g.rhs, 0, area));
        CK(cudaMemset(g.res, 0, area));
        CK(cudaMemset(g.edge_out, 0, g.n * sizeof(float)));
        CK(cudaMemset(g.edge_in, 0, g.n * sizeof(float)));
    }
    std::vector<float> src(static_cast<size_t>(n0) * n0, 0.0f);
    src[static_cast<size_t>(n0 / 2) * n0 + n0 / 2] = 1.0f;
    CK(cudaMemcpy(L[0].rhs, src.data(), src.size() * sizeof(float), cudaMemcpyHostToDevice));

    cudaStream_t s;
    cudaEvent_t packed;
    CK(cudaStreamCreate(&s));
    CK(cudaEventCreateWithFlags(&packed, cudaEventDisableTiming));
    const dim3 b(16, 16);

    for (int c = 0; c < cycles; ++c) {
        for (int l = 0; l + 1 < levels; ++l) {
            GridLevel& f = L[l];
            GridLevel& g = L[l + 1];
            const float h = 1.0f / (f.n - 1);
            const dim3 gf((f.n + 15) / 16, (f.n + 15) / 16), gc((g.n + 15) / 16, (g.n + 15) / 16);

            relax<<<gf, b, 0, s>>>(f.u, f.rhs, f.n, h * h);
            compute_residual<<<gf, b, 0, s>>>(f.u, f.rhs, f.res, f.n, 1.0f / (h * h));
            restrict_injection<<<gc, b, 0, s>>>(f.res, g.rhs, g.n);
            pack_edge<<<(g.n + 63) / 64, 64, 0, s>>>(g.rhs, g.edge_out, g.n);
            CK(cudaEventRecord(packed, s));
            CK(cudaEventSynchronize(packed));

            MPI_Request rq[2];
            MPI_Irecv(g.edge_in, g.n, MPI_FLOAT, below, l, MPI_COMM_WORLD, &rq[0]);
            MPI_Isend(g.edge_out, g.n, MPI_FLOAT, above, l, MPI_COMM_WORLD, &rq[1]);
            CK(cudaMemsetAsync(g.u, 0, static_cast<size_t>(g.n) * g.n * sizeof(float), s));
            MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
            apply_edge<<<(g.n + 63) / 64, 64, 0, s>>>(g.edge_in, g.rhs, g.n);
        }

        GridLevel& cg = L[levels - 1];
        const float hc = 1.0f / (cg.n - 1);
        for (int k = 0; k < 40; ++k)
            relax<<<dim3((cg.n + 15) / 16, (cg.n + 15) / 16), b, 0, s>>>(cg.u, cg.rhs, cg.n, hc * hc);

        for (int l = levels - 2; l >= 0; --l) {
            GridLevel& f = L[l];
            const float h = 1.0f / (f.n - 1);
            const dim3 gf((f.n + 15) / 16, (f.n + 15) / 16);
            interpolate_add<<<gf, b, 0, s>>>(L[l + 1].u, f.u, f.n);
            relax<<<gf, b, 0, s>>>(f.u, f.rhs, f.n, h * h);
        }
        CK(cudaStreamSynchronize(s));
    }

    std::vector<float> out(src.size());
    CK(cudaMemcpy(out.data(), L[0].u, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    if (rank == 0) std::printf("u(center) = %.6e\n", out[static_cast<size_t>(n0 / 2) * n0 + n0 / 2]);

    for (GridLevel& g : L) {
        CK(cudaFree(g.u));
        CK(cudaFree(g.rhs));
        CK(cudaFree(g.res));
        CK(cudaFree(g.edge_out));
        CK(cudaFree(g.edge_in));
    }
    CK(cudaEventDestroy(packed));
    CK(cudaStreamDestroy(s));
    MPI_Finalize();
    return 0;
}
