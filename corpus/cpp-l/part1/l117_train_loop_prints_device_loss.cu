// case: a linear-regression training loop keeps its parameters, gradients and scalar loss in a struct of cudaMalloc'd pointers; every 100 steps it synchronizes and then prints the loss by dereferencing the device pointer on the host instead of copying it back.
// expect: host_deref_device_ptr=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                         \
    do {                                                                         \
        cudaError_t e = (call);                                                  \
        if (e != cudaSuccess) {                                                  \
            fprintf(stderr, "%s (%s:%d)\n", cudaGetErrorString(e), __FILE__, __LINE__); \
            exit(EXIT_FAILURE);                                                  \
        }                                                                        \
    } while (0)

struct TrainState {
    float* d_w;     // [dim]
    float* d_grad;  // [dim]
    float* d_loss;  // scalar
    int dim;
};

__global__ void forward_backward(const float* x, const float* y, const float* w, float* grad,
                                 float* loss, int n, int dim) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float pred = 0.f;
    for (int k = 0; k < dim; ++k) pred += x[size_t(i) * dim + k] * w[k];
    float err = pred - y[i];
    atomicAdd(loss, 0.5f * err * err / n);
    for (int k = 0; k < dim; ++k) atomicAdd(&grad[k], err * x[size_t(i) * dim + k] / n);
}

__global__ void sgd_step(float* w, const float* grad, int dim, float lr) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < dim) w[k] -= lr * grad[k];
}

int main() {
    const int n = 1 << 16, dim = 32, steps = 1000;
    std::vector<float> hx(size_t(n) * dim), hy(n), hw(dim, 0.f);
    for (int i = 0; i < n; ++i) {
        float t = 0.f;
        for (int k = 0; k < dim; ++k) {
            float v = float((i * 31 + k * 17) % 101) / 101.f;
            hx[size_t(i) * dim + k] = v;
            t += v * float(k % 5);
        }
        hy[i] = t;
    }

    float *d_x, *d_y;
    CUDA_CHECK(cudaMalloc(&d_x, hx.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_y, hy.size() * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_x, hx.data(), hx.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_y, hy.data(), hy.size() * sizeof(float), cudaMemcpyHostToDevice));

    TrainState st{};
    st.dim = dim;
    CUDA_CHECK(cudaMalloc(&st.d_w, dim * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&st.d_grad, dim * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&st.d_loss, sizeof(float)));
    CUDA_CHECK(cudaMemcpy(st.d_w, hw.data(), dim * sizeof(float), cudaMemcpyHostToDevice));

    for (int step = 0; step < steps; ++step) {
        CUDA_CHECK(cudaMemset(st.d_grad, 0, dim * sizeof(float)));
        CUDA_CHECK(cudaMemset(st.d_loss, 0, sizeof(float)));
        forward_backward<<<(n + 255) / 256, 256>>>(d_x, d_y, st.d_w, st.d_grad, st.d_loss, n, dim);
        sgd_step<<<1, 32>>>(st.d_w, st.d_grad, dim, 0.05f);
        CUDA_CHECK(cudaGetLastError());
        if (step % 100 == 0) {
            CUDA_CHECK(cudaDeviceSynchronize());
            printf("step %4d loss %.6f\n", step, *st.d_loss); // EXPECT: host_deref_device_ptr
        }
    }

    CUDA_CHECK(cudaMemcpy(hw.data(), st.d_w, dim * sizeof(float), cudaMemcpyDeviceToHost));
    printf("w[1] = %.4f (target 1)\n", hw[1]);

    CUDA_CHECK(cudaFree(st.d_w));
    CUDA_CHECK(cudaFree(st.d_grad));
    CUDA_CHECK(cudaFree(st.d_loss));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_y));
    return 0;
}
