// cuda_lint::pageable_async_copy in the shapes real host code takes: an asynchronous copy
// (cudaMemcpyAsync, cudaMemcpy2DAsync, cuMemcpy*Async) whose host side may be pageable memory
// (malloc, new[], std::vector, a stack array, a struct member filled with one of those, memory
// registered on one path only or unregistered again). Near-misses: pinned memory
// (cudaMallocHost, cudaHostAlloc, cuMemAllocHost), memory page-locked in place with
// cudaHostRegister, blocking copies, device-to-device copies, managed memory.
// Lines that must be reported end with `//~ lint_name`; ok_* functions stay silent.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda.h>
#include <array>
#include <cuda_runtime.h>

#define CHECK(x)                                                                    \
    do {                                                                            \
        cudaError_t e = (x);                                                        \
        if (e != cudaSuccess) {                                                     \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
            exit(1);                                                                \
        }                                                                           \
    } while (0)

__global__ void scale(float* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}

struct Params {
    float alpha;
    int n;
};

__constant__ Params c_params;

struct Staging {
    float* h_buf;
    float* d_buf;
    cudaStream_t stream;
    size_t n;
};

static void staging_init_pageable(Staging* s, size_t n) {
    s->n = n;
    s->h_buf = (float*)malloc(n * sizeof(float));
    cudaMalloc((void**)&s->d_buf, n * sizeof(float));
    cudaStreamCreate(&s->stream);
}

static void staging_init_pinned(Staging* s, size_t n) {
    s->n = n;
    cudaMallocHost((void**)&s->h_buf, n * sizeof(float));
    cudaMalloc((void**)&s->d_buf, n * sizeof(float));
    cudaStreamCreate(&s->stream);
}

// ---------------------------------------------------------------------------------------------
// fires_*: the host side is pageable on every path, or on some path.

// The most common shape (seed 001, cuda-samples cuSolverSp_LinearSolver): malloc'd arrays and
// an error check on the copy's status, which says nothing about the memory kind.
int fires_malloc_upload_with_error_check(int n) {
    float* h_a = (float*)malloc(n * sizeof(float));
    float* d_a;
    cudaStream_t stream;
    cudaStreamCreate(&stream);
    cudaError_t err = cudaMalloc((void**)&d_a, n * sizeof(float));
    if (err != cudaSuccess) return -1;
    for (int i = 0; i < n; ++i) h_a[i] = (float)i;
    err = cudaMemcpyAsync(d_a, h_a, n * sizeof(float), cudaMemcpyHostToDevice, stream); //~ pageable_async_copy
    if (err != cudaSuccess) return -1;
    scale<<<(n + 255) / 256, 256, 0, stream>>>(d_a, 2.0f, n);
    cudaStreamSynchronize(stream);
    cudaFree(d_a);
    free(h_a);
    return 0;
}

// The whole program's copies wrapped in an error-checking macro (cuda-samples' checkCudaErrors).
void fires_checked_copies_of_vectors(int n) {
    std::vector<float> in(n, 1.0f), out(n);
    float* d;
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMalloc(&d, n * sizeof(float)));
    CHECK(cudaMemcpyAsync(d, in.data(), n * sizeof(float), cudaMemcpyHostToDevice, s)); //~ pageable_async_copy
    scale<<<(n + 255) / 256, 256, 0, s>>>(d, 2.0f, n);
    CHECK(cudaMemcpyAsync(out.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost, s)); //~ pageable_async_copy
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaFree(d));
}

// The per-chunk pipeline of the "overlap copies and kernels" tutorials, with the host array
// from `new[]`: nothing overlaps, every chunk's copy is staged.
void fires_chunked_pipeline_from_new_array(int n, int nstreams) {
    float* h = new float[n];
    float* d;
    cudaMalloc(&d, n * sizeof(float));
    cudaStream_t streams[8];
    for (int i = 0; i < nstreams; ++i) cudaStreamCreate(&streams[i]);
    int chunk = n / nstreams;
    for (int i = 0; i < nstreams; ++i) {
        int off = i * chunk;
        cudaMemcpyAsync(d + off, h + off, chunk * sizeof(float), cudaMemcpyHostToDevice, streams[i]); //~ pageable_async_copy
        scale<<<(chunk + 255) / 256, 256, 0, streams[i]>>>(d + off, 2.0f, chunk);
        cudaMemcpyAsync(h + off, d + off, chunk * sizeof(float), cudaMemcpyDeviceToHost, streams[i]); //~ pageable_async_copy
    }
    cudaDeviceSynchronize();
    cudaFree(d);
    delete[] h;
}

// A struct holding its buffers, filled by an init helper with malloc.
void fires_struct_member_from_malloc(size_t n) {
    Staging st;
    staging_init_pageable(&st, n);
    for (size_t i = 0; i < n; ++i) st.h_buf[i] = 0.0f;
    cudaMemcpyAsync(st.d_buf, st.h_buf, st.n * sizeof(float), cudaMemcpyHostToDevice, st.stream); //~ pageable_async_copy
    cudaStreamSynchronize(st.stream);
}

// A small parameter block on the stack (16 floats, `kTaps` named): under 64 KiB, not reported.
constexpr int kTaps = 16;
void ok_small_stack_array_upload(cudaStream_t s) {
    float taps[kTaps];
    for (int i = 0; i < kTaps; ++i) taps[i] = 1.0f / (i + 1);
    float* d_taps;
    cudaMalloc(&d_taps, sizeof(taps));
    cudaMemcpyAsync(d_taps, taps, sizeof(taps), cudaMemcpyHostToDevice, s);
    cudaMemcpyAsync(d_taps, taps, kTaps * sizeof(float), cudaMemcpyHostToDevice, s);
    cudaStreamSynchronize(s);
}

// A large table on the stack (128 KiB), uploaded asynchronously before each launch.
constexpr int kTable = 1 << 15;
void fires_stack_array_upload(cudaStream_t s) {
    float coeffs[kTable];
    for (int i = 0; i < kTable; ++i) coeffs[i] = 1.0f / (i + 1);
    float* d_coeffs;
    cudaMalloc(&d_coeffs, sizeof(coeffs));
    cudaMemcpyAsync(d_coeffs, coeffs, sizeof(coeffs), cudaMemcpyHostToDevice, s); //~ pageable_async_copy
    scale<<<1, 16, 0, s>>>(d_coeffs, 2.0f, 16);
    cudaStreamSynchronize(s);
    cudaFree(d_coeffs);
}

// C++ code casts malloc's result with static_cast; the memory is the same.
void fires_static_cast_of_malloc_download(int n, cudaStream_t s) {
    float* h = static_cast<float*>(malloc(n * sizeof(float)));
    float* d;
    cudaMalloc(&d, n * sizeof(float));
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s); //~ pageable_async_copy
    cudaStreamSynchronize(s);
    cudaFree(d);
    free(h);
}

// cudaMemcpyDefault: the pointers' kinds decide, and the host side is malloc'd.
void fires_memcpy_default_from_malloc(int n, cudaStream_t s) {
    float* h = (float*)malloc(n * sizeof(float));
    float* d;
    cudaMalloc(&d, n * sizeof(float));
    cudaMemcpyAsync(d, h, n * sizeof(float), cudaMemcpyDefault, s); //~ pageable_async_copy
    cudaStreamSynchronize(s);
    cudaFree(d);
    free(h);
}

// An image uploaded row by row with pitch: the 2D copy is asynchronous as well.
void fires_pitched_2d_upload_from_malloc(int width, int height, cudaStream_t s) {
    unsigned char* h_img = (unsigned char*)malloc(width * height);
    unsigned char* d_img;
    size_t pitch;
    cudaMallocPitch((void**)&d_img, &pitch, width, height);
    cudaMemcpy2DAsync(d_img, pitch, h_img, width, width, height, cudaMemcpyHostToDevice, s); //~ pageable_async_copy
    cudaStreamSynchronize(s);
    cudaFree(d_img);
    free(h_img);
}

// The driver API: a download into a std::vector (cuda-samples memMapIPCDrv).
void fires_driver_download_into_vector(size_t n, CUstream stream) {
    std::vector<char> verification(n);
    CUdeviceptr dptr;
    cuMemAlloc(&dptr, n);
    cuMemcpyDtoHAsync(verification.data(), dptr, n, stream); //~ pageable_async_copy
    cuStreamSynchronize(stream);
    cuMemFree(dptr);
}

// The driver API: an upload from calloc'd memory on the null stream.
void fires_driver_upload_from_calloc(size_t n) {
    int* h = (int*)calloc(n, sizeof(int));
    CUdeviceptr dptr;
    cuMemAlloc(&dptr, n * sizeof(int));
    cuMemcpyHtoDAsync(dptr, h, n * sizeof(int), 0); //~ pageable_async_copy
    cuCtxSynchronize();
    cuMemFree(dptr);
    free(h);
}

// Page-locked only when the caller asked for it: on the other path the copy is staged.
void fires_registered_on_one_path_only(int n, bool pin, cudaStream_t s) {
    float* h = (float*)malloc(n * sizeof(float));
    float* d;
    cudaMalloc(&d, n * sizeof(float));
    if (pin) {
        cudaHostRegister(h, n * sizeof(float), cudaHostRegisterDefault);
    }
    cudaMemcpyAsync(d, h, n * sizeof(float), cudaMemcpyHostToDevice, s); //~ pageable_async_copy
    cudaStreamSynchronize(s);
    if (pin) {
        cudaHostUnregister(h);
    }
    cudaFree(d);
    free(h);
}

// A library function that takes the host data as a std::vector: its buffer is pageable
// whoever the caller is.
void fires_vector_parameter_upload(const std::vector<float>& host, float* d, cudaStream_t s) {
    cudaMemcpyAsync(d, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice, s); //~ pageable_async_copy
}

// Registered for the first pass, unregistered, then copied again: pageable once more.
void fires_copy_after_unregister(int n, cudaStream_t s) {
    float* h = (float*)malloc(n * sizeof(float));
    float* d;
    cudaMalloc(&d, n * sizeof(float));
    cudaHostRegister(h, n * sizeof(float), cudaHostRegisterPortable);
    cudaMemcpyAsync(d, h, n * sizeof(float), cudaMemcpyHostToDevice, s);
    cudaStreamSynchronize(s);
    cudaHostUnregister(h);
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s); //~ pageable_async_copy
    cudaStreamSynchronize(s);
    cudaFree(d);
    free(h);
}

// Double buffering with two malloc'd halves: the ping-pong does not make them pinned.
void fires_double_buffered_malloc_halves(int n, int batches) {
    float* h[2];
    float* d[2];
    cudaStream_t s[2];
    for (int i = 0; i < 2; ++i) {
        h[i] = (float*)malloc(n * sizeof(float));
        cudaMalloc(&d[i], n * sizeof(float));
        cudaStreamCreate(&s[i]);
    }
    for (int b = 0; b < batches; ++b) {
        int cur = b % 2;
        cudaStreamSynchronize(s[cur]);
        cudaMemcpyAsync(d[cur], h[cur], n * sizeof(float), cudaMemcpyHostToDevice, s[cur]); //~ pageable_async_copy
        scale<<<(n + 255) / 256, 256, 0, s[cur]>>>(d[cur], 2.0f, n);
    }
    cudaDeviceSynchronize();
}

// A method that stages its argument in a lazily allocated member buffer.
struct Uploader {
    float* h_buf;
    float* d_buf;
    cudaStream_t stream;
    size_t n;

    void fires_stage_through_new_member(const float* src) {
        this->h_buf = new float[n];
        memcpy(this->h_buf, src, n * sizeof(float));
        cudaMemcpyAsync(this->d_buf, this->h_buf, n * sizeof(float), cudaMemcpyHostToDevice, this->stream); //~ pageable_async_copy
        cudaStreamSynchronize(this->stream);
    }
};

// Kernel parameters put in constant memory from a struct on the stack: `sizeof(p)` is a few
// bytes, a latency-bound copy pinned memory would not speed up.
void ok_symbol_upload_from_small_stack_struct(float alpha, int n, cudaStream_t s) {
    Params p;
    p.alpha = alpha;
    p.n = n;
    cudaMemcpyToSymbolAsync(c_params, &p, sizeof(p), 0, cudaMemcpyHostToDevice, s);
    cudaStreamSynchronize(s);
}

// ---------------------------------------------------------------------------------------------
// ok_*: the host side is page-locked, or the copy is not an asynchronous host<->device one.

// The fix of the most common shape: cudaMallocHost, with the error check unchanged.
int ok_pinned_upload_with_error_check(int n) {
    float* h_a;
    float* d_a;
    cudaStream_t stream;
    cudaStreamCreate(&stream);
    cudaError_t err = cudaMallocHost((void**)&h_a, n * sizeof(float));
    if (err != cudaSuccess) return -1;
    err = cudaMalloc((void**)&d_a, n * sizeof(float));
    if (err != cudaSuccess) return -1;
    for (int i = 0; i < n; ++i) h_a[i] = (float)i;
    err = cudaMemcpyAsync(d_a, h_a, n * sizeof(float), cudaMemcpyHostToDevice, stream);
    if (err != cudaSuccess) return -1;
    cudaStreamSynchronize(stream);
    cudaFree(d_a);
    cudaFreeHost(h_a);
    return 0;
}

// Every call wrapped in the macro, the host buffers allocated inside it too.
void ok_checked_copies_of_pinned_buffers(int n) {
    float *h_in, *h_out, *d;
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaMallocHost(&h_in, n * sizeof(float)));
    CHECK(cudaHostAlloc((void**)&h_out, n * sizeof(float), cudaHostAllocPortable));
    CHECK(cudaMalloc(&d, n * sizeof(float)));
    CHECK(cudaMemcpyAsync(d, h_in, n * sizeof(float), cudaMemcpyHostToDevice, s));
    CHECK(cudaMemcpyAsync(h_out, d, n * sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaFreeHost(h_in));
    CHECK(cudaFreeHost(h_out));
    CHECK(cudaFree(d));
}

// The per-chunk pipeline done right: one pinned allocation, chunks at offsets.
void ok_chunked_pipeline_from_pinned(int n, int nstreams) {
    float* h;
    float* d;
    cudaHostAlloc((void**)&h, n * sizeof(float), cudaHostAllocDefault);
    cudaMalloc(&d, n * sizeof(float));
    cudaStream_t streams[8];
    for (int i = 0; i < nstreams; ++i) cudaStreamCreate(&streams[i]);
    int chunk = n / nstreams;
    for (int i = 0; i < nstreams; ++i) {
        int off = i * chunk;
        cudaMemcpyAsync(d + off, h + off, chunk * sizeof(float), cudaMemcpyHostToDevice, streams[i]);
        scale<<<(chunk + 255) / 256, 256, 0, streams[i]>>>(d + off, 2.0f, chunk);
        cudaMemcpyAsync(&h[off], &d[off], chunk * sizeof(float), cudaMemcpyDeviceToHost, streams[i]);
    }
    for (int i = 0; i < nstreams; ++i) cudaStreamSynchronize(streams[i]);
    cudaFree(d);
    cudaFreeHost(h);
}

// The same struct, filled by the pinned init helper.
void ok_struct_member_from_cuda_malloc_host(size_t n) {
    Staging st;
    staging_init_pinned(&st, n);
    for (size_t i = 0; i < n; ++i) st.h_buf[i] = 0.0f;
    cudaMemcpyAsync(st.d_buf, st.h_buf, st.n * sizeof(float), cudaMemcpyHostToDevice, st.stream);
    cudaStreamSynchronize(st.stream);
}

// A vector page-locked in place for the duration of the transfers.
void ok_vector_registered_before_the_copy(int n, cudaStream_t s) {
    std::vector<float> v(n, 1.0f);
    float* d;
    cudaMalloc(&d, n * sizeof(float));
    cudaHostRegister(v.data(), n * sizeof(float), cudaHostRegisterDefault);
    cudaMemcpyAsync(d, v.data(), n * sizeof(float), cudaMemcpyHostToDevice, s);
    cudaMemcpyAsync(v.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    cudaHostUnregister(v.data());
    cudaFree(d);
}

// The pageable buffers are fine with the blocking copies (cuda-samples vectorAdd).
void ok_blocking_copies_of_malloc_and_vector(int n) {
    float* h_a = (float*)malloc(n * sizeof(float));
    std::vector<float> h_c(n);
    float* d;
    cudaMalloc(&d, n * sizeof(float));
    cudaMemcpy(d, h_a, n * sizeof(float), cudaMemcpyHostToDevice);
    scale<<<(n + 255) / 256, 256>>>(d, 2.0f, n);
    cudaMemcpy(h_c.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d);
    free(h_a);
}

// Device-to-device: no host side at all, whether the kind is spelled out or left to the pointers.
void ok_device_to_device_async(int n, cudaStream_t s) {
    float *d_src, *d_dst;
    cudaMalloc(&d_src, n * sizeof(float));
    cudaMalloc(&d_dst, n * sizeof(float));
    cudaMemcpyAsync(d_dst, d_src, n * sizeof(float), cudaMemcpyDeviceToDevice, s);
    cudaMemcpyAsync(d_src, d_dst, n * sizeof(float), cudaMemcpyDefault, s);
    cudaStreamSynchronize(s);
    cudaFree(d_src);
    cudaFree(d_dst);
}

// cudaMemcpyDefault between pinned host memory and the device.
void ok_memcpy_default_with_pinned(int n, cudaStream_t s) {
    float *h, *d;
    cudaMallocHost((void**)&h, n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
    cudaMemcpyAsync(d, h, n * sizeof(float), cudaMemcpyDefault, s);
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDefault, s);
    cudaStreamSynchronize(s);
    cudaFreeHost(h);
    cudaFree(d);
}

// The pitched image from pinned memory, the pointer cast from `void*`.
void ok_pitched_2d_upload_from_pinned(int width, int height, cudaStream_t s) {
    void* raw;
    cudaMallocHost(&raw, width * height);
    unsigned char* h_img = reinterpret_cast<unsigned char*>(raw);
    unsigned char* d_img;
    size_t pitch;
    cudaMallocPitch((void**)&d_img, &pitch, width, height);
    cudaMemcpy2DAsync(d_img, pitch, h_img, width, width, height, cudaMemcpyHostToDevice, s);
    cudaStreamSynchronize(s);
    cudaFree(d_img);
    cudaFreeHost(raw);
}

// The driver API with pinned memory from cuMemAllocHost.
void ok_driver_download_into_pinned(size_t n, CUstream stream) {
    void* h;
    CUdeviceptr dptr;
    cuMemAllocHost(&h, n);
    cuMemAlloc(&dptr, n);
    cuMemcpyDtoHAsync(h, dptr, n, stream);
    cuStreamSynchronize(stream);
    cuMemFree(dptr);
    cuMemFreeHost(h);
}

// malloc'd, then page-locked with the driver before the copies.
void ok_driver_registered_malloc(size_t n, CUstream stream) {
    void* h = malloc(n);
    CUdeviceptr dptr;
    cuMemAlloc(&dptr, n);
    cuMemHostRegister(h, n, 0);
    cuMemcpyHtoDAsync(dptr, h, n, stream);
    cuStreamSynchronize(stream);
    cuMemHostUnregister(h);
    cuMemFree(dptr);
    free(h);
}

// Double buffering with two pinned halves.
void ok_double_buffered_pinned_halves(int n, int batches) {
    float* h[2];
    float* d[2];
    cudaStream_t s[2];
    for (int i = 0; i < 2; ++i) {
        cudaMallocHost(&h[i], n * sizeof(float));
        cudaMalloc(&d[i], n * sizeof(float));
        cudaStreamCreate(&s[i]);
    }
    for (int b = 0; b < batches; ++b) {
        int cur = b % 2;
        cudaStreamSynchronize(s[cur]);
        cudaMemcpyAsync(d[cur], h[cur], n * sizeof(float), cudaMemcpyHostToDevice, s[cur]);
        scale<<<(n + 255) / 256, 256, 0, s[cur]>>>(d[cur], 2.0f, n);
    }
    cudaDeviceSynchronize();
}

// Managed memory is not pageable host memory: a prefetch-like explicit copy out of it.
void ok_copy_out_of_managed_memory(int n, cudaStream_t s) {
    float *m, *d;
    cudaMallocManaged(&m, n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
    cudaMemcpyAsync(d, m, n * sizeof(float), cudaMemcpyDefault, s);
    cudaStreamSynchronize(s);
    cudaFree(d);
    cudaFree(m);
}

// A pageable buffer that is only memset on the host and memset on the device asynchronously.
void ok_async_memset_is_not_a_copy(int n, cudaStream_t s) {
    float* h = (float*)malloc(n * sizeof(float));
    float* d;
    cudaMalloc(&d, n * sizeof(float));
    memset(h, 0, n * sizeof(float));
    cudaMemsetAsync(d, 0, n * sizeof(float), s);
    cudaStreamSynchronize(s);
    cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d);
    free(h);
}

// One local object read back (`T out;`): a scalar-sized copy, whatever `T` is here.
template <typename T> T ok_read_one_value(const T* d, size_t i, cudaStream_t s) {
    T out;
    cudaMemcpyAsync(&out, d + i, sizeof(T), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    return out;
}

// A local array of unknown length is not one object.
void fires_read_into_local_array(const float* d, size_t n, cudaStream_t s) {
    float out[4096];
    cudaMemcpyAsync(out, d, n * sizeof(float), cudaMemcpyDeviceToHost, s); //~ pageable_async_copy
    cudaStreamSynchronize(s);
}

// A vector whose allocator page-locks (its `allocate` calls `cudaMallocHost`) is pinned memory.
template <typename T> struct PinnedAllocator {
    using value_type = T;
    T* allocate(size_t n) {
        void* p = nullptr;
        cudaMallocHost(&p, n * sizeof(T));
        return static_cast<T*>(p);
    }
    void deallocate(T* p, size_t) { cudaFreeHost(p); }
};
template <typename T> using pinned_vector = std::vector<T, PinnedAllocator<T>>;

void ok_upload_from_a_vector_with_a_pinned_allocator(float* d, size_t n, cudaStream_t s) {
    pinned_vector<float> h(n);
    cudaMemcpyAsync(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice, s);
    cudaStreamSynchronize(s);
}

// A byte count a macro writes (`(count) * sizeof(*(src))`) of a small stack array.
#define UPLOAD(dst, src, count, s) cudaMemcpyAsync((dst), (src), (count) * sizeof(*(src)), cudaMemcpyHostToDevice, (s))
void ok_small_array_through_a_macro(float* d, cudaStream_t s) {
    float taps[16];
    for (int i = 0; i < 16; ++i) taps[i] = 0.5f;
    UPLOAD(d, taps, 16, s);
    cudaStreamSynchronize(s);
}

// `table.size()` of a `std::array` is its length, fixed by its type.
static std::array<float, 65536> big_table;

void fires_std_array_size_over_the_threshold(float* d, cudaStream_t s) {
    cudaMemcpyAsync(d, big_table.data(), big_table.size() * sizeof(float), cudaMemcpyHostToDevice, s); //~ pageable_async_copy
    cudaStreamSynchronize(s);
}

void ok_std_array_size_under_the_threshold(float* d, cudaStream_t s) {
    std::array<float, 1024> lut;
    for (int b = 0; b < 1024; ++b) lut[b] = 1.0f / (1.0f + b);
    cudaMemcpyAsync(d, lut.data(), lut.size() * sizeof(float), cudaMemcpyHostToDevice, s);
    cudaStreamSynchronize(s);
}

// The snippets above leave out uploads, copies back and frees that are not what they test.
// cuda-lint: allow-file(device_memory_leak, uninitialized_device_read, unread_kernel_output)

#include <string>

// A `std::string`'s characters are in pageable heap memory.
void string_uploaded_async(char* d, const std::string& name, cudaStream_t s) {
    std::string reads = name + name;
    cudaMemcpyAsync(d, reads.data(), reads.size(), cudaMemcpyHostToDevice, s); //~ pageable_async_copy
    cudaMemcpyAsync(d, reads.c_str(), reads.size(), cudaMemcpyHostToDevice, s); //~ pageable_async_copy
    cudaStreamSynchronize(s);
}

// `v.size()` of a vector declared with a size the file never changes: a known byte count.
void ok_small_fixed_vector_read_back(const unsigned* d, cudaStream_t s) {
    std::vector<unsigned> host(1024);
    cudaMemcpyAsync(host.data(), d, host.size() * sizeof(unsigned), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
}

void large_fixed_vector_read_back(const unsigned* d, cudaStream_t s) {
    std::vector<unsigned> host(1 << 20);
    cudaMemcpyAsync(host.data(), d, host.size() * sizeof(unsigned), cudaMemcpyDeviceToHost, s); //~ pageable_async_copy
    cudaStreamSynchronize(s);
}
