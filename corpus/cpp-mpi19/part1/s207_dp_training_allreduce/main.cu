// case: data-parallel linear regression with RAII device tensors and a non-blocking stream; the gradient kernel writes grad and MPI_Allreduce(MPI_IN_PLACE, grad) runs right after the launch with no stream or event synchronization.
// expect: missing_sync=1
#include <mpi.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>
#include "tensor.h"

__global__ void predict_error(const float* w, const float* x, const float* y,
                              float* err, int ns, int dim) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= ns) return;
    float p = 0.0f;
    for (int j = 0; j < dim; ++j) p += w[j] * x[i * dim + j];
    err[i] = p - y[i];
}

__global__ void gradient(const float* x, const float* err, float* grad, int ns, int dim) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= dim) return;
    float g = 0.0f;
    for (int i = 0; i < ns; ++i) g += err[i] * x[i * dim + j];
    grad[j] = g / ns;
}

__global__ void sgd_step(float* w, const float* grad, int dim, float scale) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < dim) w[j] -= scale * grad[j];
}

__global__ void squared_loss(const float* err, float* loss, int ns) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < ns) atomicAdd(loss, err[i] * err[i]);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int ndev = 1;
    CHECK(cudaGetDeviceCount(&ndev));
    CHECK(cudaSetDevice(rank % ndev));

    const int ns = 16384, dim = 256, epochs = 50;
    const float lr = 0.05f;
    std::vector<float> h_x((size_t)ns * dim), h_y(ns);
    for (int i = 0; i < ns; ++i) {
        float t = 0.0f;
        for (int j = 0; j < dim; ++j) {
            float v = (float)(((i + rank * ns) * 31 + j * 17) % 97) / 97.0f - 0.5f;
            h_x[(size_t)i * dim + j] = v;
            t += v * (j % 5 == 0 ? 1.0f : 0.0f);
        }
        h_y[i] = t;
    }

    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float* h_loss = nullptr;
    CHECK(cudaMallocHost(&h_loss, sizeof(float)));
    {
        DeviceTensor x((size_t)ns * dim), y(ns), w(dim), grad(dim), err(ns), loss(1);
        CHECK(cudaMemcpy(x.data(), h_x.data(), x.bytes(), cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(y.data(), h_y.data(), y.bytes(), cudaMemcpyHostToDevice));
        CHECK(cudaDeviceSynchronize());

        const int tb = 256;
        for (int e = 0; e < epochs; ++e) {
            predict_error<<<(ns + tb - 1) / tb, tb, 0, s>>>(w.data(), x.data(), y.data(), err.data(), ns, dim);
            gradient<<<(dim + tb - 1) / tb, tb, 0, s>>>(x.data(), err.data(), grad.data(), ns, dim);
            MPI_Allreduce(MPI_IN_PLACE, grad.data(), dim, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);  // EXPECT: missing_sync
            sgd_step<<<(dim + tb - 1) / tb, tb, 0, s>>>(w.data(), grad.data(), dim, lr / size);

            CHECK(cudaMemsetAsync(loss.data(), 0, sizeof(float), s));
            squared_loss<<<(ns + tb - 1) / tb, tb, 0, s>>>(err.data(), loss.data(), ns);
            CHECK(cudaMemcpyAsync(h_loss, loss.data(), sizeof(float), cudaMemcpyDeviceToHost, s));
            CHECK(cudaStreamSynchronize(s));
            float global_loss = 0.0f;
            MPI_Allreduce(h_loss, &global_loss, 1, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
            if (rank == 0 && e % 10 == 0) printf("epoch %d loss %.6f\n", e, global_loss / (ns * size));
        }
        CHECK(cudaStreamSynchronize(s));
    }
    CHECK(cudaFreeHost(h_loss));
    CHECK(cudaStreamDestroy(s));
    MPI_Finalize();
    return 0;
}
