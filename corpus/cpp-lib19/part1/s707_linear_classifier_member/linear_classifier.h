#pragma once
// A softmax-regression classifier served from the GPU. The logits live in managed memory
// so that the arg-max can run on the host without an extra staging copy.
#include <vector>
#include "cuda_check.h"

class LinearClassifier {
public:
    LinearClassifier(int features, int classes, int max_batch,
                     const std::vector<float>& weights,  // classes x features, row-major
                     const std::vector<float>& bias)
        : features_(features), classes_(classes), max_batch_(max_batch), bias_(bias) {
        CUDA_CHECK(cudaStreamCreate(&stream_));
        CUBLAS_CHECK(cublasCreate(&blas_));
        CUDA_CHECK(cudaMalloc(&d_w_, weights.size() * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_x_, static_cast<size_t>(features_) * max_batch_ * sizeof(float)));
        CUDA_CHECK(cudaMallocManaged(&logits_, static_cast<size_t>(classes_) * max_batch_ * sizeof(float)));
        CUDA_CHECK(cudaMemcpy(d_w_, weights.data(), weights.size() * sizeof(float), cudaMemcpyHostToDevice));
    }

    ~LinearClassifier() {
        cudaDeviceSynchronize();
        cudaFree(logits_);
        cudaFree(d_x_);
        cudaFree(d_w_);
        cublasDestroy(blas_);
        cudaStreamDestroy(stream_);
    }

    LinearClassifier(const LinearClassifier&) = delete;
    LinearClassifier& operator=(const LinearClassifier&) = delete;

    // batch_pinned: `batch` samples of `features` floats each, in page-locked memory.
    void predict(const float* batch_pinned, int batch, int* labels) {
        CUDA_CHECK(cudaMemcpyAsync(d_x_, batch_pinned, static_cast<size_t>(features_) * batch * sizeof(float),
                                   cudaMemcpyHostToDevice, stream_));
        // logits (classes x batch) = W (classes x features) * X (features x batch).
        // W is row-major classes x features, i.e. column-major features x classes: transpose it.
        const float one = 1.0f, zero = 0.0f;
        CUBLAS_CHECK(cublasSgemm(blas_, CUBLAS_OP_T, CUBLAS_OP_N, classes_, batch, features_, &one,
                                 d_w_, features_, d_x_, features_, &zero, logits_, classes_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));

        for (int b = 0; b < batch; ++b) {
            int best = 0;
            float best_score = logits_[static_cast<size_t>(b) * classes_] + bias_[0];  // EXPECT: missing_sync
            for (int c = 1; c < classes_; ++c) {
                const float score = logits_[static_cast<size_t>(b) * classes_ + c] + bias_[c];
                if (score > best_score) {
                    best_score = score;
                    best = c;
                }
            }
            labels[b] = best;
        }
    }

    int max_batch() const { return max_batch_; }

private:
    int features_;
    int classes_;
    int max_batch_;
    std::vector<float> bias_;
    cudaStream_t stream_ = nullptr;
    cublasHandle_t blas_ = nullptr;
    float* d_w_ = nullptr;
    float* d_x_ = nullptr;
    float* logits_ = nullptr;  // managed
};
