// case: a convolution layer keeps its input and output in std::vector members and moves them with cudaMemcpyAsync on its stream, so both copies stage through pageable memory
// expect: pageable_async_copy=2
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

__constant__ float c_kernel[9];

__global__ void conv3x3(const float* in, float* out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float acc = 0.f;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
            int xx = min(max(x + dx, 0), w - 1);
            int yy = min(max(y + dy, 0), h - 1);
            acc += c_kernel[(dy + 1) * 3 + dx + 1] * in[yy * w + xx];
        }
    out[y * w + x] = acc;
}

class Conv3x3Layer {
public:
    Conv3x3Layer(int w, int h) : w_(w), h_(h), input_(w * h), output_(w * h) {
        CUDA_CHECK(cudaStreamCreate(&stream_));
        CUDA_CHECK(cudaMalloc(&d_in_, w_ * h_ * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_out_, w_ * h_ * sizeof(float)));
        const float blur[9] = {1 / 16.f, 2 / 16.f, 1 / 16.f, 2 / 16.f, 4 / 16.f,
                               2 / 16.f, 1 / 16.f, 2 / 16.f, 1 / 16.f};
        CUDA_CHECK(cudaMemcpyToSymbol(c_kernel, blur, sizeof(blur)));
    }
    ~Conv3x3Layer() {
        cudaFree(d_out_);
        cudaFree(d_in_);
        cudaStreamDestroy(stream_);
    }

    std::vector<float>& input() { return input_; }
    const std::vector<float>& output() const { return output_; }

    void forward() {
        const size_t bytes = input_.size() * sizeof(float);
        CUDA_CHECK(cudaMemcpyAsync(d_in_, input_.data(), bytes, cudaMemcpyHostToDevice, stream_)); // EXPECT: pageable_async_copy
        dim3 block(16, 16), grid((w_ + 15) / 16, (h_ + 15) / 16);
        conv3x3<<<grid, block, 0, stream_>>>(d_in_, d_out_, w_, h_);
        CUDA_CHECK(cudaMemcpyAsync(output_.data(), d_out_, bytes, cudaMemcpyDeviceToHost, stream_)); // EXPECT: pageable_async_copy
        CUDA_CHECK(cudaStreamSynchronize(stream_));
    }

private:
    int w_, h_;
    std::vector<float> input_;
    std::vector<float> output_;
    cudaStream_t stream_ = nullptr;
    float* d_in_ = nullptr;
    float* d_out_ = nullptr;
};

int main() {
    Conv3x3Layer layer(1024, 1024);
    auto& in = layer.input();
    for (size_t i = 0; i < in.size(); ++i) in[i] = (i / 1024 + i % 1024) % 2 ? 1.f : 0.f;
    layer.forward();
    printf("out[1025] = %f\n", layer.output()[1025]);
    return 0;
}
