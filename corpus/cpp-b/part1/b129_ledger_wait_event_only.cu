// case: ledger reconciliation: the balances are copied to pinned memory on the io stream after cudaStreamWaitEvent on the compute event, but cudaStreamWaitEvent only orders the io stream, so the host reads the balances while the copy may still be running
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                     \
    do {                                                                     \
        cudaError_t err_ = (call);                                           \
        if (err_ != cudaSuccess) {                                           \
            std::fprintf(stderr, "CUDA error %s at %s:%d\n",                 \
                         cudaGetErrorString(err_), __FILE__, __LINE__);      \
            std::exit(EXIT_FAILURE);                                         \
        }                                                                    \
    } while (0)

struct Txn {
    int32_t from;
    int32_t to;
    int64_t cents;
};

__global__ void apply_txns(const Txn* txns, int n, unsigned long long* balances) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    atomicAdd(&balances[txns[i].to], static_cast<unsigned long long>(txns[i].cents));
    atomicAdd(&balances[txns[i].from], static_cast<unsigned long long>(-txns[i].cents));
}

class Reconciler {
public:
    Reconciler(int accounts, int max_txns) : accounts_(accounts), max_txns_(max_txns) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&compute_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaStreamCreateWithFlags(&io_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaEventCreateWithFlags(&applied_, cudaEventDisableTiming));
        CUDA_CHECK(cudaMalloc(&d_txns_, max_txns_ * sizeof(Txn)));
        CUDA_CHECK(cudaMalloc(&d_bal_, accounts_ * sizeof(unsigned long long)));
        CUDA_CHECK(cudaMallocHost(&h_txns_, max_txns_ * sizeof(Txn)));
        CUDA_CHECK(cudaMallocHost(&h_bal_, accounts_ * sizeof(unsigned long long)));
        CUDA_CHECK(cudaMemsetAsync(d_bal_, 0, accounts_ * sizeof(unsigned long long), compute_));
    }
    ~Reconciler() {
        cudaStreamSynchronize(io_);
        cudaStreamSynchronize(compute_);
        cudaFreeHost(h_bal_);
        cudaFreeHost(h_txns_);
        cudaFree(d_bal_);
        cudaFree(d_txns_);
        cudaEventDestroy(applied_);
        cudaStreamDestroy(io_);
        cudaStreamDestroy(compute_);
    }

    Txn* txns() { return h_txns_; }

    long long net(int n) {
        CUDA_CHECK(cudaMemcpyAsync(d_txns_, h_txns_, n * sizeof(Txn), cudaMemcpyHostToDevice, compute_));
        apply_txns<<<(n + 255) / 256, 256, 0, compute_>>>(d_txns_, n, d_bal_);
        CUDA_CHECK(cudaEventRecord(applied_, compute_));
        CUDA_CHECK(cudaStreamWaitEvent(io_, applied_, 0));
        CUDA_CHECK(cudaMemcpyAsync(h_bal_, d_bal_, accounts_ * sizeof(unsigned long long), cudaMemcpyDeviceToHost, io_));

        long long total = 0;
        for (int a = 0; a < accounts_; ++a) total += static_cast<long long>(this->h_bal_[a]); // EXPECT: missing_sync
        return total;
    }

private:
    int accounts_, max_txns_;
    cudaStream_t compute_ = nullptr, io_ = nullptr;
    cudaEvent_t applied_ = nullptr;
    Txn* d_txns_ = nullptr;
    unsigned long long* d_bal_ = nullptr;
    Txn* h_txns_ = nullptr;
    unsigned long long* h_bal_ = nullptr;
};

int main() {
    Reconciler rec(1 << 16, 1 << 20);
    Txn* t = rec.txns();
    for (int i = 0; i < (1 << 20); ++i) t[i] = Txn{i % 65536, (i * 7) % 65536, 100 + i % 1000};
    std::printf("net balance %lld (should be 0)\n", rec.net(1 << 20));
    return 0;
}
