// Host code split into the file's own functions: they run in the caller's state, their
// parameters bound to the arguments, so a wait or a copy inside a helper counts where it is
// called. Lines that must be reported end with an annotation; ok_* functions stay silent.
#include <cuda_runtime.h>

static void download(float* host, const float* dev, size_t n, cudaStream_t s) {
    cudaMemcpyAsync(host, dev, n * sizeof(float), cudaMemcpyDeviceToHost, s);
}

static void wait_for(cudaStream_t s) {
    cudaStreamSynchronize(s);
}

static float* make_pinned(size_t n) {
    float* p;
    cudaMallocHost(&p, n * sizeof(float));
    return p;
}

static float first_of(const float* p) {
    return p[0]; //~ host_deref_device_ptr
}

float fires_read_after_a_helper_starts_the_copy(size_t n) {
    cudaStream_t s;
    cudaStreamCreate(&s);
    float* h = make_pinned(n);
    float* d;
    cudaMalloc(&d, n * sizeof(float));
    download(h, d, n, s);
    return h[0]; //~ missing_sync
}

float ok_read_after_a_helper_waits(size_t n) {
    cudaStream_t s;
    cudaStreamCreate(&s);
    float* h = make_pinned(n);
    float* d;
    cudaMalloc(&d, n * sizeof(float));
    download(h, d, n, s);
    wait_for(s);
    return h[0];
}

float fires_device_pointer_handed_to_a_reader(size_t n) {
    float* d;
    cudaMalloc(&d, n * sizeof(float));
    return first_of(d);
}

float ok_host_pointer_handed_to_the_same_reader(size_t n) {
    float* h = make_pinned(n);
    h[0] = 1.0f;
    return first_of(h);
}

static int recurse(int k, float* p) {
    if (k == 0) return 0;
    return recurse(k - 1, p) + 1;
}

int ok_recursion_is_bounded(size_t n) {
    float* h = make_pinned(n);
    return recurse(10, h);
}

// A helper given a constant (`acquire(n, Where::Pinned)`) takes the branch that constant selects.
enum class Where { Pinned, Device };
static float* acquire(size_t n, Where w) {
    float* p = nullptr;
    switch (w) {
    case Where::Pinned:
        cudaMallocHost(&p, n * sizeof(float));
        break;
    case Where::Device:
        cudaMalloc(&p, n * sizeof(float));
        break;
    }
    return p;
}

float ok_helper_selects_by_a_constant(size_t n) {
    float* h = acquire(n, Where::Pinned);
    return h[0];
}

float fires_helper_selects_device_memory(size_t n) {
    float* d = acquire(n, Where::Device);
    return d[0]; //~ host_deref_device_ptr
}

// The snippets above leave out uploads, copies back and frees that are not what they test.
// cuda-lint: allow-file(device_memory_leak, uninitialized_device_read, unread_kernel_output)
