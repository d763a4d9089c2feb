// Classifies a file of images batch by batch. The next batch is uploaded on a separate
// stream while the current one is being classified, so the copy engine and the SMs overlap.
#include <cmath>
#include <cstdio>
#include <vector>
#include "tiny_cnn.h"

constexpr int kNumBatches = 16;

int main() {
    cudaStream_t compute, upload;
    CUDA_CHECK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&upload, cudaStreamNonBlocking));
    cudaEvent_t x_ready;
    CUDA_CHECK(cudaEventCreateWithFlags(&x_ready, cudaEventDisableTiming));

    cudnnHandle_t cudnn;
    CUDNN_CHECK(cudnnCreate(&cudnn));
    CUDNN_CHECK(cudnnSetStream(cudnn, compute));
    TinyCnn net = make_tiny_cnn(cudnn);

    const size_t per_batch = net.input_elems();
    const size_t probs_per_batch = net.prob_elems();
    float *h_images, *h_params, *h_probs;
    CUDA_CHECK(cudaMallocHost(&h_images, kNumBatches * per_batch * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_params, (net.weight_elems() + kClasses) * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_probs, kNumBatches * probs_per_batch * sizeof(float)));
    for (size_t i = 0; i < kNumBatches * per_batch; ++i)
        h_images[i] = 0.5f + 0.5f * std::sin(0.0031f * static_cast<float>(i));
    for (size_t i = 0; i < net.weight_elems() + kClasses; ++i)
        h_params[i] = 0.1f * std::cos(0.7f * static_cast<float>(i));

    float *d_x, *d_w, *d_bias, *d_y, *d_logits, *d_probs;
    void* d_ws = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, per_batch * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_w, net.weight_elems() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_bias, kClasses * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_y, net.output_elems() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_logits, probs_per_batch * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_probs, probs_per_batch * sizeof(float)));
    if (net.ws_bytes > 0) CUDA_CHECK(cudaMalloc(&d_ws, net.ws_bytes));

    CUDA_CHECK(cudaMemcpyAsync(d_w, h_params, net.weight_elems() * sizeof(float), cudaMemcpyHostToDevice, compute));
    CUDA_CHECK(cudaMemcpyAsync(d_bias, h_params + net.weight_elems(), kClasses * sizeof(float),
                               cudaMemcpyHostToDevice, compute));
    CUDA_CHECK(cudaMemcpyAsync(d_x, h_images, per_batch * sizeof(float), cudaMemcpyHostToDevice, upload));
    CUDA_CHECK(cudaEventRecord(x_ready, upload));

    const float one = 1.0f, zero = 0.0f;
    const int nk = kBatch * kClasses;
    for (int b = 0; b < kNumBatches; ++b) {
        CUDA_CHECK(cudaStreamWaitEvent(compute, x_ready, 0));
        CUDNN_CHECK(cudnnConvolutionForward(cudnn, &one, net.x_desc, d_x, net.w_desc, d_w, net.conv_desc,
                                            net.algo, d_ws, net.ws_bytes, &zero, net.y_desc, d_y));
        CUDNN_CHECK(cudnnAddTensor(cudnn, &one, net.bias_desc, d_bias, &one, net.y_desc, d_y));
        CUDNN_CHECK(cudnnActivationForward(cudnn, net.relu, &one, net.y_desc, d_y, &zero, net.y_desc, d_y));
        global_avg_pool<<<(nk + 127) / 128, 128, 0, compute>>>(d_y, d_logits, nk, net.out_h * net.out_w);
        CUDA_CHECK(cudaGetLastError());
        CUDNN_CHECK(cudnnSoftmaxForward(cudnn, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_INSTANCE, &one,
                                        net.logits_desc, d_logits, &zero, net.logits_desc, d_probs));
        CUDA_CHECK(cudaMemcpyAsync(h_probs + b * probs_per_batch, d_probs, probs_per_batch * sizeof(float),
                                   cudaMemcpyDeviceToHost, compute));

        if (b + 1 < kNumBatches) {
            CUDA_CHECK(cudaMemcpyAsync(d_x, h_images + (b + 1) * per_batch, per_batch * sizeof(float),  // EXPECT: missing_sync
                                       cudaMemcpyHostToDevice, upload));
            CUDA_CHECK(cudaEventRecord(x_ready, upload));
        }
    }
    CUDA_CHECK(cudaStreamSynchronize(compute));
    CUDA_CHECK(cudaStreamSynchronize(upload));

    std::vector<int> votes(kClasses, 0);
    for (int img = 0; img < kNumBatches * kBatch; ++img) {
        int best = 0;
        for (int k = 1; k < kClasses; ++k)
            if (h_probs[static_cast<size_t>(img) * kClasses + k] > h_probs[static_cast<size_t>(img) * kClasses + best])
                best = k;
        ++votes[best];
    }
    std::printf("class 0: %d images, class %d: %d images\n", votes[0], kClasses - 1, votes[kClasses - 1]);

    CUDA_CHECK(cudaFree(d_ws));
    CUDA_CHECK(cudaFree(d_probs));
    CUDA_CHECK(cudaFree(d_logits));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_bias));
    CUDA_CHECK(cudaFree(d_w));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFreeHost(h_probs));
    CUDA_CHECK(cudaFreeHost(h_params));
    CUDA_CHECK(cudaFreeHost(h_images));
    destroy_tiny_cnn(net);
    CUDNN_CHECK(cudnnDestroy(cudnn));
    CUDA_CHECK(cudaEventDestroy(x_ready));
    CUDA_CHECK(cudaStreamDestroy(upload));
    CUDA_CHECK(cudaStreamDestroy(compute));
    return 0;
}
