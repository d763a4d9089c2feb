// Classifies a file of images batch by batch. As soon as the convolution of the current
// batch has consumed its input, the host queues the next upload on the copy stream, so the
// upload overlaps with the bias, activation, pooling and softmax of the current batch.
#include <cmath>
#include <cstdio>
#include <vector>
#include "tiny_cnn.h"

constexpr int kNumBatches = 16;

struct DeviceBuffers {
    float* x = nullptr;
    float* w = nullptr;
    float* bias = nullptr;
    float* y = nullptr;
    float* logits = nullptr;
    float* probs = nullptr;
    void* ws = nullptr;
};

static void allocate(DeviceBuffers& d, const TinyCnn& net) {
    CUDA_CHECK(cudaMalloc(&d.x, net.input_elems() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d.w, net.weight_elems() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d.bias, kClasses * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d.y, net.output_elems() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d.logits, net.prob_elems() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d.probs, net.prob_elems() * sizeof(float)));
    if (net.ws_bytes > 0) CUDA_CHECK(cudaMalloc(&d.ws, net.ws_bytes));
}

static void release(DeviceBuffers& d) {
    CUDA_CHECK(cudaFree(d.ws));
    CUDA_CHECK(cudaFree(d.probs));
    CUDA_CHECK(cudaFree(d.logits));
    CUDA_CHECK(cudaFree(d.y));
    CUDA_CHECK(cudaFree(d.bias));
    CUDA_CHECK(cudaFree(d.w));
    CUDA_CHECK(cudaFree(d.x));
}

int main() {
    cudaStream_t compute, copy;
    CUDA_CHECK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&copy, cudaStreamNonBlocking));
    cudaEvent_t x_ready, x_consumed;
    CUDA_CHECK(cudaEventCreateWithFlags(&x_ready, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&x_consumed, cudaEventDisableTiming | cudaEventBlockingSync));

    cudnnHandle_t cudnn;
    CUDNN_CHECK(cudnnCreate(&cudnn));
    CUDNN_CHECK(cudnnSetStream(cudnn, compute));
    TinyCnn net = make_tiny_cnn(cudnn);

    const size_t per_batch = net.input_elems();
    const size_t probs_per_batch = net.prob_elems();
    float *h_images, *h_weights, *h_bias, *h_probs;
    CUDA_CHECK(cudaMallocHost(&h_images, kNumBatches * per_batch * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_weights, net.weight_elems() * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_bias, kClasses * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_probs, kNumBatches * probs_per_batch * sizeof(float)));
    for (size_t i = 0; i < kNumBatches * per_batch; ++i)
        h_images[i] = 0.5f + 0.5f * std::cos(0.0047f * static_cast<float>(i));
    for (size_t i = 0; i < net.weight_elems(); ++i) h_weights[i] = 0.1f * std::sin(0.9f * static_cast<float>(i));
    for (int k = 0; k < kClasses; ++k) h_bias[k] = 0.01f * k;

    DeviceBuffers d;
    allocate(d, net);
    CUDA_CHECK(cudaMemcpyAsync(d.w, h_weights, net.weight_elems() * sizeof(float), cudaMemcpyHostToDevice, compute));
    CUDA_CHECK(cudaMemcpyAsync(d.bias, h_bias, kClasses * sizeof(float), cudaMemcpyHostToDevice, compute));
    CUDA_CHECK(cudaMemcpyAsync(d.x, h_images, per_batch * sizeof(float), cudaMemcpyHostToDevice, copy));
    CUDA_CHECK(cudaEventRecord(x_ready, copy));

    const float one = 1.0f, zero = 0.0f;
    const int nk = kBatch * kClasses;
    for (int b = 0; b < kNumBatches; ++b) {
        CUDA_CHECK(cudaStreamWaitEvent(compute, x_ready, 0));
        CUDNN_CHECK(cudnnConvolutionForward(cudnn, &one, net.x_desc, d.x, net.w_desc, d.w, net.conv_desc,
                                            net.algo, d.ws, net.ws_bytes, &zero, net.y_desc, d.y));
        CUDA_CHECK(cudaEventRecord(x_consumed, compute));
        CUDNN_CHECK(cudnnAddTensor(cudnn, &one, net.bias_desc, d.bias, &one, net.y_desc, d.y));
        CUDNN_CHECK(cudnnActivationForward(cudnn, net.relu, &one, net.y_desc, d.y, &zero, net.y_desc, d.y));
        global_avg_pool<<<(nk + 127) / 128, 128, 0, compute>>>(d.y, d.logits, nk, net.out_h * net.out_w);
        CUDA_CHECK(cudaGetLastError());
        CUDNN_CHECK(cudnnSoftmaxForward(cudnn, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_INSTANCE, &one,
                                        net.logits_desc, d.logits, &zero, net.logits_desc, d.probs));
        CUDA_CHECK(cudaMemcpyAsync(h_probs + b * probs_per_batch, d.probs, probs_per_batch * sizeof(float),
                                   cudaMemcpyDeviceToHost, compute));

        if (b + 1 < kNumBatches) {
            CUDA_CHECK(cudaEventSynchronize(x_consumed));  // the convolution is done with d.x
            CUDA_CHECK(cudaMemcpyAsync(d.x, h_images + (b + 1) * per_batch, per_batch * sizeof(float),
                                       cudaMemcpyHostToDevice, copy));
            CUDA_CHECK(cudaEventRecord(x_ready, copy));
        }
    }
    CUDA_CHECK(cudaStreamSynchronize(compute));
    CUDA_CHECK(cudaStreamSynchronize(copy));

    double mean_top1 = 0.0;
    for (int img = 0; img < kNumBatches * kBatch; ++img) {
        float top = 0.f;
        for (int k = 0; k < kClasses; ++k) top = std::fmax(top, h_probs[static_cast<size_t>(img) * kClasses + k]);
        mean_top1 += top;
    }
    std::printf("mean top-1 confidence %.4f over %d images\n", mean_top1 / (kNumBatches * kBatch),
                kNumBatches * kBatch);

    release(d);
    CUDA_CHECK(cudaFreeHost(h_probs));
    CUDA_CHECK(cudaFreeHost(h_bias));
    CUDA_CHECK(cudaFreeHost(h_weights));
    CUDA_CHECK(cudaFreeHost(h_images));
    destroy_tiny_cnn(net);
    CUDNN_CHECK(cudnnDestroy(cudnn));
    CUDA_CHECK(cudaEventDestroy(x_consumed));
    CUDA_CHECK(cudaEventDestroy(x_ready));
    CUDA_CHECK(cudaStreamDestroy(copy));
    CUDA_CHECK(cudaStreamDestroy(compute));
    return 0;
}
