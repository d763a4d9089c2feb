// case: an atmospheric-chemistry step copies column ozone diagnostics into pinned memory and reads them; the wait before the read sits in an #if arm whose macro the file itself defines, so the default build synchronizes
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

// ---- build configuration -------------------------------------------------------
// Blocking diagnostics are the safe default; the asynchronous variant (diagnostics
// reported one step late from a second buffer) is still being written.
#define CHEM_BLOCKING_DIAGNOSTICS 1
// ---------------------------------------------------------------------------------

#define CUDA_CHECK(x)                                                                     \
    do {                                                                                  \
        cudaError_t e = (x);                                                              \
        if (e != cudaSuccess) {                                                           \
            std::fprintf(stderr, "chem: %s: %s\n", #x, cudaGetErrorString(e));            \
            std::abort();                                                                 \
        }                                                                                 \
    } while (0)

// Chapman-like O3 update, one thread per grid column, nlev levels.
__global__ void ozone_step(float* o3, const float* jo2, int ncol, int nlev, float dt) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= ncol) return;
    for (int k = 0; k < nlev; ++k) {
        float x = o3[(size_t)k * ncol + c];
        o3[(size_t)k * ncol + c] = x + dt * (jo2[k] * 1e-3f - 1e-4f * x);
    }
}

__global__ void column_total(const float* o3, float* column, int ncol, int nlev) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= ncol) return;
    float s = 0.f;
    for (int k = 0; k < nlev; ++k) s += o3[(size_t)k * ncol + c];
    column[c] = s;
}

struct ChemState {
    int ncol, nlev;
    float *o3, *jo2, *d_column;
    float* h_column;     // pinned
    cudaStream_t stream;
};

static void chem_init(ChemState& st, int ncol, int nlev) {
    st.ncol = ncol;
    st.nlev = nlev;
    CUDA_CHECK(cudaStreamCreateWithFlags(&st.stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMalloc(&st.o3, (size_t)ncol * nlev * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&st.jo2, nlev * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&st.d_column, ncol * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&st.h_column, ncol * sizeof(float)));
    CUDA_CHECK(cudaMemsetAsync(st.o3, 0, (size_t)ncol * nlev * sizeof(float), st.stream));
    CUDA_CHECK(cudaMemsetAsync(st.jo2, 0, nlev * sizeof(float), st.stream));
}

static void chem_step(ChemState& st, int step) {
    const int threads = 128, blocks = (st.ncol + threads - 1) / threads;
    ozone_step<<<blocks, threads, 0, st.stream>>>(st.o3, st.jo2, st.ncol, st.nlev, 600.f);
    column_total<<<blocks, threads, 0, st.stream>>>(st.o3, st.d_column, st.ncol, st.nlev);
    CUDA_CHECK(cudaMemcpyAsync(st.h_column, st.d_column, st.ncol * sizeof(float),
                               cudaMemcpyDeviceToHost, st.stream));
#if CHEM_BLOCKING_DIAGNOSTICS
    CUDA_CHECK(cudaStreamSynchronize(st.stream));
#else
    // TODO: swap to the second diagnostics buffer and report the previous step
#endif
    float lo = st.h_column[0], hi = st.h_column[0];
    for (int c = 1; c < st.ncol; ++c) {
        lo = st.h_column[c] < lo ? st.h_column[c] : lo;
        hi = st.h_column[c] > hi ? st.h_column[c] : hi;
    }
    std::printf("step %3d: column O3 in [%g, %g]\n", step, lo, hi);
}

static void chem_free(ChemState& st) {
    CUDA_CHECK(cudaStreamSynchronize(st.stream));
    cudaFreeHost(st.h_column);
    cudaFree(st.d_column);
    cudaFree(st.jo2);
    cudaFree(st.o3);
    cudaStreamDestroy(st.stream);
}

int main() {
    ChemState st;
    chem_init(st, 192 * 288, 72);
    for (int step = 0; step < 24; ++step) chem_step(st, step);
    chem_free(st);
    return 0;
}
