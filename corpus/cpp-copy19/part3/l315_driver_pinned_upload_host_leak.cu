// case: a driver-API upload helper stages chunks in a cuMemAllocHost buffer held in a local and copies them asynchronously, then returns without cuMemFreeHost
// expect: device_memory_leak=1
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda.h>

#define CHECK_CU(x)                                                       \
    do {                                                                  \
        CUresult res = (x);                                               \
        if (res != CUDA_SUCCESS) {                                        \
            const char* str;                                              \
            cuGetErrorString(res, &str);                                  \
            fprintf(stderr, "%s -> %s\n", #x, str);                       \
            exit(EXIT_FAILURE);                                           \
        }                                                                 \
    } while (0)

enum { CHUNK_FLOATS = 1 << 20, NUM_CHUNKS = 8 };

static void upload_dataset(CUdeviceptr d_data, CUstream stream) {
    const size_t chunk_bytes = CHUNK_FLOATS * sizeof(float);
    void* staging = nullptr;
    CHECK_CU(cuMemAllocHost(&staging, chunk_bytes)); // EXPECT: device_memory_leak

    float* stage = static_cast<float*>(staging);
    for (int c = 0; c < NUM_CHUNKS; ++c) {
        CHECK_CU(cuStreamSynchronize(stream));
        for (int i = 0; i < CHUNK_FLOATS; ++i) stage[i] = (float)(c * CHUNK_FLOATS + i);
        CHECK_CU(cuMemcpyHtoDAsync(d_data + (CUdeviceptr)c * chunk_bytes, staging, chunk_bytes,
                                   stream));
    }
    CHECK_CU(cuStreamSynchronize(stream));
}

int main() {
    CHECK_CU(cuInit(0));
    CUdevice dev;
    CHECK_CU(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CHECK_CU(cuCtxCreate(&ctx, 0, dev));

    CUstream stream;
    CHECK_CU(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));

    const size_t chunk_bytes = CHUNK_FLOATS * sizeof(float);
    CUdeviceptr d_data = 0;
    CHECK_CU(cuMemAlloc(&d_data, chunk_bytes * NUM_CHUNKS));
    upload_dataset(d_data, stream);

    std::vector<float> check(CHUNK_FLOATS);
    CHECK_CU(cuMemcpyDtoH(check.data(), d_data + (CUdeviceptr)(NUM_CHUNKS - 1) * chunk_bytes,
                          chunk_bytes));
    printf("last chunk starts at %.0f\n", check[0]);

    CHECK_CU(cuMemFree(d_data));
    CHECK_CU(cuStreamDestroy(stream));
    CHECK_CU(cuCtxDestroy(ctx));
    return 0;
}
