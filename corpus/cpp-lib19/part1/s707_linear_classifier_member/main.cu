// Classifies a stream of feature vectors in fixed-size batches and prints a class histogram.
#include <cmath>
#include <cstdio>
#include <vector>
#include "linear_classifier.h"

int main() {
    const int features = 512, classes = 100, batch = 256, batches = 40;

    std::vector<float> weights(static_cast<size_t>(classes) * features);
    std::vector<float> bias(classes);
    for (size_t i = 0; i < weights.size(); ++i) weights[i] = 0.01f * std::sin(0.3f * static_cast<float>(i));
    for (int c = 0; c < classes; ++c) bias[c] = 0.001f * c;

    LinearClassifier model(features, classes, batch, weights, bias);

    float* h_batch = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_batch, static_cast<size_t>(features) * batch * sizeof(float)));
    std::vector<int> labels(batch);
    std::vector<int> histogram(classes, 0);

    for (int k = 0; k < batches; ++k) {
        for (size_t i = 0; i < static_cast<size_t>(features) * batch; ++i)
            h_batch[i] = std::cos(0.001f * static_cast<float>(i + static_cast<size_t>(k) * 7919));
        model.predict(h_batch, batch, labels.data());
        for (int b = 0; b < batch; ++b) ++histogram[labels[b]];
    }

    for (int c = 0; c < classes; c += 10) std::printf("class %3d: %d\n", c, histogram[c]);
    CUDA_CHECK(cudaFreeHost(h_batch));
    return 0;
}
