// case: an LLM server's KvBlockTable maps each KV block slot to a physical page and grants access once at start-up; swap_in() waits for the stream, unmaps the slot and maps a restored page at the same address but never calls cuMemSetAccess again, and the next attention launch uses the new mapping.
// expect: vmm_lifecycle=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#define DRV(call)                                                                 \
    do {                                                                          \
        CUresult rc_ = (call);                                                    \
        if (rc_ != CUDA_SUCCESS) {                                                \
            std::fprintf(stderr, "%s:%d %s = %d\n", __FILE__, __LINE__, #call, rc_); \
            std::abort();                                                         \
        }                                                                         \
    } while (0)

constexpr int kHeads = 32;
constexpr int kHeadDim = 128;

__global__ void paged_attention_decode(const __half* q, const __half* kv_block, int tokens, float* scores) {
    int h = blockIdx.x, t = threadIdx.x;
    if (t >= tokens) return;
    const __half* k = kv_block + (static_cast<size_t>(t) * kHeads + h) * kHeadDim;
    float acc = 0.f;
    for (int d = 0; d < kHeadDim; ++d) acc += __half2float(q[h * kHeadDim + d]) * __half2float(k[d]);
    scores[h * blockDim.x + t] = acc;
}

class KvBlockTable {
public:
    KvBlockTable(size_t block_bytes, int device) : device_(device) {
        prop_.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop_.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop_.location.id = device;
        size_t gran = 0;
        DRV(cuMemGetAllocationGranularity(&gran, &prop_, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
        block_bytes_ = (block_bytes + gran - 1) / gran * gran;
        DRV(cuMemAddressReserve(&slot_, block_bytes_, 0, 0, 0));
        DRV(cuMemCreate(&resident_, block_bytes_, &prop_, 0));
        DRV(cuMemMap(slot_, block_bytes_, 0, resident_, 0));
        CUmemAccessDesc a{};
        a.location = prop_.location;
        a.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        DRV(cuMemSetAccess(slot_, block_bytes_, &a, 1));
    }

    ~KvBlockTable() {
        DRV(cuMemUnmap(slot_, block_bytes_));
        DRV(cuMemRelease(resident_));
        DRV(cuMemAddressFree(slot_, block_bytes_));
    }

    // Bring a preempted sequence's block back: map the restored page where the old one was.
    void swap_in(CUmemGenericAllocationHandle restored, CUstream stream) {
        DRV(cuStreamSynchronize(stream));               // the old block is no longer in use
        DRV(cuMemUnmap(slot_, block_bytes_));
        DRV(cuMemMap(slot_, block_bytes_, 0, restored, 0));
        DRV(cuMemRelease(resident_));
        resident_ = restored;                           // same address, so kernels need no update
    }

    CUmemGenericAllocationHandle new_page() {
        CUmemGenericAllocationHandle h{};
        DRV(cuMemCreate(&h, block_bytes_, &prop_, 0));
        return h;
    }

    const __half* block() const { return reinterpret_cast<const __half*>(slot_); }

private:
    int device_;
    CUmemAllocationProp prop_{};
    size_t block_bytes_ = 0;
    CUdeviceptr slot_ = 0;
    CUmemGenericAllocationHandle resident_{};
};

int main() {
    cudaSetDevice(0);
    cudaFree(nullptr);
    cudaStream_t stream;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);

    const int tokens = 256;
    KvBlockTable table(static_cast<size_t>(tokens) * kHeads * kHeadDim * sizeof(__half), 0);

    __half* d_q = nullptr;
    float* d_scores = nullptr;
    cudaMalloc(&d_q, kHeads * kHeadDim * sizeof(__half));
    cudaMalloc(&d_scores, kHeads * tokens * sizeof(float));
    cudaMemsetAsync(d_q, 0, kHeads * kHeadDim * sizeof(__half), stream);

    paged_attention_decode<<<kHeads, tokens, 0, stream>>>(d_q, table.block(), tokens, d_scores);

    CUmemGenericAllocationHandle restored = table.new_page();
    table.swap_in(restored, stream);
    paged_attention_decode<<<kHeads, tokens, 0, stream>>>(d_q, table.block(), tokens, d_scores);  // EXPECT: vmm_lifecycle

    cudaStreamSynchronize(stream);
    std::vector<float> scores(kHeads * tokens);
    cudaMemcpy(scores.data(), d_scores, scores.size() * sizeof(float), cudaMemcpyDeviceToHost);
    std::printf("score[0] = %f\n", scores[0]);

    cudaFree(d_scores);
    cudaFree(d_q);
    cudaStreamDestroy(stream);
    return 0;
}
