// case: hot-swappable model weights: one cuMemCreate allocation is mapped at a writer view and a reader view; the loader kernel writes through the writer view on the load stream, records an event, and the inference stream waits on it before its kernel reads through the reader view
// expect: none
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CU_CHECK(call)                                                       \
    do {                                                                     \
        CUresult r_ = (call);                                                \
        if (r_ != CUDA_SUCCESS) {                                            \
            const char* msg_ = nullptr;                                      \
            cuGetErrorString(r_, &msg_);                                     \
            std::fprintf(stderr, "%s failed: %s\n", #call, msg_);            \
            std::exit(EXIT_FAILURE);                                         \
        }                                                                    \
    } while (0)

__global__ void load_weights(float* writer_view, size_t n, float scale) {
    size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
    if (i < n) writer_view[i] = scale * static_cast<float>(i % 1024) / 1024.0f;
}

__global__ void infer(const float* reader_view, const float* x, float* y, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float acc = 0.0f;
    for (int c = 0; c < cols; ++c) acc += reader_view[static_cast<size_t>(r) * cols + c] * x[c];
    y[r] = acc;
}

struct AliasedWeights {
    CUmemGenericAllocationHandle handle = 0;
    CUdeviceptr writer = 0;
    CUdeviceptr reader = 0;
    size_t bytes = 0;
};

static AliasedWeights map_weights(int device, size_t min_bytes) {
    AliasedWeights w;
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    size_t gran = 0;
    CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    w.bytes = (min_bytes + gran - 1) / gran * gran;
    CU_CHECK(cuMemCreate(&w.handle, w.bytes, &prop, 0));
    CU_CHECK(cuMemAddressReserve(&w.writer, w.bytes, 0, 0, 0));
    CU_CHECK(cuMemAddressReserve(&w.reader, w.bytes, 0, 0, 0));
    CU_CHECK(cuMemMap(w.writer, w.bytes, 0, w.handle, 0));
    CU_CHECK(cuMemMap(w.reader, w.bytes, 0, w.handle, 0));
    CUmemAccessDesc access = {};
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU_CHECK(cuMemSetAccess(w.writer, w.bytes, &access, 1));
    CU_CHECK(cuMemSetAccess(w.reader, w.bytes, &access, 1));
    return w;
}

static void unmap_weights(AliasedWeights& w) {
    CU_CHECK(cuMemUnmap(w.reader, w.bytes));
    CU_CHECK(cuMemUnmap(w.writer, w.bytes));
    CU_CHECK(cuMemRelease(w.handle));
    CU_CHECK(cuMemAddressFree(w.reader, w.bytes));
    CU_CHECK(cuMemAddressFree(w.writer, w.bytes));
}

int main() {
    CU_CHECK(cuInit(0));
    cudaSetDevice(0);
    cudaFree(0);
    const int rows = 4096, cols = 1024;
    AliasedWeights w = map_weights(0, static_cast<size_t>(rows) * cols * sizeof(float));

    cudaStream_t load_stream, infer_stream;
    cudaEvent_t loaded;
    cudaStreamCreateWithFlags(&load_stream, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&infer_stream, cudaStreamNonBlocking);
    cudaEventCreateWithFlags(&loaded, cudaEventDisableTiming);

    float *d_x = nullptr, *d_y = nullptr;
    cudaMalloc(&d_x, cols * sizeof(float));
    cudaMalloc(&d_y, rows * sizeof(float));
    cudaMemsetAsync(d_x, 0, cols * sizeof(float), infer_stream);

    size_t n = static_cast<size_t>(rows) * cols;
    load_weights<<<static_cast<unsigned>((n + 255) / 256), 256, 0, load_stream>>>(reinterpret_cast<float*>(w.writer), n, 0.5f);
    cudaEventRecord(loaded, load_stream);
    cudaStreamWaitEvent(infer_stream, loaded, 0);
    infer<<<(rows + 127) / 128, 128, 0, infer_stream>>>(reinterpret_cast<const float*>(w.reader), d_x, d_y, rows, cols);
    cudaStreamSynchronize(infer_stream);

    std::puts("weights swapped and inference done");
    cudaFree(d_y);
    cudaFree(d_x);
    cudaEventDestroy(loaded);
    cudaStreamDestroy(infer_stream);
    cudaStreamDestroy(load_stream);
    unmap_weights(w);
    return 0;
}
