// case: recursive-doubling reduction of a histogram and its per-bin energy sums through pinned buffers, four requests in a struct Comm passed by pointer; comm_wait() (MPI_Waitall over c->r) runs before both uploads of the received arrays: near miss.
// expect: none
#include <mpi.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CUDA_CHECK(expr)                                                             \
    do {                                                                             \
        cudaError_t status_ = (expr);                                                \
        if (status_ != cudaSuccess) {                                                \
            std::fprintf(stderr, "CUDA error %s at %s:%d\n",                         \
                         cudaGetErrorString(status_), __FILE__, __LINE__);           \
            MPI_Abort(MPI_COMM_WORLD, EXIT_FAILURE);                                 \
            std::exit(EXIT_FAILURE);                                                 \
        }                                                                            \
    } while (0)

struct Comm {
    MPI_Request r[4];
    int n;
};

static void comm_reset(Comm* c) {
    for (int i = 0; i < 4; ++i) c->r[i] = MPI_REQUEST_NULL;
    c->n = 0;
}

static void exchange_with(Comm* c, int partner, int tag,
                          const double* counts_out, const double* sums_out,
                          double* counts_in, double* sums_in, int nbins) {
    MPI_Irecv(counts_in, nbins, MPI_DOUBLE, partner, 2 * tag, MPI_COMM_WORLD, &c->r[0]);
    MPI_Irecv(sums_in, nbins, MPI_DOUBLE, partner, 2 * tag + 1, MPI_COMM_WORLD, &c->r[1]);
    MPI_Isend(counts_out, nbins, MPI_DOUBLE, partner, 2 * tag, MPI_COMM_WORLD, &c->r[2]);
    MPI_Isend(sums_out, nbins, MPI_DOUBLE, partner, 2 * tag + 1, MPI_COMM_WORLD, &c->r[3]);
    c->n = 4;
}

static void comm_wait(Comm* c) {
    MPI_Waitall(c->n, c->r, MPI_STATUSES_IGNORE);
    c->n = 0;
}

__global__ void bin_particles(const float* __restrict__ e, int n, double* __restrict__ counts,
                              double* __restrict__ sums, int nbins, float emax) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        int b = static_cast<int>(e[i] / emax * nbins);
        b = b < 0 ? 0 : (b >= nbins ? nbins - 1 : b);
        atomicAdd(&counts[b], 1.0);
        atomicAdd(&sums[b], static_cast<double>(e[i]));
    }
}

__global__ void merge_bins(double* __restrict__ counts, double* __restrict__ sums,
                           const double* __restrict__ counts_in, const double* __restrict__ sums_in, int nbins) {
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b < nbins) {
        counts[b] += counts_in[b];
        sums[b] += sums_in[b];
    }
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size & (size - 1)) MPI_Abort(MPI_COMM_WORLD, 1);

    const int nbins = 4096, n = 1 << 21;
    const float emax = 40.0f;
    const size_t hb = nbins * sizeof(double);

    std::vector<float> e(n);
    std::mt19937 rng(77u * (rank + 1));
    std::exponential_distribution<float> ex(0.25f);
    for (float& v : e) v = ex(rng);

    float* d_e;
    double *d_counts, *d_sums, *d_counts_in, *d_sums_in;
    double *h_counts_out, *h_sums_out, *h_counts_in, *h_sums_in;
    CUDA_CHECK(cudaMalloc(&d_e, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_counts, hb));
    CUDA_CHECK(cudaMalloc(&d_sums, hb));
    CUDA_CHECK(cudaMalloc(&d_counts_in, hb));
    CUDA_CHECK(cudaMalloc(&d_sums_in, hb));
    CUDA_CHECK(cudaMallocHost(&h_counts_out, hb));
    CUDA_CHECK(cudaMallocHost(&h_sums_out, hb));
    CUDA_CHECK(cudaMallocHost(&h_counts_in, hb));
    CUDA_CHECK(cudaMallocHost(&h_sums_in, hb));
    CUDA_CHECK(cudaMemcpy(d_e, e.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_counts, 0, hb));
    CUDA_CHECK(cudaMemset(d_sums, 0, hb));

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));
    bin_particles<<<512, 256, 0, s>>>(d_e, n, d_counts, d_sums, nbins, emax);

    Comm c;
    comm_reset(&c);
    for (int mask = 1; mask < size; mask <<= 1) {
        CUDA_CHECK(cudaMemcpyAsync(h_counts_out, d_counts, hb, cudaMemcpyDeviceToHost, s));
        CUDA_CHECK(cudaMemcpyAsync(h_sums_out, d_sums, hb, cudaMemcpyDeviceToHost, s));
        CUDA_CHECK(cudaStreamSynchronize(s));

        exchange_with(&c, rank ^ mask, mask, h_counts_out, h_sums_out, h_counts_in, h_sums_in, nbins);
        comm_wait(&c);

        CUDA_CHECK(cudaMemcpyAsync(d_counts_in, h_counts_in, hb, cudaMemcpyHostToDevice, s));
        CUDA_CHECK(cudaMemcpyAsync(d_sums_in, h_sums_in, hb, cudaMemcpyHostToDevice, s));
        merge_bins<<<(nbins + 127) / 128, 128, 0, s>>>(d_counts, d_sums, d_counts_in, d_sums_in, nbins);
    }

    CUDA_CHECK(cudaMemcpyAsync(h_counts_out, d_counts, hb, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaMemcpyAsync(h_sums_out, d_sums, hb, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    if (rank == 0) {
        double cnt = 0.0, sum = 0.0;
        for (int b = 0; b < nbins; ++b) {
            cnt += h_counts_out[b];
            sum += h_sums_out[b];
        }
        std::printf("mean energy %.5f over %.0f particles\n", sum / cnt, cnt);
    }

    CUDA_CHECK(cudaFree(d_e));
    CUDA_CHECK(cudaFree(d_counts));
    CUDA_CHECK(cudaFree(d_sums));
    CUDA_CHECK(cudaFree(d_counts_in));
    CUDA_CHECK(cudaFree(d_sums_in));
    CUDA_CHECK(cudaFreeHost(h_counts_out));
    CUDA_CHECK(cudaFreeHost(h_sums_out));
    CUDA_CHECK(cudaFreeHost(h_counts_in));
    CUDA_CHECK(cudaFreeHost(h_sums_in));
    CUDA_CHECK(cudaStreamDestroy(s));
    MPI_Finalize();
    return 0;
}
