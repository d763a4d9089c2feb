// Reduces 1024-dimensional descriptors to 32 principal components, chunk by chunk,
// and reports the energy captured per chunk.
#include <cmath>
#include <cstdio>
#include <vector>
#include "pca_projector.h"

static std::vector<float> orthonormal_basis(int dim, int k) {
    // Columns of a DCT-II basis: orthonormal, cheap to build.
    std::vector<float> v(static_cast<size_t>(dim) * k);
    const float pi = 3.14159265358979f;
    for (int c = 0; c < k; ++c) {
        const float norm = std::sqrt((c == 0 ? 1.0f : 2.0f) / dim);
        for (int i = 0; i < dim; ++i)
            v[static_cast<size_t>(c) * dim + i] = norm * std::cos(pi * (i + 0.5f) * c / dim);
    }
    return v;
}

int main() {
    const int dim = 1024, k = 32, chunk = 2048, chunks = 12;
    std::vector<float> mean(dim);
    for (int i = 0; i < dim; ++i) mean[i] = 0.05f * std::sin(0.2f * i);

    PcaProjector pca(dim, k, chunk, orthonormal_basis(dim, k), mean);

    std::vector<float> x(static_cast<size_t>(dim) * chunk);
    for (int c = 0; c < chunks; ++c) {
        for (size_t i = 0; i < x.size(); ++i)
            x[i] = mean[i % dim] + std::sin(0.003f * static_cast<float>(i) + c);
        const std::vector<float> z = pca.project(x, chunk);
        double energy = 0.0;
        for (float s : z) energy += static_cast<double>(s) * s;
        std::printf("chunk %2d: captured energy %.4e\n", c, energy);
    }
    return 0;
}
