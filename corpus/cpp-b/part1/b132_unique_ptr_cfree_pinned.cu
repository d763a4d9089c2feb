// case: CSV column parser keeps its cudaHostAlloc'd output in a std::unique_ptr whose custom deleter HostFree calls std::free, so the pinned block is released with the C heap's free
// expect: mismatched_free=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#define CUDA_CHECK(call)                                                     \
    do {                                                                     \
        cudaError_t err_ = (call);                                           \
        if (err_ != cudaSuccess) {                                           \
            std::fprintf(stderr, "CUDA error %s at %s:%d\n",                 \
                         cudaGetErrorString(err_), __FILE__, __LINE__);      \
            std::exit(EXIT_FAILURE);                                         \
        }                                                                    \
    } while (0)

struct HostFree {
    void operator()(int* p) const noexcept {
        std::free(p); // EXPECT: mismatched_free
    }
};
struct DeviceFree {
    void operator()(void* p) const noexcept { cudaFree(p); }
};

using HostColumn = std::unique_ptr<int, HostFree>;
using DeviceBytes = std::unique_ptr<char, DeviceFree>;
using DeviceInts = std::unique_ptr<int, DeviceFree>;

__global__ void parse_first_column(const char* text, const int* line_starts, int lines, int* out) {
    int l = blockIdx.x * blockDim.x + threadIdx.x;
    if (l >= lines) return;
    const char* p = text + line_starts[l];
    int v = 0;
    while (*p >= '0' && *p <= '9') { v = v * 10 + (*p - '0'); ++p; }
    out[l] = v;
}

class ColumnParser {
public:
    explicit ColumnParser(int max_lines) : max_lines_(max_lines) {
        int* pinned = nullptr;
        CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&pinned), max_lines_ * sizeof(int), cudaHostAllocDefault));
        out_ = HostColumn(pinned);
        CUDA_CHECK(cudaStreamCreate(&stream_));
    }
    ~ColumnParser() {
        cudaStreamSynchronize(stream_);
        cudaStreamDestroy(stream_);
    }

    long long sum(const std::string& csv) {
        int starts_cap = max_lines_;
        int* starts = static_cast<int*>(std::malloc(starts_cap * sizeof(int)));
        int lines = 0;
        starts[lines++] = 0;
        for (size_t i = 0; i + 1 < csv.size() && lines < starts_cap; ++i)
            if (csv[i] == '\n') starts[lines++] = static_cast<int>(i + 1);

        char* d_text_raw = nullptr;
        int* d_starts_raw = nullptr;
        int* d_out_raw = nullptr;
        CUDA_CHECK(cudaMalloc(&d_text_raw, csv.size()));
        CUDA_CHECK(cudaMalloc(&d_starts_raw, lines * sizeof(int)));
        CUDA_CHECK(cudaMalloc(&d_out_raw, lines * sizeof(int)));
        DeviceBytes d_text(d_text_raw);
        DeviceInts d_starts(d_starts_raw), d_out(d_out_raw);

        CUDA_CHECK(cudaMemcpy(d_text.get(), csv.data(), csv.size(), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(d_starts.get(), starts, lines * sizeof(int), cudaMemcpyHostToDevice));
        std::free(starts);
        parse_first_column<<<(lines + 255) / 256, 256, 0, stream_>>>(d_text.get(), d_starts.get(), lines, d_out.get());
        CUDA_CHECK(cudaMemcpyAsync(out_.get(), d_out.get(), lines * sizeof(int), cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));

        long long total = 0;
        for (int l = 0; l < lines; ++l) total += out_.get()[l];
        return total;
    }

private:
    int max_lines_;
    HostColumn out_;
    cudaStream_t stream_ = nullptr;
};

int main() {
    std::string csv;
    for (int i = 0; i < 200000; ++i) csv += std::to_string(i % 1000) + ",foo,bar\n";
    ColumnParser parser(200000);
    std::printf("column sum %lld\n", parser.sum(csv));
    return 0;
}
