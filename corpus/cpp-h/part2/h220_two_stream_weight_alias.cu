// case: inference runtime maps one physical weight allocation into two VA reservations (writer view, reader view); the update kernel on one stream and the consume kernel on another use the two views with no event between them, and teardown frees the reader range without unmapping it.
// expect: unfenced_vmm_alias=1, vmm_lifecycle=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>

__global__ void refresh_weights(float* w, size_t n, float decay) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) w[i] = decay * __sinf(1e-3f * float(i % 4096));
}

__global__ void gemv_row(const float* w, const float* x, float* y, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float acc = 0.f;
    for (int c = 0; c < cols; ++c) acc += w[size_t(r) * cols + c] * x[c];
    y[r] = acc;
}

struct AliasedWeights {
    CUmemGenericAllocationHandle handle = 0;
    CUdeviceptr writer = 0, reader = 0;
    size_t bytes = 0;

    void create(int device, size_t min_bytes) {
        CUmemAllocationProp prop = {};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device;
        size_t gran = 0;
        cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
        bytes = (min_bytes + gran - 1) / gran * gran;
        cuMemCreate(&handle, bytes, &prop, 0);
        cuMemAddressReserve(&writer, bytes, 0, 0, 0);
        cuMemAddressReserve(&reader, bytes, 0, 0, 0);
        cuMemMap(writer, bytes, 0, handle, 0);
        cuMemMap(reader, bytes, 0, handle, 0);
        CUmemAccessDesc acc = {};
        acc.location = prop.location;
        acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        cuMemSetAccess(writer, bytes, &acc, 1);
        cuMemSetAccess(reader, bytes, &acc, 1);
    }
    void destroy() {
        cuMemUnmap(writer, bytes);
        cuMemAddressFree(writer, bytes);
        cuMemRelease(handle);
        cuMemAddressFree(reader, bytes);
    }
};

int main() {
    cuInit(0);
    cudaSetDevice(0);
    cudaFree(nullptr);
    const int rows = 4096, cols = 4096;
    AliasedWeights wts;
    wts.create(0, size_t(rows) * cols * sizeof(float));

    cudaStream_t update, serve;
    cudaStreamCreateWithFlags(&update, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&serve, cudaStreamNonBlocking);
    float *d_x = nullptr, *d_y = nullptr;
    cudaMalloc(&d_x, cols * sizeof(float));
    cudaMalloc(&d_y, rows * sizeof(float));
    cudaMemsetAsync(d_x, 0, cols * sizeof(float), serve);

    refresh_weights<<<(rows * cols + 255) / 256, 256, 0, update>>>(
        reinterpret_cast<float*>(wts.writer), size_t(rows) * cols, 0.9f);
    gemv_row<<<rows / 128, 128, 0, serve>>>(reinterpret_cast<const float*>(wts.reader), d_x, d_y, rows, cols);

    cudaStreamSynchronize(update);
    cudaStreamSynchronize(serve);
    float y0 = 0.f;
    cudaMemcpy(&y0, d_y, sizeof(float), cudaMemcpyDeviceToHost);
    printf("y[0] = %f\n", y0);

    wts.destroy();
    cudaFree(d_x); cudaFree(d_y);
    cudaStreamDestroy(update); cudaStreamDestroy(serve);
    return 0;
}
