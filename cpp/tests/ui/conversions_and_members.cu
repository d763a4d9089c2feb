// Host accesses the analysis must see through C++: a buffer class converting to its raw pointer
// (`operator T*()`) indexed or dereferenced on the host, a container filled from a pinned range
// (`out.assign(first, last)`), and a member of a struct embedded in pinned memory written through
// the pointer (`h->hdr.seq = ..`). Lines that must be reported end with an annotation; ok_*
// functions stay silent.
// cuda-lint: allow-file(uninitialized_device_read, device_memory_leak)
#include <cuda_runtime.h>
#include <vector>

template <typename T>
class DeviceBuffer {
  public:
    explicit DeviceBuffer(size_t n) : n_(n) { cudaMalloc(&ptr_, n * sizeof(T)); }
    ~DeviceBuffer() { cudaFree(ptr_); }
    operator T*() const { return ptr_; }
    void download(T* host) const { cudaMemcpy(host, ptr_, n_ * sizeof(T), cudaMemcpyDeviceToHost); }

  private:
    T* ptr_ = nullptr;
    size_t n_;
};

__global__ void mark(int* labels, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) labels[i] = i & 1;
}

int count_through_conversion(int n) {
    DeviceBuffer<int> labels(n);
    mark<<<(n + 255) / 256, 256>>>(labels, n);
    cudaDeviceSynchronize();
    int total = 0;
    for (int i = 0; i < n; ++i) total += labels[i]; //~ host_deref_device_ptr
    return total;
}

int first_through_conversion(int n) {
    DeviceBuffer<int> labels(n);
    mark<<<(n + 255) / 256, 256>>>(labels, n);
    cudaDeviceSynchronize();
    return *labels; //~ host_deref_device_ptr
}

int ok_count_after_download(int n) {
    DeviceBuffer<int> labels(n);
    mark<<<(n + 255) / 256, 256>>>(labels, n);
    std::vector<int> host(n);
    labels.download(host.data());
    int total = 0;
    for (int i = 0; i < n; ++i) total += host[i];
    return total;
}

void collect_without_wait(std::vector<float>& out, const float* d_logits, int classes, cudaStream_t s) {
    float* h_logits;
    cudaMallocHost(&h_logits, classes * sizeof(float));
    cudaMemcpyAsync(h_logits, d_logits, classes * sizeof(float), cudaMemcpyDeviceToHost, s);
    out.assign(h_logits, h_logits + classes); //~ missing_sync
    cudaStreamSynchronize(s);
    cudaFreeHost(h_logits);
}

void ok_collect_after_wait(std::vector<float>& out, const float* d_logits, int classes, cudaStream_t s) {
    float* h_logits;
    cudaMallocHost(&h_logits, classes * sizeof(float));
    cudaMemcpyAsync(h_logits, d_logits, classes * sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    out.assign(h_logits, h_logits + classes);
    cudaFreeHost(h_logits);
}

struct Header {
    unsigned seq;
    unsigned count;
};
struct Request {
    Header hdr;
    float payload[1024];
};

void stamp_while_uploading(Request* d_req, cudaStream_t s) {
    Request* h_req;
    cudaMallocHost(&h_req, sizeof(Request));
    h_req->hdr.seq = 1;
    cudaMemcpyAsync(d_req, h_req, sizeof(Request), cudaMemcpyHostToDevice, s);
    h_req->hdr.seq += 1; //~ missing_sync
    cudaStreamSynchronize(s);
    cudaFreeHost(h_req);
}

void ok_stamp_after_upload(Request* d_req, cudaStream_t s) {
    Request* h_req;
    cudaMallocHost(&h_req, sizeof(Request));
    h_req->hdr.seq = 1;
    cudaMemcpyAsync(d_req, h_req, sizeof(Request), cudaMemcpyHostToDevice, s);
    cudaStreamSynchronize(s);
    h_req->hdr.seq += 1;
    cudaFreeHost(h_req);
}
