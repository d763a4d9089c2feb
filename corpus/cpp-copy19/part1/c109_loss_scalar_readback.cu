// case: cross-entropy training step that reads the loss into a single host float but copies the whole per-sample loss vector (BATCH floats) into it
// expect: copy_out_of_bounds=1
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
    do {                                                                    \
        cudaError_t e = (call);                                             \
        if (e != cudaSuccess) {                                             \
            std::fprintf(stderr, "CUDA %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); \
            std::exit(EXIT_FAILURE);                                        \
        }                                                                   \
    } while (0)

constexpr int BATCH = 256;
constexpr int CLASSES = 10;

__global__ void softmax_xent(const float *logits, const int *labels, float *loss, int classes)
{
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= BATCH) return;
    const float *row = logits + b * classes;
    float mx = row[0];
    for (int c = 1; c < classes; ++c) mx = fmaxf(mx, row[c]);
    float sum = 0.0f;
    for (int c = 0; c < classes; ++c) sum += expf(row[c] - mx);
    loss[b] = logf(sum) + mx - row[labels[b]];
}

int main()
{
    std::vector<float> h_logits(BATCH * CLASSES);
    std::vector<int> h_labels(BATCH);
    for (int b = 0; b < BATCH; ++b) {
        h_labels[b] = b % CLASSES;
        for (int c = 0; c < CLASSES; ++c) h_logits[b * CLASSES + c] = 0.1f * float((b + 3 * c) % 7);
    }

    float *d_logits, *d_loss;
    int *d_labels;
    CUDA_CHECK(cudaMalloc(&d_logits, BATCH * CLASSES * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_labels, BATCH * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_loss, BATCH * sizeof(float)));

    CUDA_CHECK(cudaMemcpy(d_logits, h_logits.data(), BATCH * CLASSES * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_labels, h_labels.data(), BATCH * sizeof(int), cudaMemcpyHostToDevice));

    softmax_xent<<<(BATCH + 63) / 64, 64>>>(d_logits, d_labels, d_loss, CLASSES);
    CUDA_CHECK(cudaGetLastError());

    float loss = 0.0f;
    CUDA_CHECK(cudaMemcpy(&loss, d_loss, BATCH * sizeof(float), cudaMemcpyDeviceToHost)); // EXPECT: copy_out_of_bounds
    std::printf("batch loss %.5f\n", loss / BATCH);

    CUDA_CHECK(cudaFree(d_logits));
    CUDA_CHECK(cudaFree(d_labels));
    CUDA_CHECK(cudaFree(d_loss));
    return 0;
}
