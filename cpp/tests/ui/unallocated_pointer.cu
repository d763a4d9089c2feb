// unallocated_pointer: a copy, memset or kernel given a pointer no path gives memory (null).
#include <cuda_runtime.h>
#include <stdlib.h>

#define N 4096

int* d_never;
int* d_allocated;
float* d_by_helper;

__global__ void scale(float* out, const float* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[i];
}

__global__ void add_bias(float* out, const float* bias, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] += bias ? bias[i] : 0.0f;
}

void fires_global_nothing_allocates(const int* h) {
    cudaMemcpy(d_never, h, N * sizeof(int), cudaMemcpyHostToDevice); //~ unallocated_pointer
}

void fires_local_null_memset() {
    float* d = nullptr;
    cudaMemset(d, 0, N * sizeof(float)); //~ unallocated_pointer
}

void fires_kernel_dereferences_null(const float* d_in) {
    float* d_out = NULL;
    scale<<<N / 256, 256>>>(d_out, d_in, N); //~ unallocated_pointer
}

void ok_global_allocated_in_init(const int* h) {
    cudaMalloc(&d_allocated, N * sizeof(int));
    cudaMemcpy(d_allocated, h, N * sizeof(int), cudaMemcpyHostToDevice);
    cudaFree(d_allocated);
}

void ok_null_freed() {
    float* d = nullptr;
    cudaFree(d);
}

void ok_optional_argument_tested_in_the_kernel(float* d_out) {
    add_bias<<<N / 256, 256>>>(d_out, nullptr, N);
}

void ok_allocated_on_every_path(bool big) {
    float* d = nullptr;
    if (big) {
        cudaMalloc(&d, 2 * N * sizeof(float));
    } else {
        cudaMalloc(&d, N * sizeof(float));
    }
    cudaMemset(d, 0, N * sizeof(float));
    cudaFree(d);
}

static void alloc_device(float** p, size_t n) {
    cudaMalloc((void**)p, n * sizeof(float));
}

void ok_allocated_through_an_out_parameter() {
    float* d = nullptr;
    alloc_device(&d, N);
    cudaMemset(d, 0, N * sizeof(float));
    cudaFree(d);
}

static void alloc_by_reference(float*& p) {
    cudaMalloc(&p, N * sizeof(float));
}

void ok_allocated_through_a_reference() {
    float* d = nullptr;
    alloc_by_reference(d);
    cudaMemset(d, 0, N * sizeof(float));
    cudaFree(d);
}

void library_alloc(float** p);

void ok_address_given_to_an_unseen_function() {
    float* d = nullptr;
    library_alloc(&d);
    cudaMemset(d, 0, N * sizeof(float));
}

void ok_global_given_memory_by_a_helper() {
    alloc_device(&d_by_helper, N);
    cudaMemset(d_by_helper, 0, N * sizeof(float));
    cudaFree(d_by_helper);
}

void fires_pointer_reset_after_its_free(const float* h) {
    float* d;
    cudaMalloc(&d, N * sizeof(float));
    cudaMemcpy(d, h, N * sizeof(float), cudaMemcpyHostToDevice);
    cudaFree(d);
    d = nullptr;
    cudaMemcpy(d, h, N * sizeof(float), cudaMemcpyHostToDevice); //~ unallocated_pointer
}

void ok_reset_then_allocated_again(const float* h) {
    float* d = nullptr;
    cudaMalloc(&d, N * sizeof(float));
    cudaFree(d);
    d = nullptr;
    cudaMalloc(&d, N * sizeof(float));
    cudaMemcpy(d, h, N * sizeof(float), cudaMemcpyHostToDevice);
    cudaFree(d);
}

#include <cuda.h>

void fires_driver_pointer_left_zero(const float* h) {
    CUdeviceptr d_snapshot = 0;
    cuMemcpyHtoD(d_snapshot, h, N * sizeof(float)); //~ unallocated_pointer
}

void ok_driver_pointer_allocated(const float* h) {
    CUdeviceptr d = 0;
    cuMemAlloc(&d, N * sizeof(float));
    cuMemcpyHtoD(d, h, N * sizeof(float));
    cuMemFree(d);
}

void fires_static_scratch_never_allocated() {
    static float* d_partial;
    cudaMemset(d_partial, 0, N * sizeof(float)); //~ unallocated_pointer
}

void ok_static_scratch_allocated_once() {
    static float* d_lazy;
    if (!d_lazy) {
        cudaMalloc(&d_lazy, N * sizeof(float));
    }
    cudaMemset(d_lazy, 0, N * sizeof(float));
}

static float* d_workspace;
static float* d_results;

// The allocation goes to a local of the same name: the file's `d_workspace` stays null.
void init_workspace_into_a_shadow() {
    float* d_workspace = nullptr;
    cudaMalloc(&d_workspace, N * sizeof(float));
    cudaFree(d_workspace);
}

void fires_shadowed_workspace_used() {
    cudaMemset(d_workspace, 0, N * sizeof(float)); //~ unallocated_pointer
}

void init_results() {
    cudaMalloc(&d_results, N * sizeof(float));
}

void ok_results_allocated_by_another_function() {
    cudaMemset(d_results, 0, N * sizeof(float));
}
