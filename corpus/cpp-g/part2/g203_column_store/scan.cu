// case: a GPU database range scan filters a DeviceColumn<int64_t> on a stream and then sanity-checks the column's first and last keys through the header's operator[], which dereferences the device pointer on the host.
// expect: host_deref_device_ptr=1
#include "device_column.cuh"
#include <cstdint>
#include <cstdio>
#include <memory>

__global__ void filter_between(const int64_t* keys, size_t rows, int64_t lo, int64_t hi,
                               uint32_t* match_count) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < rows && keys[i] >= lo && keys[i] < hi) atomicAdd(match_count, 1u);
}

class ScanOperator {
public:
    virtual ~ScanOperator() = default;
    virtual uint32_t execute(const gdb::DeviceColumn<int64_t>& col, cudaStream_t s) = 0;
};

class RangeScan final : public ScanOperator {
public:
    RangeScan(int64_t lo, int64_t hi) : lo_(lo), hi_(hi) {
        DB_CUDA_CHECK(cudaMalloc(&d_count_, sizeof(uint32_t)));
        DB_CUDA_CHECK(cudaMallocHost(&h_count_, sizeof(uint32_t)));
    }
    ~RangeScan() override {
        cudaFree(d_count_);
        cudaFreeHost(h_count_);
    }
    uint32_t execute(const gdb::DeviceColumn<int64_t>& col, cudaStream_t s) override {
        DB_CUDA_CHECK(cudaMemsetAsync(d_count_, 0, sizeof(uint32_t), s));
        unsigned blocks = static_cast<unsigned>((col.rows() + 511) / 512);
        filter_between<<<blocks, 512, 0, s>>>(col.data(), col.rows(), lo_, hi_, d_count_);
        DB_CUDA_CHECK(cudaMemcpyAsync(h_count_, d_count_, sizeof(uint32_t),
                                      cudaMemcpyDeviceToHost, s));
        DB_CUDA_CHECK(cudaStreamSynchronize(s));
        return *h_count_;
    }
private:
    int64_t lo_, hi_;
    uint32_t* d_count_ = nullptr;
    uint32_t* h_count_ = nullptr;
};

int main() {
    const size_t rows = size_t(1) << 22;
    cudaStream_t stream;
    DB_CUDA_CHECK(cudaStreamCreate(&stream));

    int64_t* staging = nullptr;
    DB_CUDA_CHECK(cudaMallocHost(&staging, rows * sizeof(int64_t)));
    for (size_t i = 0; i < rows; ++i) staging[i] = static_cast<int64_t>(i * 7 + 3);

    gdb::DeviceColumn<int64_t> keys(rows);
    DB_CUDA_CHECK(cudaMemcpyAsync(keys.data(), staging, keys.bytes(), cudaMemcpyHostToDevice, stream));

    std::unique_ptr<ScanOperator> op = std::make_unique<RangeScan>(1000, 500000);
    uint32_t matches = op->execute(keys, stream);

    DB_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (keys[0] > keys[rows - 1]) {
        std::fprintf(stderr, "column is not sorted\n");
        return 1;
    }
    std::printf("%u rows in range\n", matches);

    DB_CUDA_CHECK(cudaFreeHost(staging));
    DB_CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
