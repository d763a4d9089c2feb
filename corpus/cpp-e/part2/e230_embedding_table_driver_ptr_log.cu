// case: a recommender's embedding-table loader allocates the table with cuMemAlloc through a small template wrapper, uploads it with cuMemcpyHtoD and then logs the first weight by indexing the CUdeviceptr cast to float* on the host.
// expect: host_deref_device_ptr=1
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CU_CHECK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char* s_ = nullptr; \
    cuGetErrorString(r_, &s_); std::fprintf(stderr, "%s: %s\n", #x, s_); std::exit(1); } } while (0)

template <typename T>
class DeviceArray {
public:
    explicit DeviceArray(size_t n) : n_(n) { CU_CHECK(cuMemAlloc(&ptr_, n * sizeof(T))); }
    ~DeviceArray() { if (ptr_) cuMemFree(ptr_); }
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;

    CUdeviceptr raw() const { return ptr_; }
    size_t size() const { return n_; }
    size_t bytes() const { return n_ * sizeof(T); }

private:
    CUdeviceptr ptr_ = 0;
    size_t n_;
};

constexpr size_t kRows = 100000;
constexpr size_t kDim = 64;

__global__ void gather(const float* table, const int* ids, int n, float* out) {
    int i = blockIdx.x, d = threadIdx.x;
    if (i < n) out[i * kDim + d] = table[size_t(ids[i]) * kDim + d];
}

int main() {
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));

    std::vector<float> weights(kRows * kDim);
    for (size_t i = 0; i < weights.size(); ++i) weights[i] = float(i % 1000) * 1e-3f;

    CUdeviceptr table_raw = 0;
    CU_CHECK(cuMemAlloc(&table_raw, weights.size() * sizeof(float)));
    CU_CHECK(cuMemcpyHtoD(table_raw, weights.data(), weights.size() * sizeof(float)));
    float* table = reinterpret_cast<float*>(table_raw);
    std::printf("loaded %zu rows, w[0][0]=%f\n", kRows, table[0]); // EXPECT: host_deref_device_ptr

    const int batch = 512;
    {
        DeviceArray<int> ids(batch);
        DeviceArray<float> out(size_t(batch) * kDim);
        std::vector<int> h_ids(batch);
        for (int i = 0; i < batch; ++i) h_ids[i] = (i * 7919) % int(kRows);
        CU_CHECK(cuMemcpyHtoD(ids.raw(), h_ids.data(), ids.bytes()));
        gather<<<batch, kDim>>>(table, reinterpret_cast<const int*>(ids.raw()), batch,
                                reinterpret_cast<float*>(out.raw()));
        std::vector<float> h_out(out.size());
        CU_CHECK(cuMemcpyDtoH(h_out.data(), out.raw(), out.bytes()));
        std::printf("out[0][0]=%f\n", h_out[0]);
    }

    CU_CHECK(cuMemFree(table_raw));
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
