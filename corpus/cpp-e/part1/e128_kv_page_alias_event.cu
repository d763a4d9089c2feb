// case: An inference server exposes one VMM page pool through a writer mapping and a reader mapping; the prefill kernel writes through the first on one stream, and the decode stream waits on an event recorded after it before its kernel and copy read through the second, ordering the aliases as the CUDA guide requires.
// expect: none
#include <cuda.h>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cstdio>
#include <cstdlib>
#include <memory>

#define CU_CHECK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { \
    std::fprintf(stderr, "%s failed (%d)\n", #x, (int)r_); std::exit(1); } } while (0)
#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s -> %s\n", #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)

__global__ void prefill(__half* kv, size_t n, int layer)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) kv[i] = __float2half(0.001f * (float)((i + layer) % 1000));
}

__global__ void decode_attend(const __half* kv, size_t n, float* scores)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n / 64) {
        float acc = 0.f;
        for (int j = 0; j < 64; ++j) acc += __half2float(kv[i * 64 + j]);
        scores[i] = acc;
    }
}

class AliasedPool {
public:
    AliasedPool() {
        CUmemAllocationProp prop = {};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = 0;
        CU_CHECK(cuMemGetAllocationGranularity(&bytes_, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
        bytes_ *= 8;
        CU_CHECK(cuMemCreate(&handle_, bytes_, &prop, 0));
        CU_CHECK(cuMemAddressReserve(&writer_, bytes_, 0, 0, 0));
        CU_CHECK(cuMemAddressReserve(&reader_, bytes_, 0, 0, 0));
        CU_CHECK(cuMemMap(writer_, bytes_, 0, handle_, 0));
        CU_CHECK(cuMemMap(reader_, bytes_, 0, handle_, 0));
        CUmemAccessDesc acc = {};
        acc.location = prop.location;
        acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        CU_CHECK(cuMemSetAccess(writer_, bytes_, &acc, 1));
        CU_CHECK(cuMemSetAccess(reader_, bytes_, &acc, 1));
    }
    ~AliasedPool() {
        cuMemUnmap(reader_, bytes_);
        cuMemUnmap(writer_, bytes_);
        cuMemRelease(handle_);
        cuMemAddressFree(reader_, bytes_);
        cuMemAddressFree(writer_, bytes_);
    }
    __half* writer() const { return reinterpret_cast<__half*>(writer_); }
    const __half* reader() const { return reinterpret_cast<const __half*>(reader_); }
    size_t halves() const { return bytes_ / sizeof(__half); }
private:
    size_t bytes_ = 0;
    CUmemGenericAllocationHandle handle_ = 0;
    CUdeviceptr writer_ = 0, reader_ = 0;
};

int main()
{
    CUDA_CHECK(cudaFree(0));
    auto pool = std::make_unique<AliasedPool>();
    const size_t n = pool->halves();

    cudaStream_t prefill_s, decode_s;
    cudaEvent_t kv_written;
    CUDA_CHECK(cudaStreamCreateWithFlags(&prefill_s, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&decode_s, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&kv_written, cudaEventDisableTiming));

    float *d_scores, *h_scores;
    __half* h_kv_head;
    CUDA_CHECK(cudaMalloc(&d_scores, n / 64 * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_scores, n / 64 * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_kv_head, 4096 * sizeof(__half)));

    prefill<<<(unsigned)((n + 255) / 256), 256, 0, prefill_s>>>(pool->writer(), n, 3);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaEventRecord(kv_written, prefill_s));

    CUDA_CHECK(cudaStreamWaitEvent(decode_s, kv_written, 0));
    decode_attend<<<(unsigned)((n / 64 + 255) / 256), 256, 0, decode_s>>>(pool->reader(), n, d_scores);
    CUDA_CHECK(cudaMemcpyAsync(h_kv_head, pool->reader(), 4096 * sizeof(__half), cudaMemcpyDeviceToHost, decode_s));
    CUDA_CHECK(cudaMemcpyAsync(h_scores, d_scores, n / 64 * sizeof(float), cudaMemcpyDeviceToHost, decode_s));
    CUDA_CHECK(cudaStreamSynchronize(decode_s));

    std::printf("score[0] = %f, kv[1] = %f\n", h_scores[0], __half2float(h_kv_head[1]));

    CUDA_CHECK(cudaFreeHost(h_kv_head));
    CUDA_CHECK(cudaFreeHost(h_scores));
    CUDA_CHECK(cudaFree(d_scores));
    CUDA_CHECK(cudaEventDestroy(kv_written));
    CUDA_CHECK(cudaStreamDestroy(decode_s));
    CUDA_CHECK(cudaStreamDestroy(prefill_s));
    pool.reset();
    return 0;
}
