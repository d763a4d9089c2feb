// copy_out_of_bounds: a copy or memset larger than the memory it writes or reads, both sizes known.
#include <cuda_runtime.h>
#include <cuda.h>
#include <stdlib.h>

#define N 1024
#define C 256
constexpr int kRows = 64;

void fires_copy_in_of_twice_the_array(const float* h) {
    float* d;
    cudaMalloc(&d, N * sizeof(float));
    cudaMemcpy(d, h, 2 * N * sizeof(float), cudaMemcpyHostToDevice); //~ copy_out_of_bounds
    cudaFree(d);
}

void fires_matrix_into_a_vector_buffer() {
    float* h = (float*)malloc(C * C * sizeof(float));
    float* d;
    cudaMalloc(&d, C * sizeof(float));
    cudaMemcpy(d, h, C * C * sizeof(float), cudaMemcpyHostToDevice); //~ copy_out_of_bounds
    cudaFree(d);
    free(h);
}

void fires_copy_out_into_a_smaller_host_buffer(const float* d) {
    float* h = (float*)malloc(kRows * sizeof(float));
    cudaMemcpy(h, d, kRows * 4 * sizeof(float), cudaMemcpyDeviceToHost); //~ copy_out_of_bounds
    free(h);
}

void fires_memset_past_the_end() {
    int* d;
    cudaMalloc(&d, N * sizeof(int));
    cudaMemset(d, 0, (N + 1) * sizeof(int)); //~ copy_out_of_bounds
    cudaFree(d);
}

void fires_driver_memset_counts_words() {
    CUdeviceptr d;
    cuMemAlloc(&d, N);
    cuMemsetD32(d, 0, N); //~ copy_out_of_bounds
    cuMemFree(d);
}

void fires_calloc_elements_times_size(const float* d) {
    float* h = (float*)calloc(N, sizeof(float));
    cudaMemcpy(h, d, N * sizeof(double), cudaMemcpyDeviceToHost); //~ copy_out_of_bounds
    free(h);
}

void ok_exact_size(const float* h) {
    float* d;
    cudaMalloc(&d, N * sizeof(float));
    cudaMemcpy(d, h, N * sizeof(float), cudaMemcpyHostToDevice);
    cudaFree(d);
}

void ok_smaller_count(const float* h) {
    float* d;
    cudaMalloc(&d, N * sizeof(float));
    cudaMemcpy(d, h, N / 2 * sizeof(float), cudaMemcpyHostToDevice);
    cudaFree(d);
}

void ok_runtime_count(const float* h, size_t n) {
    float* d;
    cudaMalloc(&d, N * sizeof(float));
    cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaFree(d);
}

void ok_offset_is_not_judged(const float* h) {
    float* d;
    cudaMalloc(&d, 2 * N * sizeof(float));
    cudaMemcpy(d + N, h, N * sizeof(float), cudaMemcpyHostToDevice);
    cudaFree(d);
}

void ok_parameter_of_unknown_size(float* d, const float* h) {
    cudaMemcpy(d, h, 1 << 30, cudaMemcpyHostToDevice);
}

void ok_driver_memset_in_words(CUdeviceptr unused) {
    CUdeviceptr d;
    cuMemAlloc(&d, N * 4);
    cuMemsetD32(d, 0, N);
    cuMemFree(d);
}

using real = double;
typedef float half_real;

void fires_alias_of_a_wider_type(const real* h) {
    float* d;
    cudaMalloc(&d, N * sizeof(float));
    cudaMemcpy(d, h, N * sizeof(real), cudaMemcpyHostToDevice); //~ copy_out_of_bounds
    cudaFree(d);
}

void ok_alias_of_the_same_type(const half_real* h) {
    float* d;
    cudaMalloc(&d, N * sizeof(float));
    cudaMemcpy(d, h, N * sizeof(half_real), cudaMemcpyHostToDevice);
    cudaFree(d);
}

#define NFFT 4096
#define NBINS (NFFT / 2 + 1)
static float g_spectrum[NFFT];
static float g_bins[NBINS];

// Sizes through macros that divide and subtract, as C computes them.
void fires_full_spectrum_into_one_sided_bins() {
    float* d;
    cudaMalloc(&d, NBINS * sizeof(float));
    cudaMemset(d, 0, NFFT * sizeof(float)); //~ copy_out_of_bounds
    cudaFree(d);
}

void ok_one_sided_bins(int unused) {
    float* d;
    cudaMalloc(&d, NBINS * sizeof(float));
    cudaMemset(d, 0, (NFFT - NFFT / 2 + 1) * sizeof(float));
    cudaMemcpy(g_bins, d, NBINS * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d);
}

// A file-scope array holds what its declaration says.
void fires_into_a_smaller_file_array() {
    float* d;
    cudaMalloc(&d, NFFT * sizeof(float));
    cudaMemset(d, 0, NFFT * sizeof(float));
    cudaMemcpy(g_bins, d, NFFT * sizeof(float), cudaMemcpyDeviceToHost); //~ copy_out_of_bounds
    cudaMemcpy(g_spectrum, d, NFFT * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d);
}

__constant__ float c_scale[C];
__device__ float* d_table_ptr;

// A symbol that is an array the file declares holds what its declaration says.
void fires_packed_pair_into_one_symbol(const float* packed) {
    cudaMemcpyToSymbol(c_scale, packed, 2 * C * sizeof(float)); //~ copy_out_of_bounds
}

void ok_each_half_into_its_symbol(const float* packed) {
    cudaMemcpyToSymbol(c_scale, packed, C * sizeof(float));
    cudaMemcpyToSymbol(c_scale, packed + C, C * sizeof(float));
}

// A pointer variable as the symbol: the copy sets the pointer, it dereferences nothing.
void ok_pointer_symbol(float* d) {
    cudaMemcpyToSymbol(d_table_ptr, &d, sizeof(float*));
}

// An allocator helper sized by its parameter: `bytes` is the argument of each call, not the
// local constant of that name another function declares (names are not read across scopes).
static void* pool_allocate(size_t bytes) {
    void* p = nullptr;
    cudaMalloc(&p, bytes);
    return p;
}

static void upload_row_scales(const float* h_scales, int rows) {
    const size_t bytes = static_cast<size_t>(rows) * sizeof(float);
    float* d_scales = static_cast<float*>(pool_allocate(bytes));
    cudaMemcpy(d_scales, h_scales, bytes, cudaMemcpyHostToDevice);
    cudaFree(d_scales);
}

void ok_helper_allocates_each_size_asked(const float* h_x, const float* h_scales) {
    const int rows = 512, cols = 1024;
    const size_t n = static_cast<size_t>(rows) * cols;
    float* d_x = static_cast<float*>(pool_allocate(n * sizeof(float)));
    cudaMemcpy(d_x, h_x, n * sizeof(float), cudaMemcpyHostToDevice);
    upload_row_scales(h_scales, rows);
    cudaFree(d_x);
}

// A count computed from a value the file does not fix (`(n + k - 1) / k` of a runtime `n`) is
// not the constant inside its last parentheses.
void ok_count_of_a_runtime_value(int argc, const float* h_src) {
    const int total = argc > 1 ? 4096 * argc : 4096;
    const int groups = (total + 4095) / (4096);
    float* d = nullptr;
    cudaMalloc(&d, 64 * sizeof(float));
    cudaMemcpy(d, h_src, groups * sizeof(float), cudaMemcpyHostToDevice);
    cudaFree(d);
}
