// Host reads of write-combined pinned memory (seed 000): `cudaHostAlloc` with
// `cudaHostAllocWriteCombined`, the C++ `cudaMallocHost(ptr, size, flags)` overload with it,
// `cuMemHostAlloc` with `CU_MEMHOSTALLOC_WRITECOMBINED`. The CPU does not cache that memory, so
// every host read goes over the bus; writing it (to upload) is what it is for. Shapes as host
// code writes them: verifying a readback, summing it, copying it out, updating a staging buffer
// in place, a helper or a struct that owns the staging buffer, a readback per batch.
// Lines that must be reported end with an annotation; ok_* functions stay silent.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>

__global__ void produce(float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 0.5f * i;
}

__global__ void consume(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * 2.0f;
}

static float* alloc_staging(size_t n, unsigned int flags) {
    float* p = nullptr;
    cudaHostAlloc((void**)&p, n * sizeof(float), flags);
    return p;
}

static void download(float* host, const float* dev, size_t n, cudaStream_t s) {
    cudaMemcpyAsync(host, dev, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
}

struct Staging {
    float* host;
    float* dev;
    size_t n;
};

static Staging make_staging(size_t n) {
    Staging st;
    st.n = n;
    cudaHostAlloc((void**)&st.host, n * sizeof(float), cudaHostAllocWriteCombined);
    cudaMalloc((void**)&st.dev, n * sizeof(float));
    return st;
}

// ---- reads of write-combined memory ----------------------------------------------------------

int fires_readback_verified_element_by_element(int n) {
    float *h, *d;
    cudaHostAlloc((void**)&h, n * sizeof(float), cudaHostAllocWriteCombined);
    cudaMalloc((void**)&d, n * sizeof(float));
    produce<<<(n + 255) / 256, 256>>>(d, n);
    cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
    int errors = 0;
    for (int i = 0; i < n; ++i) {
        if (h[i] != 0.5f * i) errors++; //~ write_combined_host_read
    }
    cudaFreeHost(h);
    cudaFree(d);
    return errors;
}

double fires_readback_summed(int n, cudaStream_t s) {
    float *h, *d;
    cudaHostAlloc((void**)&h, n * sizeof(float), cudaHostAllocWriteCombined);
    cudaMalloc((void**)&d, n * sizeof(float));
    produce<<<(n + 255) / 256, 256, 0, s>>>(d, n);
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    double sum = 0;
    for (int i = 0; i < n; ++i) sum += h[i]; //~ write_combined_host_read
    return sum;
}

// Seed 000's buffer, `cudaMallocHost` with flags (the C++ overload), checked after the round trip.
int fires_seed_round_trip_checked_on_the_host(size_t size) {
    char *hostPtr, *devicePtr;
    cudaMallocHost((void**)&hostPtr, size, cudaHostAllocWriteCombined);
    cudaMalloc((void**)&devicePtr, size);
    for (size_t i = 0; i < size; ++i) hostPtr[i] = static_cast<char>(i % 256);
    cudaMemcpy(devicePtr, hostPtr, size, cudaMemcpyHostToDevice);
    cudaMemcpy(hostPtr, devicePtr, size, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (size_t i = 0; i < size; ++i) bad += hostPtr[i] != static_cast<char>(i % 256); //~ write_combined_host_read
    cudaFree(devicePtr);
    cudaFreeHost(hostPtr);
    return bad;
}

float fires_driver_host_alloc_read_back(CUdeviceptr d, size_t n) {
    float* h;
    cuMemHostAlloc((void**)&h, n * sizeof(float), CU_MEMHOSTALLOC_WRITECOMBINED);
    cuMemcpyDtoH(h, d, n * sizeof(float));
    float last = h[n - 1]; //~ write_combined_host_read
    cuMemFreeHost(h);
    return last;
}

float fires_driver_flags_portable_and_write_combined(CUdeviceptr d, size_t n, CUstream s) {
    float* h;
    cuMemHostAlloc((void**)&h, n * sizeof(float), CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_WRITECOMBINED);
    cuMemcpyDtoHAsync(h, d, n * sizeof(float), s);
    cuStreamSynchronize(s);
    return h[0]; //~ write_combined_host_read
}

void fires_write_combined_and_mapped_printed(int n, cudaStream_t s) {
    float *h, *d;
    cudaHostAlloc((void**)&h, n * sizeof(float), cudaHostAllocWriteCombined | cudaHostAllocMapped);
    cudaMalloc((void**)&d, n * sizeof(float));
    produce<<<(n + 255) / 256, 256, 0, s>>>(d, n);
    download(h, d, n, s);
    printf("first = %f\n", h[0]); //~ write_combined_host_read
}

void fires_readback_copied_out_with_memcpy(float* out, int n, cudaStream_t s) {
    float *h, *d;
    cudaHostAlloc((void**)&h, n * sizeof(float), cudaHostAllocWriteCombined);
    cudaMalloc((void**)&d, n * sizeof(float));
    produce<<<(n + 255) / 256, 256, 0, s>>>(d, n);
    download(h, d, n, s);
    memcpy(out, h, n * sizeof(float)); //~ write_combined_host_read
}

// The standard library's algorithms read (or write) through the iterators they are given.
float fires_readback_accumulated_by_the_standard_library(int n, cudaStream_t s) {
    float *h, *d;
    cudaHostAlloc((void**)&h, n * sizeof(float), cudaHostAllocWriteCombined);
    cudaMalloc((void**)&d, n * sizeof(float));
    produce<<<(n + 255) / 256, 256, 0, s>>>(d, n);
    download(h, d, n, s);
    return std::accumulate(h, h + n, 0.0f); //~ write_combined_host_read
}

// An upload buffer updated in place: `+=` reads before it writes.
void fires_staging_buffer_updated_in_place(float* d, int n, int steps) {
    float* h;
    cudaHostAlloc((void**)&h, n * sizeof(float), cudaHostAllocWriteCombined);
    for (int i = 0; i < n; ++i) h[i] = 0.0f;
    for (int step = 0; step < steps; ++step) {
        for (int i = 0; i < n; ++i) h[i] += 1.0f; //~ write_combined_host_read
        cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
    }
}

// An upload buffer filled from its own previous element.
void fires_ramp_built_from_the_previous_element(float* d, int n, float step) {
    float* h;
    cudaHostAlloc((void**)&h, n * sizeof(float), cudaHostAllocWriteCombined);
    h[0] = 0.0f;
    for (int i = 1; i < n; ++i) h[i] = h[i - 1] + step; //~ write_combined_host_read
    cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
}

float fires_helper_allocates_with_the_flag(const float* d, size_t n, cudaStream_t s) {
    float* h = alloc_staging(n, cudaHostAllocWriteCombined);
    download(h, d, n, s);
    return h[n / 2]; //~ write_combined_host_read
}

float fires_struct_owned_staging_read_back(size_t n, cudaStream_t s) {
    Staging st = make_staging(n);
    produce<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(st.dev, (int)n);
    download(st.host, st.dev, st.n, s);
    return st.host[0]; //~ write_combined_host_read
}

double fires_readback_per_batch(const float* d, int n, int batches, cudaStream_t s) {
    float* h;
    cudaHostAlloc((void**)&h, n * sizeof(float), cudaHostAllocWriteCombined);
    double total = 0;
    for (int b = 0; b < batches; ++b) {
        cudaMemcpyAsync(h, d + (size_t)b * n, n * sizeof(float), cudaMemcpyDeviceToHost, s);
        cudaStreamSynchronize(s);
        total += h[n - 1]; //~ write_combined_host_read
    }
    return total;
}

// ---- near misses -------------------------------------------------------------------------------

void ok_write_combined_upload_only(float* d, int n, cudaStream_t s) {
    float* h;
    cudaHostAlloc((void**)&h, n * sizeof(float), cudaHostAllocWriteCombined);
    for (int i = 0; i < n; ++i) h[i] = 1.0f / (i + 1);
    cudaMemcpyAsync(d, h, n * sizeof(float), cudaMemcpyHostToDevice, s);
    cudaStreamSynchronize(s);
    cudaFreeHost(h);
}

// Seed 000's first example: the buffer is written, copied there and back, never read here.
void ok_seed_round_trip_without_a_host_read(size_t size) {
    char *hostPtr, *devicePtr;
    cudaMallocHost((void**)&hostPtr, size, cudaHostAllocWriteCombined);
    cudaMalloc((void**)&devicePtr, size);
    for (size_t i = 0; i < size; ++i) hostPtr[i] = static_cast<char>(i % 256);
    cudaMemcpy(devicePtr, hostPtr, size, cudaMemcpyHostToDevice);
    cudaMemcpy(hostPtr, devicePtr, size, cudaMemcpyDeviceToHost);
    printf("Data copy completed.\n");
    cudaFree(devicePtr);
    cudaFreeHost(hostPtr);
}

float ok_malloc_host_readback(const float* d, int n) {
    float* h;
    cudaMallocHost((void**)&h, n * sizeof(float));
    cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
    return h[0];
}

float ok_host_alloc_default_readback(const float* d, int n, cudaStream_t s) {
    float* h;
    cudaHostAlloc((void**)&h, n * sizeof(float), cudaHostAllocDefault);
    download(h, d, n, s);
    float sum = 0;
    for (int i = 0; i < n; ++i) sum += h[i];
    return sum;
}

float ok_host_alloc_portable_and_mapped_readback(const float* d, int n, cudaStream_t s) {
    float* h;
    cudaHostAlloc((void**)&h, n * sizeof(float), cudaHostAllocPortable | cudaHostAllocMapped);
    download(h, d, n, s);
    return h[n - 1];
}

float ok_driver_alloc_host_readback(CUdeviceptr d, size_t n) {
    float* h;
    cuMemAllocHost((void**)&h, n * sizeof(float));
    cuMemcpyDtoH(h, d, n * sizeof(float));
    return h[0];
}

float ok_driver_host_alloc_devicemap_readback(CUdeviceptr d, size_t n) {
    float* h;
    cuMemHostAlloc((void**)&h, n * sizeof(float), CU_MEMHOSTALLOC_DEVICEMAP);
    cuMemcpyDtoH(h, d, n * sizeof(float));
    return h[0];
}

// The usual pair: write-combined for the upload, cached pinned memory for the readback.
float ok_write_combined_in_cached_out(int n, cudaStream_t s) {
    float *up, *down, *d_in, *d_out;
    cudaHostAlloc((void**)&up, n * sizeof(float), cudaHostAllocWriteCombined);
    cudaMallocHost((void**)&down, n * sizeof(float));
    cudaMalloc((void**)&d_in, n * sizeof(float));
    cudaMalloc((void**)&d_out, n * sizeof(float));
    for (int i = 0; i < n; ++i) up[i] = (float)i;
    cudaMemcpyAsync(d_in, up, n * sizeof(float), cudaMemcpyHostToDevice, s);
    consume<<<(n + 255) / 256, 256, 0, s>>>(d_in, d_out, n);
    cudaMemcpyAsync(down, d_out, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    return down[n - 1];
}

void ok_staging_filled_with_memcpy_and_memset(float* d, const float* src, int n) {
    float* h;
    cudaHostAlloc((void**)&h, 2 * n * sizeof(float), cudaHostAllocWriteCombined);
    memcpy(h, src, n * sizeof(float));
    memset(h + n, 0, n * sizeof(float));
    cudaMemcpy(d, h, 2 * n * sizeof(float), cudaMemcpyHostToDevice);
}

// Flags the analysis cannot know here (the lint takes them as not write-combined).
float ok_flags_given_by_the_caller(const float* d, size_t n, unsigned int flags, cudaStream_t s) {
    float* h = alloc_staging(n, flags);
    download(h, d, n, s);
    return h[0];
}

// Write-combined only on the upload-only path; read back only on the other.
float ok_write_combined_only_where_nothing_is_read(const float* d, int n, bool upload_only, cudaStream_t s) {
    float* h;
    if (upload_only) {
        cudaHostAlloc((void**)&h, n * sizeof(float), cudaHostAllocWriteCombined);
    } else {
        cudaHostAlloc((void**)&h, n * sizeof(float), cudaHostAllocDefault);
    }
    for (int i = 0; i < n; ++i) h[i] = 1.0f;
    float result = 0.0f;
    if (!upload_only) {
        download(h, d, n, s);
        result = h[0];
    }
    return result;
}

// Zero-copy: the kernel reads the mapped write-combined buffer; the host only writes it.
void ok_mapped_write_combined_read_by_a_kernel(int n) {
    float *h, *h_dev, *out;
    cudaHostAlloc((void**)&h, n * sizeof(float), cudaHostAllocWriteCombined | cudaHostAllocMapped);
    cudaHostGetDevicePointer((void**)&h_dev, h, 0);
    cudaMalloc((void**)&out, n * sizeof(float));
    for (int i = 0; i < n; ++i) h[i] = (float)i;
    consume<<<(n + 255) / 256, 256>>>(h_dev, out, n);
    cudaDeviceSynchronize();
}

size_t ok_pointer_arithmetic_and_sizeof(int n) {
    float* h;
    cudaHostAlloc((void**)&h, n * sizeof(float), cudaHostAllocWriteCombined);
    float* end = h + n;
    size_t bytes = (size_t)(end - h) * sizeof(*h);
    cudaFreeHost(h);
    return bytes;
}

// The snippets above leave out uploads, copies back and frees that are not what they test.
// cuda-lint: allow-file(device_memory_leak, uninitialized_device_read, unread_kernel_output)
