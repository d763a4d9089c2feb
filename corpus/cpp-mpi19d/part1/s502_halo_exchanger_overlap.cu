// case: 2-D diffusion with a HaloExchanger class whose begin()/end() keep four requests in a member std::vector<MPI_Request>; only the interior kernel (other buffers) runs between begin() and end(), and the edge kernel that reads the received rows comes after end(): near miss.
// expect: none
#include <mpi.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

static void cuda_check(cudaError_t err, const char* what) {
    if (err != cudaSuccess) {
        std::fprintf(stderr, "%s failed: %s\n", what, cudaGetErrorString(err));
        MPI_Abort(MPI_COMM_WORLD, 2);
        std::exit(2);
    }
}

// Rows of the local slab are exchanged with both neighbours (non-periodic: MPI_PROC_NULL at the ends).
class HaloExchanger {
public:
    HaloExchanger(MPI_Comm comm, int nx) : comm_(comm), nx_(nx) {
        int rank = 0, size = 1;
        MPI_Comm_rank(comm, &rank);
        MPI_Comm_size(comm, &size);
        lo_ = rank > 0 ? rank - 1 : MPI_PROC_NULL;
        hi_ = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
        const size_t bytes = static_cast<size_t>(nx_) * sizeof(float);
        cuda_check(cudaMalloc(&send_lo_, bytes), "cudaMalloc send_lo");
        cuda_check(cudaMalloc(&send_hi_, bytes), "cudaMalloc send_hi");
        cuda_check(cudaMalloc(&recv_lo_, bytes), "cudaMalloc recv_lo");
        cuda_check(cudaMalloc(&recv_hi_, bytes), "cudaMalloc recv_hi");
        cuda_check(cudaMemset(send_lo_, 0, bytes), "memset");
        cuda_check(cudaMemset(send_hi_, 0, bytes), "memset");
        cuda_check(cudaMemset(recv_lo_, 0, bytes), "memset");
        cuda_check(cudaMemset(recv_hi_, 0, bytes), "memset");
        reqs_.reserve(4);
    }

    ~HaloExchanger() {
        cudaFree(send_lo_);
        cudaFree(send_hi_);
        cudaFree(recv_lo_);
        cudaFree(recv_hi_);
    }

    float* send_lo() { return send_lo_; }
    float* send_hi() { return send_hi_; }
    const float* recv_lo() const { return recv_lo_; }
    const float* recv_hi() const { return recv_hi_; }

    void begin() {
        reqs_.resize(4);
        MPI_Irecv(recv_lo_, nx_, MPI_FLOAT, lo_, kUp, comm_, &reqs_[0]);
        MPI_Irecv(recv_hi_, nx_, MPI_FLOAT, hi_, kDown, comm_, &reqs_[1]);
        MPI_Isend(send_lo_, nx_, MPI_FLOAT, lo_, kDown, comm_, &reqs_[2]);
        MPI_Isend(send_hi_, nx_, MPI_FLOAT, hi_, kUp, comm_, &reqs_[3]);
    }

    void end() {
        MPI_Waitall(static_cast<int>(reqs_.size()), reqs_.data(), MPI_STATUSES_IGNORE);
        reqs_.clear();
    }

private:
    static constexpr int kUp = 11;
    static constexpr int kDown = 12;
    MPI_Comm comm_;
    int nx_;
    int lo_ = MPI_PROC_NULL;
    int hi_ = MPI_PROC_NULL;
    float* send_lo_ = nullptr;
    float* send_hi_ = nullptr;
    float* recv_lo_ = nullptr;
    float* recv_hi_ = nullptr;
    std::vector<MPI_Request> reqs_;
};

__global__ void pack_edges(const float* __restrict__ u, float* __restrict__ lo, float* __restrict__ hi,
                           int nx, int ny) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx) {
        lo[i] = u[i];
        hi[i] = u[(ny - 1) * nx + i];
    }
}

__global__ void diffuse_interior(const float* __restrict__ u, float* __restrict__ un, int nx, int ny, float k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y + 1;
    if (i > 0 && i < nx - 1 && j < ny - 1) {
        const int c = j * nx + i;
        un[c] = u[c] + k * (u[c - 1] + u[c + 1] + u[c - nx] + u[c + nx] - 4.0f * u[c]);
    }
}

__global__ void diffuse_edges(const float* __restrict__ below, const float* __restrict__ above,
                              const float* __restrict__ u, float* __restrict__ un, int nx, int ny, float k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i < nx - 1) {
        const int b = i;
        const int t = (ny - 1) * nx + i;
        un[b] = u[b] + k * (u[b - 1] + u[b + 1] + below[i] + u[b + nx] - 4.0f * u[b]);
        un[t] = u[t] + k * (u[t - 1] + u[t + 1] + u[t - nx] + above[i] - 4.0f * u[t]);
    }
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    const int nx = 2048, ny = 512, iters = 500;
    const float kappa = 0.2f;
    const size_t n = static_cast<size_t>(nx) * ny;

    std::vector<float> h(n, 0.0f);
    if (rank == 0) {
        for (int i = nx / 4; i < 3 * nx / 4; ++i) h[i] = 1.0f;
    }

    float* d_u = nullptr;
    float* d_un = nullptr;
    cuda_check(cudaMalloc(&d_u, n * sizeof(float)), "cudaMalloc u");
    cuda_check(cudaMalloc(&d_un, n * sizeof(float)), "cudaMalloc un");
    cuda_check(cudaMemcpy(d_u, h.data(), n * sizeof(float), cudaMemcpyHostToDevice), "upload");
    cuda_check(cudaMemcpy(d_un, d_u, n * sizeof(float), cudaMemcpyDeviceToDevice), "copy");

    cudaStream_t s;
    cuda_check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");

    HaloExchanger halo(MPI_COMM_WORLD, nx);
    const int rb = (nx + 127) / 128;
    const dim3 grid(rb, ny - 2);

    for (int it = 0; it < iters; ++it) {
        pack_edges<<<rb, 128, 0, s>>>(d_u, halo.send_lo(), halo.send_hi(), nx, ny);
        cuda_check(cudaStreamSynchronize(s), "sync before exchange");

        halo.begin();
        diffuse_interior<<<grid, 128, 0, s>>>(d_u, d_un, nx, ny, kappa);
        halo.end();
        diffuse_edges<<<rb, 128, 0, s>>>(halo.recv_lo(), halo.recv_hi(), d_u, d_un, nx, ny, kappa);

        cuda_check(cudaMemcpyAsync(d_u, d_un, n * sizeof(float), cudaMemcpyDeviceToDevice, s), "commit");
    }
    cuda_check(cudaStreamSynchronize(s), "final sync");

    cuda_check(cudaMemcpy(h.data(), d_u, n * sizeof(float), cudaMemcpyDeviceToHost), "download");
    double local = 0.0, total = 0.0;
    for (float v : h) local += v;
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) std::printf("heat: %.6f\n", total);

    cudaFree(d_u);
    cudaFree(d_un);
    cudaStreamDestroy(s);
    MPI_Finalize();
    return 0;
}
