// case: database bulk loader: the pinned staging block is refilled with std::memcpy at the top of each batch while the previous batch's cudaMemcpyAsync may still read it, and the destructor frees the cudaMallocHost block with cudaFree
// expect: missing_sync=1, mismatched_free=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CUDA_CHECK(call)                                                     \
    do {                                                                     \
        cudaError_t err_ = (call);                                           \
        if (err_ != cudaSuccess) {                                           \
            std::fprintf(stderr, "CUDA error %s at %s:%d\n",                 \
                         cudaGetErrorString(err_), __FILE__, __LINE__);      \
            std::exit(EXIT_FAILURE);                                         \
        }                                                                    \
    } while (0)

struct Row {
    int64_t key;
    int32_t qty;
    float price;
};

__global__ void accumulate_revenue(const Row* rows, int n, double* revenue) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(revenue, static_cast<double>(rows[i].qty) * rows[i].price);
}

class StagingArena {
public:
    explicit StagingArena(size_t rows_per_batch) : rows_per_batch_(rows_per_batch) {
        batch_bytes_ = rows_per_batch_ * sizeof(Row);
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&this->host_), batch_bytes_));
        CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&this->dev_), batch_bytes_));
        CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&this->d_revenue_), sizeof(double)));
        CUDA_CHECK(cudaMemsetAsync(d_revenue_, 0, sizeof(double), stream_));
    }

    ~StagingArena() {
        cudaStreamSynchronize(stream_);
        cudaFree(d_revenue_);
        cudaFree(dev_);
        cudaFree(this->host_); // EXPECT: mismatched_free
        cudaStreamDestroy(stream_);
    }

    void load(const std::vector<Row>& table) {
        size_t nbatches = table.size() / rows_per_batch_;
        for (size_t b = 0; b < nbatches; ++b) {
            std::memcpy(host_, table.data() + b * rows_per_batch_, batch_bytes_); // EXPECT: missing_sync
            CUDA_CHECK(cudaMemcpyAsync(dev_, host_, batch_bytes_, cudaMemcpyHostToDevice, stream_));
            int n = static_cast<int>(rows_per_batch_);
            accumulate_revenue<<<(n + 255) / 256, 256, 0, stream_>>>(dev_, n, d_revenue_);
        }
    }

    double revenue() {
        double result = 0.0;
        CUDA_CHECK(cudaMemcpyAsync(&result, d_revenue_, sizeof(double), cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        return result;
    }

private:
    size_t rows_per_batch_;
    size_t batch_bytes_ = 0;
    cudaStream_t stream_ = nullptr;
    Row* host_ = nullptr;
    Row* dev_ = nullptr;
    double* d_revenue_ = nullptr;
};

int main() {
    std::vector<Row> table(1 << 22);
    for (size_t i = 0; i < table.size(); ++i) table[i] = Row{static_cast<int64_t>(i), int32_t(i % 7), 1.25f};
    StagingArena arena(1 << 18);
    arena.load(table);
    std::printf("revenue %.2f\n", arena.revenue());
    return 0;
}
