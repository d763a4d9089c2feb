// cuda_lint::host_deref_device_ptr in the shapes real host code takes: device memory (cudaMalloc,
// cudaMallocPitch, cudaMallocAsync, cuMemAlloc) read or written by host code: indexed, through a
// struct member, through a helper, by the C library (memset, memcpy), by an output argument of
// cudaMalloc itself (the "array of device pointers" mistake), also after a synchronize.
// Near-misses: the pointer's value used without a dereference (arithmetic, comparison, `%p`,
// kernel and library arguments, `&d[i]`, sizeof), managed and pinned memory read on the host.
// Lines that must be reported end with `//~ lint_name`; ok_* functions stay silent.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <vector>
#include <cuda.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>

#define CHECK(x)                                                                    \
    do {                                                                            \
        cudaError_t e = (x);                                                        \
        if (e != cudaSuccess) {                                                     \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
            exit(1);                                                                \
        }                                                                           \
    } while (0)

__global__ void fill(float* x, float v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = v;
}

__global__ void gather(float** rows, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = rows[i][0];
}

struct Buffers {
    float* h_buf;
    float* d_buf;
    int n;
};

static void buffers_init(Buffers* b, int n) {
    b->n = n;
    b->h_buf = (float*)malloc(n * sizeof(float));
    cudaMalloc((void**)&b->d_buf, n * sizeof(float));
}

static void zero_on_host(float* p, int n) {
    for (int i = 0; i < n; ++i) p[i] = 0.0f; //~ host_deref_device_ptr
}

static float average_on_host(const float* p, int n) {
    float s = 0.0f;
    for (int i = 0; i < n; ++i) s += p[i];
    return s / n;
}

// ---------------------------------------------------------------------------------------------
// fires_*: host code reads or writes device memory.

// The beginner's shape: the input initialized on the host through the device pointer.
void fires_initialize_device_array_on_host(int n) {
    float* d_a;
    CHECK(cudaMalloc((void**)&d_a, n * sizeof(float)));
    for (int i = 0; i < n; ++i) {
        d_a[i] = (float)i; //~ host_deref_device_ptr
    }
    fill<<<(n + 255) / 256, 256>>>(d_a, 1.0f, n);
    CHECK(cudaDeviceSynchronize());
}

// The result printed straight from device memory after the kernel; synchronizing does not help
// (seed 002's "correct synchronization" example still crashes).
void fires_print_results_after_synchronize(int n) {
    float* d_out;
    cudaMalloc(&d_out, n * sizeof(float));
    fill<<<(n + 255) / 256, 256>>>(d_out, 3.0f, n);
    cudaDeviceSynchronize();
    for (int i = 0; i < 4; ++i) {
        std::cout << d_out[i] << "\n"; //~ host_deref_device_ptr
    }
    cudaFree(d_out);
}

// Host memset and memcpy given device pointers instead of cudaMemset and cudaMemcpy.
void fires_libc_memset_and_memcpy_of_device_memory(int n) {
    float* d;
    float* h = (float*)malloc(n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
    memset(d, 0, n * sizeof(float)); //~ host_deref_device_ptr
    fill<<<(n + 255) / 256, 256>>>(d, 1.0f, n);
    cudaDeviceSynchronize();
    memcpy(h, d, n * sizeof(float)); // the same mistake again: reported once, above
    free(h);
    cudaFree(d);
}

// A struct holding both sides, and the wrong member read on the host.
float fires_struct_device_member_read(int n) {
    Buffers b;
    buffers_init(&b, n);
    fill<<<(n + 255) / 256, 256>>>(b.d_buf, 1.0f, n);
    cudaMemcpy(b.h_buf, b.d_buf, n * sizeof(float), cudaMemcpyDeviceToHost);
    return b.d_buf[0]; //~ host_deref_device_ptr
}

// A host helper given the device pointer (the write is in the helper, reported there).
void fires_device_pointer_given_to_a_host_helper(int n) {
    float* d;
    cudaMalloc(&d, n * sizeof(float));
    zero_on_host(d, n);
    cudaFree(d);
}

// The "array of device pointers" mistake: the table itself is device memory, so cudaMalloc
// writes each row's pointer through a device address on the host.
void fires_cuda_malloc_into_a_device_table(int rows, int cols) {
    float** d_rows;
    cudaMalloc((void**)&d_rows, rows * sizeof(float*));
    for (int r = 0; r < rows; ++r) {
        cudaMalloc((void**)&d_rows[r], cols * sizeof(float)); //~ host_deref_device_ptr
    }
}

// Pitched memory, a row found by byte arithmetic and indexed on the host.
float fires_pitched_row_indexed_on_host(int width, int height, int r) {
    float* d_img;
    size_t pitch;
    cudaMallocPitch((void**)&d_img, &pitch, width * sizeof(float), height);
    float* row = (float*)((char*)d_img + r * pitch);
    return row[0]; //~ host_deref_device_ptr
}

// The driver API: a CUdeviceptr cast to a host pointer type and read.
int fires_driver_pointer_cast_and_read(size_t n) {
    CUdeviceptr dptr;
    cuMemAlloc(&dptr, n * sizeof(int));
    cuMemsetD32(dptr, 7, n);
    int* p = reinterpret_cast<int*>(dptr);
    return p[0]; //~ host_deref_device_ptr
}

// Stream-ordered allocation: still device memory.
void fires_stream_ordered_allocation_written_on_host(cudaStream_t s) {
    int* d_count;
    cudaMallocAsync((void**)&d_count, sizeof(int), s);
    cudaStreamSynchronize(s);
    *d_count = 0; //~ host_deref_device_ptr
    cudaFreeAsync(d_count, s);
}

// The ping-pong of an iterative solver: after the swap, `d_in` is still device memory.
float fires_read_after_ping_pong_swap(int n, int iters) {
    float *d_in, *d_out;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_out, n * sizeof(float));
    for (int it = 0; it < iters; ++it) {
        fill<<<(n + 255) / 256, 256>>>(d_out, (float)it, n);
        float* t = d_in;
        d_in = d_out;
        d_out = t;
    }
    cudaDeviceSynchronize();
    return d_in[0]; //~ host_deref_device_ptr
}

// A host reduction written against the device pointer instead of the copied-back vector.
float fires_host_reduction_over_device_pointer(int n) {
    std::vector<float> h(n);
    float* d;
    cudaMalloc(&d, n * sizeof(float));
    fill<<<(n + 255) / 256, 256>>>(d, 1.0f, n);
    cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost);
    float sum = 0.0f;
    for (int i = 0; i < n; ++i) sum += d[i]; //~ host_deref_device_ptr
    return sum;
}

// A class that allocates its device buffer lazily and then clears it the host way.
struct Accumulator {
    float* h_sum;
    float* d_sum;
    int bins;

    void fires_lazy_device_buffer_cleared_on_host(int count) {
        bins = count;
        cudaMalloc((void**)&this->d_sum, bins * sizeof(float));
        for (int i = 0; i < bins; ++i) this->d_sum[i] = 0.0f; //~ host_deref_device_ptr
    }

    float ok_reads_its_host_mirror_after_the_copy(int count) {
        bins = count;
        this->h_sum = (float*)malloc(bins * sizeof(float));
        cudaMalloc((void**)&this->d_sum, bins * sizeof(float));
        cudaMemset(this->d_sum, 0, bins * sizeof(float));
        cudaMemcpy(this->h_sum, this->d_sum, bins * sizeof(float), cudaMemcpyDeviceToHost);
        return this->h_sum[0];
    }
};

// ---------------------------------------------------------------------------------------------
// ok_*: the device pointer's value is used, never what it points to; host-visible memory is read.

// The fix of the beginner's shape: initialized on the host side, copied over.
void ok_initialize_host_then_copy(int n) {
    float* h_a = (float*)malloc(n * sizeof(float));
    float* d_a;
    CHECK(cudaMalloc((void**)&d_a, n * sizeof(float)));
    for (int i = 0; i < n; ++i) h_a[i] = (float)i;
    CHECK(cudaMemcpy(d_a, h_a, n * sizeof(float), cudaMemcpyHostToDevice));
    fill<<<(n + 255) / 256, 256>>>(d_a, 1.0f, n);
    CHECK(cudaDeviceSynchronize());
    free(h_a);
    CHECK(cudaFree(d_a));
}

// The struct's host member is what the host reads.
float ok_struct_host_member_read(int n) {
    Buffers b;
    buffers_init(&b, n);
    fill<<<(n + 255) / 256, 256>>>(b.d_buf, 1.0f, n);
    cudaMemcpy(b.h_buf, b.d_buf, n * sizeof(float), cudaMemcpyDeviceToHost);
    return b.h_buf[0];
}

// The host helper given the host copy.
float ok_host_copy_given_to_a_host_helper(int n) {
    float* d;
    float* h = (float*)malloc(n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
    fill<<<(n + 255) / 256, 256>>>(d, 1.0f, n);
    cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
    float avg = average_on_host(h, n);
    free(h);
    cudaFree(d);
    return avg;
}

// The table of device pointers built in host memory, then copied over as a whole.
void ok_device_pointer_table_built_on_host(int rows, int cols) {
    float** h_rows = (float**)malloc(rows * sizeof(float*));
    float** d_rows;
    float* d_out;
    for (int r = 0; r < rows; ++r) {
        cudaMalloc((void**)&h_rows[r], cols * sizeof(float));
    }
    cudaMalloc((void**)&d_rows, rows * sizeof(float*));
    cudaMalloc(&d_out, rows * sizeof(float));
    cudaMemcpy(d_rows, h_rows, rows * sizeof(float*), cudaMemcpyHostToDevice);
    gather<<<(rows + 255) / 256, 256>>>(d_rows, d_out, rows);
    cudaDeviceSynchronize();
    free(h_rows);
}

// Addresses into device memory computed on the host: `&d[off]`, `d + off`, pitch arithmetic.
void ok_device_addresses_computed_on_host(int n, int nchunks, const float* h) {
    float* d;
    cudaMalloc(&d, n * sizeof(float));
    int chunk = n / nchunks;
    for (int c = 0; c < nchunks; ++c) {
        cudaMemcpy(&d[c * chunk], h + c * chunk, chunk * sizeof(float), cudaMemcpyHostToDevice);
        fill<<<(chunk + 255) / 256, 256>>>(d + c * chunk, 0.0f, chunk);
    }
    cudaDeviceSynchronize();
    cudaFree(d);
}

// The pointer printed and compared, the pointee's size taken: no dereference.
void ok_pointer_value_printed_and_compared(int n) {
    float* d = NULL;
    cudaError_t err = cudaMalloc(&d, n * sizeof(d[0]));
    if (err != cudaSuccess || d == NULL) {
        fprintf(stderr, "allocation of %zu bytes failed\n", n * sizeof(*d));
        return;
    }
    printf("device buffer at %p, %zu-byte elements\n", (void*)d, sizeof(d[0]));
    cudaFree(d);
}

// Device pointers handed to a CUDA library: not a host access.
void ok_device_pointers_given_to_cublas(cublasHandle_t handle, int n) {
    float *d_x, *d_y;
    float alpha = 2.0f;
    cudaMalloc(&d_x, n * sizeof(float));
    cudaMalloc(&d_y, n * sizeof(float));
    cublasSaxpy(handle, n, &alpha, d_x, 1, d_y, 1);
    cudaDeviceSynchronize();
    cudaFree(d_x);
    cudaFree(d_y);
}

// Managed memory is host-visible: read after the kernel is done.
float ok_managed_memory_read_after_synchronize(int n) {
    float* m;
    cudaMallocManaged(&m, n * sizeof(float));
    fill<<<(n + 255) / 256, 256>>>(m, 1.0f, n);
    cudaDeviceSynchronize();
    float sum = 0.0f;
    for (int i = 0; i < n; ++i) sum += m[i];
    cudaFree(m);
    return sum;
}

// Zero-copy: the mapped pinned buffer is read through its host pointer; the device alias of it
// only goes to the kernel.
int ok_zero_copy_read_through_the_host_pointer(void) {
    int *h_flag, *d_flag;
    cudaHostAlloc((void**)&h_flag, sizeof(int), cudaHostAllocMapped);
    cudaHostGetDevicePointer((void**)&d_flag, h_flag, 0);
    *h_flag = 0;
    fill<<<1, 1>>>((float*)d_flag, 1.0f, 1);
    cudaDeviceSynchronize();
    int v = *h_flag;
    cudaFreeHost(h_flag);
    return v;
}

// The ping-pong of pointers itself: swaps, assignments and a null reset, no dereference.
void ok_ping_pong_swap_and_reset(int n, int iters) {
    float *d_in, *d_out;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_out, n * sizeof(float));
    for (int it = 0; it < iters; ++it) {
        fill<<<(n + 255) / 256, 256>>>(d_out, (float)it, n);
        float* t = d_in;
        d_in = d_out;
        d_out = t;
    }
    cudaDeviceSynchronize();
    cudaFree(d_in);
    cudaFree(d_out);
    d_in = nullptr;
    d_out = nullptr;
}

// The driver API: the CUdeviceptr goes only to driver calls and a kernel argument.
void ok_driver_pointer_only_to_the_driver(size_t n, CUstream stream) {
    CUdeviceptr dptr;
    std::vector<int> h(n);
    cuMemAlloc(&dptr, n * sizeof(int));
    cuMemsetD32Async(dptr, 7, n, stream);
    fill<<<1, 256, 0, stream>>>(reinterpret_cast<float*>(dptr), 1.0f, (int)n);
    cuStreamSynchronize(stream);
    cuMemcpyDtoH(h.data(), dptr, n * sizeof(int));
    cuMemFree(dptr);
}

// The snippets above leave out uploads, copies back and frees that are not what they test.
// cuda-lint: allow-file(device_memory_leak, uninitialized_device_read, unread_kernel_output)
