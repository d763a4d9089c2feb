// `switch`: cases without statements share the next case's body (one path for the group,
// knowing the value is one of its labels), a case without `break` falls through, a `break`
// ends it, a switch over every enumerator of an enum has no path of no case, and `x == A || x
// == B` splits the paths the way a case group does. Lines that must be reported end with an
// annotation; ok_* functions stay silent.
// cuda-lint: allow-file(uninitialized_device_read, device_memory_leak)
#include <cuda_runtime.h>
#include <cstdlib>

enum Kind { PAGEABLE, PAGEABLE_ASYNC, MANAGED, MANAGED_HINTS };

float* pick();

void ok_default_shares_a_body(int which, float* h, int n) {
    float* d = 0;
    switch (which) {
    default:
    case 0:
        d = pick();
        break;
    case 1:
        d = pick();
        break;
    }
    cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
}

void ok_groups_allocate_and_release_alike(Kind kind, size_t size) {
    float *dptr = NULL, *hptr = NULL;
    switch (kind) {
    case PAGEABLE:
    case PAGEABLE_ASYNC:
        hptr = (float*)malloc(size);
        cudaMalloc(&dptr, size);
        break;
    case MANAGED:
    case MANAGED_HINTS:
        cudaMallocManaged(&dptr, size);
        hptr = dptr;
        break;
    }
    bool async = false;
    if (kind == PAGEABLE_ASYNC || kind == MANAGED_HINTS) async = true;
    if (async) cudaDeviceSynchronize();
    switch (kind) {
    case PAGEABLE:
    case PAGEABLE_ASYNC:
        free(hptr);
        cudaFree(dptr);
        break;
    case MANAGED:
    case MANAGED_HINTS:
        cudaFree(dptr);
        break;
    }
}

void ok_every_enumerator_gives_memory(Kind kind, float* h, int n) {
    float* d = NULL;
    switch (kind) {
    case PAGEABLE:
    case PAGEABLE_ASYNC:
        cudaMalloc(&d, n * sizeof(float));
        break;
    case MANAGED:
    case MANAGED_HINTS:
        cudaMallocManaged(&d, n * sizeof(float));
        break;
    }
    cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d);
}

void case_falls_into_the_wrong_release(int which, size_t size) {
    float* h = NULL;
    switch (which) {
    case 0:
        cudaMallocHost(&h, size);
    case 1:
        cudaFree(h); //~ mismatched_free
        break;
    }
}

void ok_break_ends_the_case(int which, size_t size) {
    float* h = NULL;
    switch (which) {
    case 0:
        cudaMallocHost(&h, size);
        cudaFreeHost(h);
        break;
    case 1:
        cudaMalloc(&h, size);
        cudaFree(h);
        break;
    }
}

// A kernel declared here, defined in another file: its `volatile` parameter is a flag it polls.
__global__ void spin_until_set(volatile unsigned int* latch);

void ok_host_releases_a_declared_spinner(cudaStream_t s) {
    unsigned int* latch;
    cudaMallocHost(&latch, sizeof(unsigned int));
    *latch = 0;
    spin_until_set<<<1, 1, 0, s>>>(latch);
    *latch = 1;
    cudaStreamSynchronize(s);
    cudaFreeHost(latch);
}
