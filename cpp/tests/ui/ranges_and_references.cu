// Range-based loops read their range's elements; a reference loop variable is the element
// (`for (float*& p : ptrs) cudaMalloc(&p, n)` fills the vector); a reference to an element or a
// member (`Shard& sh = shards[g];`) names that object; object-like macros and named constants
// are read as their values (flags, byte counts); `posix_memalign` is the C heap.
// Lines that must be reported end with an annotation; ok_* functions stay silent.
#include <cuda_runtime.h>
#include <cstdlib>
#include <vector>

__global__ void produce(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[i];
}

#define STAGING_FLAGS (cudaHostAllocWriteCombined | cudaHostAllocPortable)
#define READBACK_FLAGS cudaHostAllocPortable

double fires_range_read_before_wait(const float* d, int n, cudaStream_t s) {
    std::vector<float> host(n);
    cudaHostRegister(host.data(), n * sizeof(float), cudaHostRegisterDefault);
    cudaMemcpyAsync(host.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    double sum = 0;
    for (float x : host) sum += x; //~ missing_sync
    cudaStreamSynchronize(s);
    return sum;
}

double ok_range_read_after_wait(const float* d, int n, cudaStream_t s) {
    std::vector<float> host(n);
    cudaHostRegister(host.data(), n * sizeof(float), cudaHostRegisterDefault);
    cudaMemcpyAsync(host.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    double sum = 0;
    for (float x : host) sum += x;
    return sum;
}

// The buffers the vector's elements point to, filled through a reference loop variable, are
// reused by a copy on another stream while the producing kernel may still write them.
void fires_elements_reused_across_streams(int n) {
    cudaStream_t compute, copy;
    cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&copy, cudaStreamNonBlocking);
    std::vector<float*> act(3, nullptr);
    for (float*& p : act) cudaMalloc(&p, n * sizeof(float));
    float* h;
    cudaMallocHost(&h, n * sizeof(float));
    produce<<<1, 256, 0, compute>>>(act[0], act[1], n);
    cudaMemcpyAsync(h, act[1], n * sizeof(float), cudaMemcpyDeviceToHost, copy); //~ missing_sync
    cudaStreamSynchronize(copy);
    cudaStreamSynchronize(compute);
    for (float* p : act) cudaFree(p);
}

void ok_elements_reused_after_an_event(int n) {
    cudaStream_t compute, copy;
    cudaEvent_t done;
    cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&copy, cudaStreamNonBlocking);
    cudaEventCreate(&done);
    std::vector<float*> act(3, nullptr);
    for (float*& p : act) cudaMalloc(&p, n * sizeof(float));
    float* h;
    cudaMallocHost(&h, n * sizeof(float));
    produce<<<1, 256, 0, compute>>>(act[0], act[1], n);
    cudaEventRecord(done, compute);
    cudaStreamWaitEvent(copy, done, 0);
    cudaMemcpyAsync(h, act[1], n * sizeof(float), cudaMemcpyDeviceToHost, copy);
    cudaStreamSynchronize(copy);
}

struct Shard {
    cudaStream_t stream;
    cudaEvent_t ready;
    float* d_scores;
    float* h_scores;
};

// The event is recorded before the copy: waiting on it does not cover the copy.
float fires_reference_to_element(int ndev, int rows) {
    std::vector<Shard> shards(ndev);
    for (int g = 0; g < ndev; ++g) {
        Shard& sh = shards[g];
        cudaStreamCreateWithFlags(&sh.stream, cudaStreamNonBlocking);
        cudaEventCreate(&sh.ready);
        cudaMalloc(&sh.d_scores, rows * sizeof(float));
        cudaHostAlloc(&sh.h_scores, rows * sizeof(float), READBACK_FLAGS);
    }
    Shard& s0 = shards[0];
    cudaEventRecord(s0.ready, s0.stream);
    cudaMemcpyAsync(s0.h_scores, s0.d_scores, rows * sizeof(float), cudaMemcpyDeviceToHost, s0.stream);
    cudaEventSynchronize(s0.ready);
    return s0.h_scores[0]; //~ missing_sync
}

float ok_reference_to_element_waited(int ndev, int rows) {
    std::vector<Shard> shards(ndev);
    for (int g = 0; g < ndev; ++g) {
        Shard& sh = shards[g];
        cudaStreamCreateWithFlags(&sh.stream, cudaStreamNonBlocking);
        cudaEventCreate(&sh.ready);
        cudaMalloc(&sh.d_scores, rows * sizeof(float));
        cudaHostAlloc(&sh.h_scores, rows * sizeof(float), READBACK_FLAGS);
    }
    Shard& s0 = shards[0];
    cudaMemcpyAsync(s0.h_scores, s0.d_scores, rows * sizeof(float), cudaMemcpyDeviceToHost, s0.stream);
    cudaEventRecord(s0.ready, s0.stream);
    cudaEventSynchronize(s0.ready);
    return s0.h_scores[0];
}

// Flags through an object-like macro: write-combined memory read on the host.
unsigned fires_flags_through_a_macro(size_t n) {
    unsigned char* staging;
    cudaHostAlloc(&staging, n, STAGING_FLAGS);
    unsigned crc = 0;
    for (size_t i = 0; i < n; ++i) crc ^= staging[i]; //~ write_combined_host_read
    return crc;
}

unsigned ok_flags_through_a_macro_not_write_combined(size_t n) {
    unsigned char* staging;
    cudaHostAlloc(&staging, n, READBACK_FLAGS);
    unsigned crc = 0;
    for (size_t i = 0; i < n; ++i) crc ^= staging[i];
    return crc;
}

// `posix_memalign` memory is pageable, and released by `free`.
void fires_posix_memalign(const double* d, size_t n, cudaStream_t s) {
    void* p = nullptr;
    if (posix_memalign(&p, 4096, n * sizeof(double)) != 0) return;
    cudaMemcpyAsync(p, d, n * sizeof(double), cudaMemcpyDeviceToHost, s); //~ pageable_async_copy
    cudaStreamSynchronize(s);
    cudaFreeHost(p); //~ mismatched_free
}

void ok_posix_memalign_registered(const double* d, size_t n, cudaStream_t s) {
    void* p = nullptr;
    if (posix_memalign(&p, 4096, n * sizeof(double)) != 0) return;
    cudaHostRegister(p, n * sizeof(double), cudaHostRegisterDefault);
    cudaMemcpyAsync(p, d, n * sizeof(double), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    cudaHostUnregister(p);
    free(p);
}

struct Particle {
    float x, y, z, life;
};

// The elements of a page-locked vector rewritten through a reference loop variable while their
// upload may still read them.
void fires_refill_through_reference_while_uploading(Particle* d, int n, cudaStream_t s) {
    std::vector<Particle> spawn(n);
    cudaHostRegister(spawn.data(), n * sizeof(Particle), cudaHostRegisterDefault);
    cudaMemcpyAsync(d, spawn.data(), n * sizeof(Particle), cudaMemcpyHostToDevice, s);
    for (auto& p : spawn) {
        p.life = 2.0f; //~ missing_sync
    }
    cudaStreamSynchronize(s);
}

void ok_refill_through_reference_after_the_upload(Particle* d, int n, cudaStream_t s) {
    std::vector<Particle> spawn(n);
    cudaHostRegister(spawn.data(), n * sizeof(Particle), cudaHostRegisterDefault);
    cudaMemcpyAsync(d, spawn.data(), n * sizeof(Particle), cudaMemcpyHostToDevice, s);
    cudaStreamSynchronize(s);
    for (auto& p : spawn) {
        p = Particle{0.f, 0.f, 0.f, 2.0f};
    }
}

// The snippets above leave out uploads, copies back and frees that are not what they test.
// cuda-lint: allow-file(device_memory_leak, uninitialized_device_read, unread_kernel_output)
