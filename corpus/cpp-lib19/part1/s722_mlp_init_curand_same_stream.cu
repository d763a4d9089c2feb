// Builds a two-layer MLP with He-initialised weights drawn by cuRAND, then runs a forward
// pass over a random probe batch to check the activation scale. The generator and the
// cuBLAS handle are both bound to the model's stream.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <curand.h>

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t err_ = (call);                                                \
        if (err_ != cudaSuccess) {                                                \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,               \
                         cudaGetErrorString(err_));                               \
            std::exit(EXIT_FAILURE);                                              \
        }                                                                         \
    } while (0)

#define CUBLAS_CHECK(call)                                                        \
    do {                                                                          \
        cublasStatus_t st_ = (call);                                              \
        if (st_ != CUBLAS_STATUS_SUCCESS) {                                       \
            std::fprintf(stderr, "%s:%d: cuBLAS status %d\n", __FILE__, __LINE__, \
                         static_cast<int>(st_));                                  \
            std::exit(EXIT_FAILURE);                                              \
        }                                                                         \
    } while (0)

#define CURAND_CHECK(call)                                                        \
    do {                                                                          \
        curandStatus_t s_ = (call);                                               \
        if (s_ != CURAND_STATUS_SUCCESS) {                                        \
            std::fprintf(stderr, "%s:%d: cuRAND status %d\n", __FILE__, __LINE__, \
                         static_cast<int>(s_));                                   \
            std::exit(EXIT_FAILURE);                                              \
        }                                                                         \
    } while (0)

struct Layer {
    int in, out;
    float* w;  // column-major out x in
};

__global__ void relu_inplace(float* x, size_t n) {
    const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
    if (i < n && x[i] < 0.f) x[i] = 0.f;
}

static void init_layer(Layer& layer, curandGenerator_t gen) {
    const size_t n = static_cast<size_t>(layer.in) * layer.out;  // even for the sizes below
    CUDA_CHECK(cudaMalloc(&layer.w, n * sizeof(float)));
    CURAND_CHECK(curandGenerateNormal(gen, layer.w, n, 0.0f, std::sqrt(2.0f / layer.in)));
}

int main() {
    const int batch = 512;
    Layer l1{1024, 4096, nullptr}, l2{4096, 1024, nullptr};

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    curandGenerator_t gen;
    CURAND_CHECK(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT));
    CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(gen, 1234ull));
    CURAND_CHECK(curandSetStream(gen, stream));
    cublasHandle_t blas;
    CUBLAS_CHECK(cublasCreate(&blas));
    CUBLAS_CHECK(cublasSetStream(blas, stream));

    init_layer(l1, gen);
    init_layer(l2, gen);

    const size_t x_elems = static_cast<size_t>(l1.in) * batch;
    const size_t h_elems = static_cast<size_t>(l1.out) * batch;
    const size_t y_elems = static_cast<size_t>(l2.out) * batch;
    float *d_x, *d_h, *d_y, *h_y;
    CUDA_CHECK(cudaMalloc(&d_x, x_elems * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_h, h_elems * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_y, y_elems * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_y, y_elems * sizeof(float)));
    CURAND_CHECK(curandGenerateNormal(gen, d_x, x_elems, 0.0f, 1.0f));  // probe batch

    const float one = 1.0f, zero = 0.0f;
    CUBLAS_CHECK(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, l1.out, batch, l1.in, &one,
                             l1.w, l1.out, d_x, l1.in, &zero, d_h, l1.out));
    relu_inplace<<<static_cast<unsigned>((h_elems + 255) / 256), 256, 0, stream>>>(d_h, h_elems);
    CUDA_CHECK(cudaGetLastError());
    CUBLAS_CHECK(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, l2.out, batch, l2.in, &one,
                             l2.w, l2.out, d_h, l2.in, &zero, d_y, l2.out));
    CUDA_CHECK(cudaMemcpyAsync(h_y, d_y, y_elems * sizeof(float), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));

    double sq = 0.0;
    for (size_t i = 0; i < y_elems; ++i) sq += static_cast<double>(h_y[i]) * h_y[i];
    std::printf("probe output RMS %.4f\n", std::sqrt(sq / y_elems));

    CUDA_CHECK(cudaFreeHost(h_y));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_h));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(l2.w));
    CUDA_CHECK(cudaFree(l1.w));
    CUBLAS_CHECK(cublasDestroy(blas));
    CURAND_CHECK(curandDestroyGenerator(gen));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
