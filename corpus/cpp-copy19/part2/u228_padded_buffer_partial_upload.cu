// case: a saxpy on buffers padded to a multiple of the block size; only the n real elements are uploaded (a partial write), and the kernel's bounds check keeps it to those elements.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); std::exit(1); } } while (0)

constexpr int kBlock = 256;
constexpr int kN = 1000003;
constexpr int kPadded = ((kN + kBlock - 1) / kBlock) * kBlock;

__global__ void saxpy(int n, float a, const float* x, const float* y, float* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + y[i];
}

class PaddedVector {
public:
    PaddedVector() { CUDA_CHECK(cudaMalloc(&d_, kPadded * sizeof(float))); }
    ~PaddedVector() { cudaFree(d_); }
    float* get() const { return d_; }
    void upload(const std::vector<float>& h) {
        CUDA_CHECK(cudaMemcpy(d_, h.data(), kN * sizeof(float), cudaMemcpyHostToDevice));
    }
    void download(std::vector<float>& h) const {
        CUDA_CHECK(cudaMemcpy(h.data(), d_, kN * sizeof(float), cudaMemcpyDeviceToHost));
    }
private:
    float* d_ = nullptr;
};

int main()
{
    std::vector<float> x(kN, 1.0f), y(kN, 2.0f), out(kN);
    PaddedVector dx, dy, dout;
    dx.upload(x);
    dy.upload(y);

    saxpy<<<kPadded / kBlock, kBlock>>>(kN, 3.0f, dx.get(), dy.get(), dout.get());
    CUDA_CHECK(cudaGetLastError());
    dout.download(out);

    std::printf("out[0] = %f, out[n-1] = %f\n", out[0], out[kN - 1]);
    return 0;
}
