// case: a speech recognizer maps its beam-score allocation at two VMM ranges (decoder view and rescoring view); the decoder kernel writes through one on stream A, an event is recorded and stream B waits on it before the rescoring kernel reads through the other, and each kernel uses a single view: ordered, correct.
// expect: none
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CU_CHECK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { \
    std::fprintf(stderr, "%s = %d\n", #x, int(r_)); std::exit(1); } } while (0)
#define RT_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)

constexpr int kBeams = 64, kStates = 4096;

__global__ void decode_step(float* scores, int t) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < kBeams * kStates) scores[i] = -0.01f * float((i * 131 + t) % 997);
}

__global__ void rescore(const float* scores, float* best) {
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= kBeams) return;
    float m = -1e30f;
    for (int s = 0; s < kStates; ++s) m = fmaxf(m, scores[b * kStates + s]);
    best[b] = m;
}

struct DualView {
    CUmemGenericAllocationHandle h = 0;
    CUdeviceptr decoder = 0, rescorer = 0;
    size_t bytes = 0;
    explicit DualView(size_t want) {
        CUmemAllocationProp p = {};
        p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        p.location.id = 0;
        size_t g = 0;
        CU_CHECK(cuMemGetAllocationGranularity(&g, &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
        bytes = (want + g - 1) / g * g;
        CU_CHECK(cuMemCreate(&h, bytes, &p, 0));
        CU_CHECK(cuMemAddressReserve(&decoder, bytes, 0, 0, 0));
        CU_CHECK(cuMemAddressReserve(&rescorer, bytes, 0, 0, 0));
        CU_CHECK(cuMemMap(decoder, bytes, 0, h, 0));
        CU_CHECK(cuMemMap(rescorer, bytes, 0, h, 0));
        CUmemAccessDesc a = {};
        a.location = p.location;
        a.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        CU_CHECK(cuMemSetAccess(decoder, bytes, &a, 1));
        CU_CHECK(cuMemSetAccess(rescorer, bytes, &a, 1));
    }
    ~DualView() {
        cuMemUnmap(rescorer, bytes);
        cuMemUnmap(decoder, bytes);
        cuMemRelease(h);
        cuMemAddressFree(rescorer, bytes);
        cuMemAddressFree(decoder, bytes);
    }
};

int main() {
    RT_CHECK(cudaSetDevice(0));
    cudaStream_t a, b;
    RT_CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
    RT_CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
    cudaEvent_t decoded, rescored;
    RT_CHECK(cudaEventCreateWithFlags(&decoded, cudaEventDisableTiming));
    RT_CHECK(cudaEventCreateWithFlags(&rescored, cudaEventDisableTiming));
    float* d_best = nullptr;
    RT_CHECK(cudaMalloc(&d_best, kBeams * sizeof(float)));
    float h_best[kBeams];
    {
        DualView v(size_t(kBeams) * kStates * sizeof(float));
        for (int t = 0; t < 50; ++t) {
            decode_step<<<kBeams * kStates / 256, 256, 0, a>>>(reinterpret_cast<float*>(v.decoder), t);
            RT_CHECK(cudaEventRecord(decoded, a));
            RT_CHECK(cudaStreamWaitEvent(b, decoded, 0));
            rescore<<<1, kBeams, 0, b>>>(reinterpret_cast<const float*>(v.rescorer), d_best);
            RT_CHECK(cudaEventRecord(rescored, b));
            RT_CHECK(cudaStreamWaitEvent(a, rescored, 0));   // next decode overwrites what rescore reads
        }
        RT_CHECK(cudaMemcpyAsync(h_best, d_best, sizeof(h_best), cudaMemcpyDeviceToHost, b));
        RT_CHECK(cudaStreamSynchronize(b));
        RT_CHECK(cudaStreamSynchronize(a));
    }
    std::printf("best[0] = %f\n", h_best[0]);
    RT_CHECK(cudaFree(d_best));
    RT_CHECK(cudaEventDestroy(rescored));
    RT_CHECK(cudaEventDestroy(decoded));
    RT_CHECK(cudaStreamDestroy(b));
    RT_CHECK(cudaStreamDestroy(a));
    return 0;
}
