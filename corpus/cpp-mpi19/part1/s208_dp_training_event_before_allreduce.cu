// case: data-parallel logistic regression with a templated RAII device buffer; an event recorded after the gradient kernel is waited with cudaEventSynchronize before the two in-place MPI_Allreduce calls on the weight and bias gradients (near miss of s207).
// expect: none
#include <mpi.h>
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <vector>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); MPI_Abort(MPI_COMM_WORLD, 3); } } while (0)

template <typename T>
struct GpuBuffer {
    T* ptr = nullptr;
    size_t n = 0;
    explicit GpuBuffer(size_t count) : n(count) {
        CK(cudaMalloc(&ptr, n * sizeof(T)));
        CK(cudaMemset(ptr, 0, n * sizeof(T)));
    }
    ~GpuBuffer() { cudaFree(ptr); }
    GpuBuffer(const GpuBuffer&) = delete;
    GpuBuffer& operator=(const GpuBuffer&) = delete;
};

__global__ void logistic_grad(const float* w, const float* b, const float* x, const float* y,
                              float* gw, float* gb, int ns, int dim) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j > dim) return;
    float acc = 0.0f;
    for (int i = 0; i < ns; ++i) {
        float z = b[0];
        for (int k = 0; k < dim; ++k) z += w[k] * x[i * dim + k];
        float r = 1.0f / (1.0f + expf(-z)) - y[i];
        acc += (j < dim) ? r * x[i * dim + j] : r;
    }
    if (j < dim) gw[j] = acc / ns; else gb[0] = acc / ns;
}

__global__ void apply_update(float* w, float* b, const float* gw, const float* gb, int dim, float scale) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < dim) w[j] -= scale * gw[j];
    if (j == 0) b[0] -= scale * gb[0];
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    const int ns = 2048, dim = 64, epochs = 30;
    std::vector<float> h_x((size_t)ns * dim), h_y(ns), h_w(dim);
    for (int i = 0; i < ns; ++i) {
        for (int k = 0; k < dim; ++k) h_x[(size_t)i * dim + k] = (float)((i * 13 + k * 7 + rank) % 29) / 29.0f - 0.5f;
        h_y[i] = (h_x[(size_t)i * dim] + h_x[(size_t)i * dim + 1] > 0.0f) ? 1.0f : 0.0f;
    }

    cudaStream_t s;
    cudaEvent_t grads_ready;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaEventCreateWithFlags(&grads_ready, cudaEventDisableTiming));
    {
        GpuBuffer<float> x((size_t)ns * dim), y(ns), w(dim), b(1), gw(dim), gb(1);
        CK(cudaMemcpy(x.ptr, h_x.data(), x.n * sizeof(float), cudaMemcpyHostToDevice));
        CK(cudaMemcpy(y.ptr, h_y.data(), y.n * sizeof(float), cudaMemcpyHostToDevice));
        CK(cudaDeviceSynchronize());

        const int tb = 128, nb = (dim + 1 + tb - 1) / tb;
        for (int e = 0; e < epochs; ++e) {
            logistic_grad<<<nb, tb, 0, s>>>(w.ptr, b.ptr, x.ptr, y.ptr, gw.ptr, gb.ptr, ns, dim);
            CK(cudaEventRecord(grads_ready, s));
            CK(cudaEventSynchronize(grads_ready));
            MPI_Allreduce(MPI_IN_PLACE, gw.ptr, dim, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
            MPI_Allreduce(MPI_IN_PLACE, gb.ptr, 1, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
            apply_update<<<nb, tb, 0, s>>>(w.ptr, b.ptr, gw.ptr, gb.ptr, dim, 0.5f / size);
            CK(cudaStreamSynchronize(s));
        }
        CK(cudaMemcpy(h_w.data(), w.ptr, dim * sizeof(float), cudaMemcpyDeviceToHost));
    }
    if (rank == 0) printf("w[0]=%f w[1]=%f\n", h_w[0], h_w[1]);

    CK(cudaEventDestroy(grads_ready));
    CK(cudaStreamDestroy(s));
    MPI_Finalize();
    return 0;
}
