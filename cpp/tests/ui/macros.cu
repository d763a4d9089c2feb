// Function-like macros the file defines are expanded where they are used when their body
// calls a CUDA function with effects: an allocation, a copy or a wait behind a macro is seen,
// and a finding in its expansion points at the macro's use. A status-checking macro is left as
// written (the call it is given is analysed as an argument). Containers keep what is pushed
// into them. Lines that must be reported end with an annotation; ok_* functions stay silent.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                      \
    do {                                                                      \
        cudaError_t e_ = (call);                                              \
        if (e_ != cudaSuccess) {                                              \
            std::fprintf(stderr, "%s\n", cudaGetErrorString(e_));             \
            std::exit(1);                                                     \
        }                                                                     \
    } while (0)
#define DEVICE_ALLOC(ptr, bytes) CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&(ptr)), (bytes)))
#define DOWNLOAD(dst, src, n, s) cudaMemcpyAsync((dst), (src), (n), cudaMemcpyDeviceToHost, (s))
#define WAIT(s) CUDA_CHECK(cudaStreamSynchronize(s))

unsigned fires_allocation_behind_a_macro(size_t n) {
    unsigned char* slab = nullptr;
    DEVICE_ALLOC(slab, n);
    slab[0] = 1; //~ host_deref_device_ptr
    return 0;
}

float fires_copy_behind_a_macro(const float* d, float* pinned, size_t n, cudaStream_t s) {
    cudaMallocHost(&pinned, n * sizeof(float));
    DOWNLOAD(pinned, d, n * sizeof(float), s);
    return pinned[0]; //~ missing_sync
}

float ok_wait_behind_a_macro(const float* d, float* pinned, size_t n, cudaStream_t s) {
    cudaMallocHost(&pinned, n * sizeof(float));
    DOWNLOAD(pinned, d, n * sizeof(float), s);
    WAIT(s);
    return pinned[0];
}

// What a container was given comes back out of it: the slabs are device memory.
void fires_release_of_pushed_pointers(size_t n) {
    std::vector<unsigned char*> slabs;
    for (int i = 0; i < 4; ++i) {
        unsigned char* slab = nullptr;
        DEVICE_ALLOC(slab, n);
        slabs.push_back(slab);
    }
    for (unsigned char* slab : slabs) {
        cudaFreeHost(slab); //~ mismatched_free
    }
}

void ok_release_of_pushed_pointers(size_t n) {
    std::vector<unsigned char*> slabs;
    for (int i = 0; i < 4; ++i) {
        unsigned char* slab = nullptr;
        DEVICE_ALLOC(slab, n);
        slabs.push_back(slab);
    }
    for (unsigned char* slab : slabs) {
        cudaFree(slab);
    }
}

// The snippets above leave out uploads, copies back and frees that are not what they test.
// cuda-lint: allow-file(device_memory_leak, uninitialized_device_read, unread_kernel_output)
