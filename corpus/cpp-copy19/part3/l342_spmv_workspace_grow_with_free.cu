// case: a CSR SpMV driver reuses its device arrays across matrices of growing size, calling cudaFree on the old array before each cudaMalloc of a larger one, and frees the final arrays at the end
// expect: none
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t s_ = (x); if (s_ != cudaSuccess) { \
    fprintf(stderr, "%s -> %s\n", #x, cudaGetErrorString(s_)); exit(1); } } while (0)

__global__ void spmv_csr(const int* rowptr, const int* cols, const float* vals, const float* x,
                         float* y, int nrows) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= nrows) return;
    float acc = 0.f;
    for (int k = rowptr[r]; k < rowptr[r + 1]; ++k) acc += vals[k] * x[cols[k]];
    y[r] = acc;
}

template <typename T>
static void ensure_capacity(T** d, size_t* cap, size_t need) {
    if (need <= *cap) return;
    CK(cudaFree(*d));
    CK(cudaMalloc(d, need * sizeof(T)));
    *cap = need;
}

static void make_tridiag(int n, std::vector<int>& rp, std::vector<int>& ci, std::vector<float>& v) {
    rp.assign(1, 0); ci.clear(); v.clear();
    for (int r = 0; r < n; ++r) {
        for (int c = r - 1; c <= r + 1; ++c)
            if (c >= 0 && c < n) { ci.push_back(c); v.push_back(c == r ? 2.f : -1.f); }
        rp.push_back((int)ci.size());
    }
}

int main() {
    int *d_rp = nullptr, *d_ci = nullptr;
    float *d_v = nullptr, *d_x = nullptr, *d_y = nullptr;
    size_t cap_rp = 0, cap_ci = 0, cap_v = 0, cap_x = 0, cap_y = 0;

    const int sizes[] = {1000, 50000, 20000, 400000, 1000000};
    std::vector<int> rp, ci;
    std::vector<float> v;
    for (int n : sizes) {
        make_tridiag(n, rp, ci, v);
        std::vector<float> x(n, 1.f), y(n);
        ensure_capacity(&d_rp, &cap_rp, rp.size());
        ensure_capacity(&d_ci, &cap_ci, ci.size());
        ensure_capacity(&d_v, &cap_v, v.size());
        ensure_capacity(&d_x, &cap_x, (size_t)n);
        ensure_capacity(&d_y, &cap_y, (size_t)n);

        CK(cudaMemcpy(d_rp, rp.data(), rp.size() * sizeof(int), cudaMemcpyHostToDevice));
        CK(cudaMemcpy(d_ci, ci.data(), ci.size() * sizeof(int), cudaMemcpyHostToDevice));
        CK(cudaMemcpy(d_v, v.data(), v.size() * sizeof(float), cudaMemcpyHostToDevice));
        CK(cudaMemcpy(d_x, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
        spmv_csr<<<(n + 255) / 256, 256>>>(d_rp, d_ci, d_v, d_x, d_y, n);
        CK(cudaMemcpy(y.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost));
        printf("n=%7d  y[0]=%.1f y[mid]=%.1f\n", n, y[0], y[n / 2]);
    }

    CK(cudaFree(d_rp));
    CK(cudaFree(d_ci));
    CK(cudaFree(d_v));
    CK(cudaFree(d_x));
    CK(cudaFree(d_y));
    return 0;
}
