// case: an inference server gives each request slot its own stream and a managed request buffer attached to that stream with cudaStreamAttachMemAsync(..., cudaMemAttachSingle) and synchronized; the host fills slot 1's buffer while slot 0's kernel runs on the other stream, which single-stream attachment permits, and reads each slot's logits after synchronizing that slot's stream.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                        \
    do {                                                                             \
        cudaError_t e_ = (x);                                                        \
        if (e_ != cudaSuccess) { std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); std::abort(); } \
    } while (0)

constexpr int kSeq = 512;
constexpr int kClasses = 16;

struct Request {
    int tokens[kSeq];
    int length;
    float logits[kClasses];
};

__global__ void classify_bow(Request* req, const float* emb, int dim) {
    int c = threadIdx.x;
    if (c >= kClasses) return;
    float acc = 0.f;
    for (int t = 0; t < req->length; ++t) acc += emb[(req->tokens[t] % 30000) * dim + (c % dim)];
    req->logits[c] = acc / req->length;
}

struct RequestSlot {
    cudaStream_t stream = nullptr;
    Request* req = nullptr;
};

static RequestSlot make_slot() {
    RequestSlot s;
    CK(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
    CK(cudaMallocManaged(&s.req, sizeof(Request)));
    CK(cudaStreamAttachMemAsync(s.stream, s.req, 0, cudaMemAttachSingle));
    CK(cudaStreamSynchronize(s.stream));   // attachment is in effect from here on
    return s;
}

static void fill_request(Request& r, int seed, int length) {
    r.length = length;
    for (int t = 0; t < length; ++t) r.tokens[t] = (seed * 131 + t * 17) % 30000;
}

static int argmax(const float* v, int n) {
    int b = 0;
    for (int i = 1; i < n; ++i) if (v[i] > v[b]) b = i;
    return b;
}

int main() {
    const int dim = 64;
    float* d_emb = nullptr;
    CK(cudaMalloc(&d_emb, size_t(30000) * dim * sizeof(float)));
    CK(cudaMemset(d_emb, 0, size_t(30000) * dim * sizeof(float)));
    CK(cudaDeviceSynchronize());

    std::vector<RequestSlot> slots;
    slots.push_back(make_slot());
    slots.push_back(make_slot());

    fill_request(*slots[0].req, 7, 384);
    classify_bow<<<1, 32, 0, slots[0].stream>>>(slots[0].req, d_emb, dim);

    // Slot 1's buffer belongs to slot 1's idle stream: the host may fill it while slot 0 computes.
    fill_request(*slots[1].req, 11, 200);
    classify_bow<<<1, 32, 0, slots[1].stream>>>(slots[1].req, d_emb, dim);

    for (size_t i = 0; i < slots.size(); ++i) {
        CK(cudaStreamSynchronize(slots[i].stream));
        std::printf("request %zu -> class %d\n", i, argmax(slots[i].req->logits, kClasses));
    }

    for (RequestSlot& s : slots) {
        CK(cudaFree(s.req));
        CK(cudaStreamDestroy(s.stream));
    }
    CK(cudaFree(d_emb));
    return 0;
}
