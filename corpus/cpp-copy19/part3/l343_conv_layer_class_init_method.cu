// case: a Conv2D layer class allocates its filter, bias and workspace in an init() method into members and frees them in its destructor; forward() keeps nothing in locals
// expect: none
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(c)                                                        \
    do {                                                                     \
        cudaError_t e__ = (c);                                               \
        if (e__ != cudaSuccess) {                                            \
            fprintf(stderr, "%s: %s\n", #c, cudaGetErrorString(e__));        \
            std::exit(2);                                                    \
        }                                                                    \
    } while (0)

__global__ void conv2d_3x3(const float* in, const float* filt, const float* bias, float* out,
                           int h, int w, int cin, int cout) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int co = blockIdx.z;
    if (x >= w || y >= h) return;
    float acc = bias[co];
    for (int ci = 0; ci < cin; ++ci)
        for (int ky = -1; ky <= 1; ++ky)
            for (int kx = -1; kx <= 1; ++kx) {
                int yy = y + ky, xx = x + kx;
                if (yy < 0 || yy >= h || xx < 0 || xx >= w) continue;
                acc += in[(ci * h + yy) * w + xx] * filt[((co * cin + ci) * 3 + ky + 1) * 3 + kx + 1];
            }
    out[(co * h + y) * w + x] = fmaxf(acc, 0.f);
}

class Conv2D {
public:
    Conv2D(int cin, int cout, int h, int w) : cin_(cin), cout_(cout), h_(h), w_(w) {}
    ~Conv2D() {
        cudaFree(d_filt_);
        cudaFree(d_bias_);
        cudaFree(d_in_);
        cudaFree(d_out_);
    }

    void init() {
        std::vector<float> f((size_t)cout_ * cin_ * 9, 1.0f / (cin_ * 9)), b(cout_, 0.1f);
        CUDA_CHECK(cudaMalloc(&d_filt_, f.size() * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_bias_, b.size() * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_in_, (size_t)cin_ * h_ * w_ * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_out_, (size_t)cout_ * h_ * w_ * sizeof(float)));
        CUDA_CHECK(cudaMemcpy(d_filt_, f.data(), f.size() * sizeof(float), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(d_bias_, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
    }

    void forward(const std::vector<float>& in, std::vector<float>& out) {
        CUDA_CHECK(cudaMemcpy(d_in_, in.data(), in.size() * sizeof(float), cudaMemcpyHostToDevice));
        dim3 block(16, 16), grid((w_ + 15) / 16, (h_ + 15) / 16, cout_);
        conv2d_3x3<<<grid, block>>>(d_in_, d_filt_, d_bias_, d_out_, h_, w_, cin_, cout_);
        out.resize((size_t)cout_ * h_ * w_);
        CUDA_CHECK(cudaMemcpy(out.data(), d_out_, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    }

private:
    int cin_, cout_, h_, w_;
    float* d_filt_ = nullptr;
    float* d_bias_ = nullptr;
    float* d_in_ = nullptr;
    float* d_out_ = nullptr;
};

int main() {
    const int C = 3, K = 16, H = 224, W = 224;
    Conv2D conv(C, K, H, W);
    conv.init();
    std::vector<float> img((size_t)C * H * W, 0.5f), feat;
    conv.forward(img, feat);
    printf("feature[0] = %f, feature[last] = %f\n", feat[0], feat.back());
    return 0;
}
