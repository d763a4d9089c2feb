// cuda_lint::mismatched_free in the shapes real host code takes: memory released by a function
// of another allocator than the one that made it (cudaFree of pinned memory, cudaFreeHost of
// malloc'd or device memory, free()/delete[] of CUDA memory, CUDA frees of the C/C++ heap,
// cudaFreeHost of memory that was only registered, cudaHostUnregister of memory never
// registered, a module global freed), through casts, CHECK macros, struct teardown helpers.
// Near-misses: each allocation released by its own function, stream-ordered forms, a pointer
// that may be of the right kind on some path (allocated one way or the other), variables reused.
// Lines that must be reported end with `//~ lint_name`; ok_* functions stay silent.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda.h>
#include <cuda_runtime.h>

#define CHECK(x)                                                                    \
    do {                                                                            \
        cudaError_t e = (x);                                                        \
        if (e != cudaSuccess) {                                                     \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
            exit(1);                                                                \
        }                                                                           \
    } while (0)

__device__ float d_table[256];

struct Buffers {
    float* h_buf;
    float* d_buf;
    int n;
};

static void buffers_alloc(Buffers* b, int n) {
    b->n = n;
    cudaMallocHost((void**)&b->h_buf, n * sizeof(float));
    cudaMalloc((void**)&b->d_buf, n * sizeof(float));
}

// The teardown mixes up the two members: the pinned one goes to cudaFree.
static void buffers_release_swapped(Buffers* b) {
    cudaFree(b->h_buf); //~ mismatched_free
    cudaFreeHost(b->d_buf); //~ mismatched_free
}

static void buffers_release(Buffers* b) {
    cudaFreeHost(b->h_buf);
    cudaFree(b->d_buf);
}

// ---------------------------------------------------------------------------------------------
// fires_*: every allocation the pointer may be was made by another allocator.

// Pinned memory released with cudaFree, inside the error-checking macro.
void fires_pinned_released_with_cuda_free_in_check(int n) {
    float* h_a;
    CHECK(cudaMallocHost((void**)&h_a, n * sizeof(float)));
    h_a[0] = 1.0f;
    CHECK(cudaFree(h_a)); //~ mismatched_free
}

// Pinned memory handed back to the C heap (corrupts it).
void fires_pinned_released_with_free(int n) {
    float* h;
    cudaHostAlloc((void**)&h, n * sizeof(float), cudaHostAllocPortable);
    h[0] = 1.0f;
    free(h); //~ mismatched_free
}

// A malloc'd buffer released with cudaFreeHost (the code was "upgraded" to pinned halfway).
void fires_malloc_released_with_cuda_free_host(int n) {
    float* h = (float*)malloc(n * sizeof(float));
    h[0] = 1.0f;
    cudaFreeHost(h); //~ mismatched_free
}

// Device memory released with delete[].
void fires_device_memory_deleted(int n) {
    float* d;
    cudaMalloc((void**)&d, n * sizeof(float));
    delete[] d; //~ mismatched_free
}

// Device memory released with free().
void fires_device_memory_given_to_free(int n) {
    int* d_counts;
    cudaMalloc((void**)&d_counts, n * sizeof(int));
    free(d_counts); //~ mismatched_free
}

// A new[] array released with cudaFree.
void fires_new_array_released_with_cuda_free(int n) {
    float* h = new float[n];
    h[0] = 1.0f;
    cudaFree(h); //~ mismatched_free
}

// Pinned memory released with delete[].
void fires_pinned_memory_deleted(int n) {
    float* h;
    cudaMallocHost(&h, n * sizeof(float));
    h[0] = 1.0f;
    delete[] h; //~ mismatched_free
}

// Device memory released with cudaFreeHost, the pointer cast on the way.
void fires_device_memory_given_to_cuda_free_host_through_a_cast(int n) {
    void* raw;
    cudaMalloc(&raw, n * sizeof(float));
    float* d = reinterpret_cast<float*>(raw);
    cudaFreeHost(d); //~ mismatched_free
}

// Memory only page-locked in place goes back with cudaHostUnregister and free, not cudaFreeHost.
void fires_registered_malloc_released_with_cuda_free_host(int n) {
    float* h = (float*)malloc(n * sizeof(float));
    cudaHostRegister(h, n * sizeof(float), cudaHostRegisterDefault);
    h[0] = 1.0f;
    cudaFreeHost(h); //~ mismatched_free
}

// cudaHostUnregister of memory that was pinned by cudaMallocHost, never registered.
void fires_unregister_of_memory_never_registered(int n) {
    float* h;
    cudaMallocHost(&h, n * sizeof(float));
    cudaHostUnregister(h); //~ mismatched_free
    cudaFreeHost(h);
}

// Managed memory is the device allocator's: neither free() nor cudaFreeHost releases it.
void fires_managed_memory_given_to_free(int n) {
    float* m;
    cudaMallocManaged(&m, n * sizeof(float));
    m[0] = 1.0f;
    free(m); //~ mismatched_free
}

// The stream-ordered free of pinned memory.
void fires_pinned_memory_freed_stream_ordered(int n, cudaStream_t s) {
    float* h;
    cudaMallocHost(&h, n * sizeof(float));
    cudaFreeAsync(h, s); //~ mismatched_free
    cudaStreamSynchronize(s);
}

// The driver API: pinned memory from cuMemAllocHost released with cuMemFree.
void fires_driver_pinned_released_with_mem_free(size_t bytes) {
    void* host;
    cuMemAllocHost(&host, bytes);
    cuMemFree((CUdeviceptr)host); //~ mismatched_free
}

// A __device__ array's address freed as if it were an allocation (cudarc #514).
void fires_module_global_freed(void) {
    float* p;
    cudaGetSymbolAddress((void**)&p, d_table);
    cudaFree(p); //~ mismatched_free
}

// The struct teardown helper with the members swapped (reported in the helper).
void fires_struct_teardown_swaps_members(int n) {
    Buffers b;
    buffers_alloc(&b, n);
    buffers_release_swapped(&b);
}

// Pageable on both paths (malloc or new[]), released with cudaFreeHost on both.
void fires_pageable_on_both_paths_released_with_cuda_free_host(int n, bool small) {
    float* h;
    if (small) {
        h = (float*)malloc(n * sizeof(float));
    } else {
        h = new float[n];
    }
    h[0] = 1.0f;
    cudaFreeHost(h); //~ mismatched_free
}

// ---------------------------------------------------------------------------------------------
// ok_*: each release matches what the pointer may be on some path.

// Every allocation released by its own function, all inside the macro, with casts.
void ok_each_released_by_its_own_function_in_check(int n) {
    float *h_pinned, *h_wc, *d, *m;
    float* h_heap = static_cast<float*>(malloc(n * sizeof(float)));
    float* h_new = new float[n];
    CHECK(cudaMallocHost((void**)&h_pinned, n * sizeof(float)));
    CHECK(cudaHostAlloc((void**)&h_wc, n * sizeof(float), cudaHostAllocWriteCombined));
    CHECK(cudaMalloc((void**)&d, n * sizeof(float)));
    CHECK(cudaMallocManaged((void**)&m, n * sizeof(float)));
    CHECK(cudaFreeHost(h_pinned));
    CHECK(cudaFreeHost(h_wc));
    CHECK(cudaFree(d));
    CHECK(cudaFree(m));
    free(h_heap);
    delete[] h_new;
}

// The struct teardown helper with the members right.
void ok_struct_teardown_matches_members(int n) {
    Buffers b;
    buffers_alloc(&b, n);
    buffers_release(&b);
}

// Pinned or pageable by a flag, released to match by the same flag.
void ok_flag_chooses_allocation_and_release(int n, bool use_pinned) {
    float* h;
    if (use_pinned) {
        cudaMallocHost(&h, n * sizeof(float));
    } else {
        h = (float*)malloc(n * sizeof(float));
    }
    h[0] = 1.0f;
    if (use_pinned) {
        cudaFreeHost(h);
    } else {
        free(h);
    }
}

// Pinned if the driver grants it, malloc'd as a fallback, released by what was obtained.
void ok_pinned_with_malloc_fallback_released_to_match(int n) {
    float* h;
    bool pinned = cudaMallocHost((void**)&h, n * sizeof(float)) == cudaSuccess;
    if (!pinned) {
        h = (float*)malloc(n * sizeof(float));
    }
    h[0] = 1.0f;
    if (pinned) {
        cudaFreeHost(h);
    } else {
        free(h);
    }
}

// Pinned on one path, pageable on the other, always released with cudaFreeHost: the branches
// test one flag, so they are followed together, and on the `malloc` path the release is wrong
// (cudaFreeHost returns cudaErrorInvalidValue and the memory leaks).
void fires_may_be_pinned_released_with_cuda_free_host(int n, bool use_pinned) {
    float* h;
    if (use_pinned) {
        cudaMallocHost(&h, n * sizeof(float));
    } else {
        h = (float*)malloc(n * sizeof(float));
    }
    h[0] = 1.0f;
    cudaFreeHost(h); //~ mismatched_free
}

// Device or pinned (zero-copy on integrated GPUs), always released with cudaFree: wrong on the
// pinned path, as above.
void fires_may_be_device_released_with_cuda_free(int n, bool integrated) {
    float* buf;
    if (integrated) {
        cudaHostAlloc((void**)&buf, n * sizeof(float), cudaHostAllocMapped);
    } else {
        cudaMalloc((void**)&buf, n * sizeof(float));
    }
    cudaFree(buf); //~ mismatched_free
}

// Stream-ordered allocation released by cudaFree (allowed), and cudaMalloc memory released in
// stream order (allowed).
void ok_stream_ordered_and_plain_frees_mixed(int n, cudaStream_t s) {
    float *a, *b;
    cudaMallocAsync((void**)&a, n * sizeof(float), s);
    cudaMalloc((void**)&b, n * sizeof(float));
    cudaStreamSynchronize(s);
    cudaFree(a);
    cudaFreeAsync(b, s);
    cudaStreamSynchronize(s);
}

// Registered memory unregistered, then given back to the C heap.
void ok_registered_malloc_unregistered_then_freed(int n) {
    float* h = (float*)malloc(n * sizeof(float));
    cudaHostRegister(h, n * sizeof(float), cudaHostRegisterPortable);
    h[0] = 1.0f;
    cudaHostUnregister(h);
    free(h);
}

// A vector's buffer registered and unregistered; the vector releases its own memory.
void ok_registered_vector_unregistered(int n) {
    std::vector<float> v(n);
    cudaHostRegister(v.data(), n * sizeof(float), cudaHostRegisterDefault);
    cudaHostUnregister(v.data());
}

// One variable reused: malloc'd and freed, then allocated pinned and released as pinned.
void ok_variable_reused_for_another_allocator(int n) {
    float* h = (float*)malloc(n * sizeof(float));
    h[0] = 1.0f;
    free(h);
    cudaMallocHost((void**)&h, n * sizeof(float));
    h[0] = 2.0f;
    cudaFreeHost(h);
}

// Ownership moved between variables and swapped (the ping-pong), then released.
void ok_ownership_moved_then_released(int n, int iters) {
    float *d_in, *d_out;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_out, n * sizeof(float));
    for (int i = 0; i < iters; ++i) {
        float* t = d_in;
        d_in = d_out;
        d_out = t;
    }
    float* keep = d_in;
    d_in = nullptr;
    cudaFree(keep);
    cudaFree(d_out);
}

// The driver API, each allocation with its own release.
void ok_driver_allocations_released_to_match(size_t bytes) {
    void* host;
    CUdeviceptr dev;
    cuMemAllocHost(&host, bytes);
    cuMemAlloc(&dev, bytes);
    cuMemFreeHost(host);
    cuMemFree(dev);
}

// A pointer from a parameter: its allocation is not visible here, so it is not judged.
void ok_release_of_a_parameter(float* p) {
    cudaFreeHost(p);
}

// Error paths that release what was allocated so far, each to its own allocator.
int ok_error_path_releases_to_match(int n) {
    float *h, *d;
    if (cudaMallocHost((void**)&h, n * sizeof(float)) != cudaSuccess) return -1;
    if (cudaMalloc((void**)&d, n * sizeof(float)) != cudaSuccess) {
        cudaFreeHost(h);
        return -1;
    }
    cudaFree(d);
    cudaFreeHost(h);
    return 0;
}

// A C++ container's memory unregistered though nothing registered it (the registration is in
// an arm of `#ifdef` this build leaves out).
class Ingest {
  public:
    Ingest() : batch_(1 << 20) {
#ifdef PIN_BUFFERS
        cudaHostRegister(batch_.data(), batch_.size(), cudaHostRegisterPortable);
#endif
    }
    ~Ingest() {
        cudaHostUnregister(batch_.data()); //~ mismatched_free
    }

  private:
    std::vector<unsigned char> batch_;
};

// Registered in one method, unregistered in another: the class page-locks it somewhere, so the
// destructor analysed on its own does not judge it.
class PinnedLater {
  public:
    PinnedLater() : batch_(1 << 20) {}
    void pin() { cudaHostRegister(batch_.data(), batch_.size(), cudaHostRegisterDefault); }
    ~PinnedLater() { cudaHostUnregister(batch_.data()); }

  private:
    std::vector<unsigned char> batch_;
};

// An array of pointers as a member: its elements keep what each allocation made.
class ChunkRing {
  public:
    ChunkRing() {
        for (int i = 0; i < 4; ++i) cudaMallocHost(&chunks_[i], 1 << 20);
    }
    ~ChunkRing() {
        for (int i = 0; i < 4; ++i) free(chunks_[i]); //~ mismatched_free
    }

  private:
    char* chunks_[4] = {};
};

class ChunkRingOk {
  public:
    ChunkRingOk() {
        for (int i = 0; i < 4; ++i) cudaMallocHost(&chunks_[i], 1 << 20);
    }
    ~ChunkRingOk() {
        for (int i = 0; i < 4; ++i) cudaFreeHost(chunks_[i]);
    }

  private:
    char* chunks_[4] = {};
};

// The snippets above leave out uploads, copies back and frees that are not what they test.
// cuda-lint: allow-file(device_memory_leak, uninitialized_device_read, unread_kernel_output)
