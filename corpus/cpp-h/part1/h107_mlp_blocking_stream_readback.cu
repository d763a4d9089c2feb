// case: MLP inference runs its layers on a stream made with plain cudaStreamCreate (a blocking stream) and reads logits back with synchronous cudaMemcpy on the legacy default stream, which waits for that stream's kernels; the scratch buffer is then released with cudaFree, which synchronizes.
// expect: none
#include <cuda_runtime.h>
#include <vector>
#include <memory>
#include <cstdio>
#include <cmath>

#define CK(x) do { if ((x) != cudaSuccess) { std::fprintf(stderr, "fail %s:%d\n", __FILE__, __LINE__); std::exit(1); } } while (0)

__global__ void dense_relu(const float* __restrict__ x, const float* __restrict__ W, const float* __restrict__ b,
                           float* __restrict__ y, int in, int out, int batch, bool relu)
{
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    int n = blockIdx.y;
    if (o >= out || n >= batch) return;
    float acc = b[o];
    for (int k = 0; k < in; ++k) acc += x[n * in + k] * W[(size_t)k * out + o];
    y[n * out + o] = relu ? fmaxf(acc, 0.f) : acc;
}

struct Layer { int in, out; float* W; float* b; };

static Layer make_layer(int in, int out)
{
    Layer L{in, out, nullptr, nullptr};
    std::vector<float> w((size_t)in * out), b(out, 0.01f);
    for (size_t i = 0; i < w.size(); ++i) w[i] = 0.02f * std::sin(0.37f * i);
    CK(cudaMalloc(&L.W, w.size() * sizeof(float)));
    CK(cudaMalloc(&L.b, b.size() * sizeof(float)));
    CK(cudaMemcpy(L.W, w.data(), w.size() * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(L.b, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
    return L;
}

int main()
{
    const int batch = 64;
    std::vector<Layer> net = { make_layer(784, 1024), make_layer(1024, 1024), make_layer(1024, 10) };

    std::vector<float> input((size_t)batch * 784);
    for (size_t i = 0; i < input.size(); ++i) input[i] = (i % 255) / 255.f;

    float *d_a, *d_b;
    CK(cudaMalloc(&d_a, (size_t)batch * 1024 * sizeof(float)));
    CK(cudaMalloc(&d_b, (size_t)batch * 1024 * sizeof(float)));
    CK(cudaMemcpy(d_a, input.data(), input.size() * sizeof(float), cudaMemcpyHostToDevice));

    cudaStream_t s;
    CK(cudaStreamCreate(&s));            // blocking: synchronizes with the legacy default stream
    float* cur = d_a; float* nxt = d_b;
    for (size_t l = 0; l < net.size(); ++l) {
        dim3 grid((net[l].out + 127) / 128, batch);
        dense_relu<<<grid, 128, 0, s>>>(cur, net[l].W, net[l].b, nxt, net[l].in, net[l].out, batch, l + 1 < net.size());
        std::swap(cur, nxt);
    }

    std::vector<float> logits((size_t)batch * 10);
    CK(cudaMemcpy(logits.data(), cur, logits.size() * sizeof(float), cudaMemcpyDeviceToHost));

    int correct = 0;
    for (int n = 0; n < batch; ++n) {
        int arg = 0;
        for (int c = 1; c < 10; ++c) if (logits[n * 10 + c] > logits[n * 10 + arg]) arg = c;
        correct += (arg == n % 10);
    }
    std::printf("top-1 on synthetic batch: %d/%d\n", correct, batch);

    CK(cudaFree(d_b));
    CK(cudaFree(d_a));
    for (auto& L : net) { CK(cudaFree(L.W)); CK(cudaFree(L.b)); }
    CK(cudaStreamDestroy(s));
    return 0;
}
