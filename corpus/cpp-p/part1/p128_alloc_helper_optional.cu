// case: file-scope device buffers are allocated through a helper alloc_dev(float**, size_t) in init() before use, and the optional bias is deliberately null when absent, passed to a kernel that tests it for null; everything is freed in shutdown(): correct.
// expect: none
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

static float* d_x;
static float* d_w;
static float* d_y;
static float* d_bias = nullptr;  // optional
static int g_rows, g_cols;

static void alloc_dev(float** p, size_t count) {
    CHECK(cudaMalloc(p, count * sizeof(float)));
}

__global__ void gemv_bias(const float* w, const float* x, const float* bias, float* y, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float acc = bias ? bias[r] : 0.0f;
    for (int c = 0; c < cols; ++c) acc += w[(size_t)r * cols + c] * x[c];
    y[r] = acc;
}

static void init(int rows, int cols, bool with_bias) {
    g_rows = rows;
    g_cols = cols;
    alloc_dev(&d_x, cols);
    alloc_dev(&d_w, (size_t)rows * cols);
    alloc_dev(&d_y, rows);
    if (with_bias) alloc_dev(&d_bias, rows);
}

static void upload(const std::vector<float>& w, const std::vector<float>& x, const std::vector<float>& b) {
    CHECK(cudaMemcpy(d_w, w.data(), w.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_x, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
    if (d_bias) CHECK(cudaMemcpy(d_bias, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
}

static void shutdown() {
    cudaFree(d_x);
    cudaFree(d_w);
    cudaFree(d_y);
    cudaFree(d_bias);  // cudaFree(nullptr) is a no-op when there is no bias
}

int main(int argc, char** argv) {
    const int rows = 1024, cols = 512;
    bool with_bias = argc > 1;
    init(rows, cols, with_bias);
    std::vector<float> w((size_t)rows * cols, 0.01f), x(cols, 1.0f), b(rows, 0.5f);
    upload(w, x, b);

    gemv_bias<<<(rows + 127) / 128, 128>>>(d_w, d_x, d_bias, d_y, g_rows, g_cols);
    CHECK(cudaGetLastError());
    std::vector<float> y(rows);
    CHECK(cudaMemcpy(y.data(), d_y, rows * sizeof(float), cudaMemcpyDeviceToHost));
    printf("y[0] = %f\n", y[0]);
    shutdown();
    return 0;
}
