// case: asynchronous statistics logger whose acquire() completes the previous MPI_Isend (MPI_Wait on the member request) before handing out the device buffer the next field_stats kernel writes; the solver's kernels on other buffers run while the send is in flight: near miss.
// expect: none
#include <mpi.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUCHK(x)                                                                      \
    do {                                                                              \
        cudaError_t e__ = (x);                                                        \
        if (e__ != cudaSuccess) {                                                     \
            std::fprintf(stderr, "cuda: %s at %s:%d\n", cudaGetErrorString(e__), __FILE__, __LINE__); \
            MPI_Abort(MPI_COMM_WORLD, 4);                                             \
            std::exit(4);                                                             \
        }                                                                             \
    } while (0)

enum { STAT_MIN, STAT_MAX, STAT_SUM, STAT_COUNT };

__global__ void field_stats(const float* __restrict__ u, int n, float* __restrict__ out) {
    __shared__ float lo[128], hi[128], sm[128];
    float a = 3.0e38f, b = -3.0e38f, c = 0.0f;
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        a = fminf(a, u[i]);
        b = fmaxf(b, u[i]);
        c += u[i];
    }
    lo[threadIdx.x] = a;
    hi[threadIdx.x] = b;
    sm[threadIdx.x] = c;
    __syncthreads();
    for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) {
            lo[threadIdx.x] = fminf(lo[threadIdx.x], lo[threadIdx.x + k]);
            hi[threadIdx.x] = fmaxf(hi[threadIdx.x], hi[threadIdx.x + k]);
            sm[threadIdx.x] += sm[threadIdx.x + k];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        out[STAT_MIN] = lo[0];
        out[STAT_MAX] = hi[0];
        out[STAT_SUM] = sm[0];
    }
}

__global__ void advance(const float* __restrict__ u, float* __restrict__ un, int n, float c) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) un[i] = u[i] - c * (u[i] - u[i > 0 ? i - 1 : n - 1]);
}

class StatsChannel {
public:
    StatsChannel(MPI_Comm comm, int sink) : comm_(comm), sink_(sink) {
        CUCHK(cudaMalloc(&d_buf_, STAT_COUNT * sizeof(float)));
        CUCHK(cudaMemset(d_buf_, 0, STAT_COUNT * sizeof(float)));
    }
    ~StatsChannel() { cudaFree(d_buf_); }

    // The buffer is free again once the previous record has left.
    float* acquire() {
        MPI_Wait(&inflight_, MPI_STATUS_IGNORE);
        return d_buf_;
    }

    void submit(cudaStream_t s, int step) {
        CUCHK(cudaStreamSynchronize(s));
        MPI_Isend(d_buf_, STAT_COUNT, MPI_FLOAT, sink_, step, comm_, &inflight_);
    }

    void close() { MPI_Wait(&inflight_, MPI_STATUS_IGNORE); }

private:
    MPI_Comm comm_;
    int sink_;
    float* d_buf_ = nullptr;
    MPI_Request inflight_ = MPI_REQUEST_NULL;
};

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) MPI_Abort(MPI_COMM_WORLD, 1);

    const int sink = 0, steps = 2000, every = 25;
    const int per_rank = (steps + every - 1) / every;

    if (rank == sink) {
        std::vector<float> rec(STAT_COUNT);
        for (int k = 0; k < per_rank * (size - 1); ++k) {
            MPI_Status st;
            MPI_Recv(rec.data(), STAT_COUNT, MPI_FLOAT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            if (st.MPI_TAG % 500 == 0)
                std::printf("rank %d step %d: [%g, %g] sum %g\n", st.MPI_SOURCE, st.MPI_TAG,
                            rec[STAT_MIN], rec[STAT_MAX], rec[STAT_SUM]);
        }
        MPI_Finalize();
        return 0;
    }

    const int n = 1 << 21;
    const size_t bytes = n * sizeof(float);
    std::vector<float> h(n);
    for (int i = 0; i < n; ++i) h[i] = (i > n / 3 && i < n / 2) ? 1.0f : 0.0f;

    float *d_u, *d_un;
    CUCHK(cudaMalloc(&d_u, bytes));
    CUCHK(cudaMalloc(&d_un, bytes));
    CUCHK(cudaMemcpy(d_u, h.data(), bytes, cudaMemcpyHostToDevice));
    CUCHK(cudaMemset(d_un, 0, bytes));
    cudaStream_t s;
    CUCHK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    {
        StatsChannel chan(MPI_COMM_WORLD, sink);
        for (int step = 0; step < steps; ++step) {
            advance<<<(n + 255) / 256, 256, 0, s>>>(d_u, d_un, n, 0.5f);
            CUCHK(cudaMemcpyAsync(d_u, d_un, bytes, cudaMemcpyDeviceToDevice, s));
            if (step % every == 0) {
                float* stats = chan.acquire();
                field_stats<<<1, 128, 0, s>>>(d_u, n, stats);
                chan.submit(s, step);
            }
        }
        chan.close();
        CUCHK(cudaStreamSynchronize(s));
    }

    CUCHK(cudaFree(d_u));
    CUCHK(cudaFree(d_un));
    CUCHK(cudaStreamDestroy(s));
    MPI_Finalize();
    return 0;
}
