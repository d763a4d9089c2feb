// case: request router: an audit log allocated with cudaMallocManaged(..., cudaMemAttachHost) is appended to by the host while the routing kernel (device buffers only) runs; host-attached managed memory is not taken by kernels, and the routing results are read after the stream is synchronized
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CUDA_CHECK(call)                                                     \
    do {                                                                     \
        cudaError_t err_ = (call);                                           \
        if (err_ != cudaSuccess) {                                           \
            std::fprintf(stderr, "CUDA error %s at %s:%d\n",                 \
                         cudaGetErrorString(err_), __FILE__, __LINE__);      \
            std::exit(EXIT_FAILURE);                                         \
        }                                                                    \
    } while (0)

struct AuditEntry {
    int batch;
    int requests;
    char note[56];
};

__global__ void route_requests(const unsigned int* hashes, int* backend, int n, int backends) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) backend[i] = static_cast<int>(hashes[i] % backends);
}

class Router {
public:
    Router(int max_requests, int log_capacity) : max_requests_(max_requests), log_capacity_(log_capacity) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&d_hashes_, max_requests_ * sizeof(unsigned int)));
        CUDA_CHECK(cudaMalloc(&d_backend_, max_requests_ * sizeof(int)));
        CUDA_CHECK(cudaMallocHost(&h_hashes_, max_requests_ * sizeof(unsigned int)));
        CUDA_CHECK(cudaMallocHost(&h_backend_, max_requests_ * sizeof(int)));
        CUDA_CHECK(cudaMallocManaged(&log_, log_capacity_ * sizeof(AuditEntry), cudaMemAttachHost));
    }
    ~Router() {
        cudaStreamSynchronize(stream_);
        cudaFree(log_);
        cudaFreeHost(h_backend_);
        cudaFreeHost(h_hashes_);
        cudaFree(d_backend_);
        cudaFree(d_hashes_);
        cudaStreamDestroy(stream_);
    }

    unsigned int* hashes() { return h_hashes_; }

    int route(int batch, int n, int backends) {
        CUDA_CHECK(cudaMemcpyAsync(d_hashes_, h_hashes_, n * sizeof(unsigned int), cudaMemcpyHostToDevice, stream_));
        route_requests<<<(n + 255) / 256, 256, 0, stream_>>>(d_hashes_, d_backend_, n, backends);
        CUDA_CHECK(cudaMemcpyAsync(h_backend_, d_backend_, n * sizeof(int), cudaMemcpyDeviceToHost, stream_));

        AuditEntry& e = log_[batch % log_capacity_];
        e.batch = batch;
        e.requests = n;
        std::snprintf(e.note, sizeof(e.note), "routed to %d backends", backends);

        CUDA_CHECK(cudaStreamSynchronize(stream_));
        int to_zero = 0;
        for (int i = 0; i < n; ++i) to_zero += (h_backend_[i] == 0);
        return to_zero;
    }

private:
    int max_requests_, log_capacity_;
    cudaStream_t stream_ = nullptr;
    unsigned int* d_hashes_ = nullptr;
    int* d_backend_ = nullptr;
    unsigned int* h_hashes_ = nullptr;
    int* h_backend_ = nullptr;
    AuditEntry* log_ = nullptr;
};

int main() {
    Router router(1 << 20, 1024);
    unsigned int* h = router.hashes();
    for (int b = 0; b < 8; ++b) {
        for (int i = 0; i < (1 << 20); ++i) h[i] = static_cast<unsigned int>(i * 2654435761u + b);
        std::printf("batch %d: %d requests to backend 0\n", b, router.route(b, 1 << 20, 16));
    }
    return 0;
}
