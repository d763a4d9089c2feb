// The C++ object model: a class's constructor runs where an object is made (its initializer
// list and default member initializers included), its methods run on their object (members
// named bare or through `this->`), its destructor where the object ends (the end of its block,
// an early `return`, `delete`), members that are objects or containers, base classes, and
// aliases of types. A method no caller in the file runs is analysed on an object its
// constructors made. Lines that must be reported end with an annotation; ok_* stay silent.
#include <cuda_runtime.h>
#include <cstdio>
#include <memory>
#include <vector>

__global__ void scale(float* x, int n);

class Staging {
  public:
    Staging(int n, cudaStream_t s) : n_(n), stream_(s) {
        cudaMalloc(&d_, n * sizeof(float));
        cudaMallocHost(&h_, n * sizeof(float));
    }
    ~Staging() {
        cudaStreamSynchronize(stream_);
        cudaFree(d_);
        cudaFreeHost(h_);
    }
    void download() {
        cudaMemcpyAsync(h_, d_, n_ * sizeof(float), cudaMemcpyDeviceToHost, stream_);
    }
    void wait() { cudaStreamSynchronize(stream_); }
    // Reads right after its own download: the copy may still be writing.
    float fires_first_after_download() {
        download();
        return this->h_[0]; //~ missing_sync
    }
    float ok_first_after_wait() {
        download();
        wait();
        return h_[0];
    }
    // The device buffer read on the host, named bare.
    float fires_peek_device() {
        wait();
        return d_[0]; //~ host_deref_device_ptr
    }
    float* host() { return h_; }

  private:
    int n_;
    cudaStream_t stream_ = nullptr;
    float* d_ = nullptr;
    float* h_ = nullptr;
};

float fires_method_then_read(cudaStream_t s) {
    Staging st(256, s);
    st.download();
    float* h = st.host();
    return h[1]; //~ missing_sync
}

float ok_method_then_wait_then_read(cudaStream_t s) {
    Staging st(256, s);
    st.download();
    st.wait();
    return st.host()[1];
}

// A destructor that releases with the wrong function, seen wherever the object is analysed.
class WrongRelease {
  public:
    explicit WrongRelease(size_t n) { cudaMallocHost(&pinned_, n); }
    ~WrongRelease() {
        cudaFree(pinned_); //~ mismatched_free
    }

  private:
    void* pinned_ = nullptr;
};

class RightRelease {
  public:
    explicit RightRelease(size_t n) { cudaMallocHost(&pinned_, n); }
    ~RightRelease() { cudaFreeHost(pinned_); }

  private:
    void* pinned_ = nullptr;
};

// A guard that reads the result when it ends: at the block's end, or on a `return` leaving it.
class Reporter {
  public:
    explicit Reporter(const float* h) : h_(h) {}
    ~Reporter() {
        std::printf("%f\n", h_[0]); //~ missing_sync
    }

  private:
    const float* h_;
};

// Containers as members: a `std::vector` member is pageable host memory.
using HostVec = std::vector<float>;

class Uploader {
  public:
    Uploader(size_t n) : host_(n) {
        cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking);
        cudaMalloc(&dev_, n * sizeof(float));
    }
    void fires_upload_from_vector() {
        cudaMemcpyAsync(dev_, host_.data(), host_.size() * sizeof(float), cudaMemcpyHostToDevice, s_); //~ pageable_async_copy
    }
    void ok_upload_from_pinned() {
        cudaMemcpyAsync(dev_, pinned_, 16 * sizeof(float), cudaMemcpyHostToDevice, s_);
    }
    void set_pinned() { cudaMallocHost(&pinned_, 16 * sizeof(float)); }

  private:
    HostVec host_;
    float* dev_ = nullptr;
    float* pinned_ = nullptr;
    cudaStream_t s_;
};

// A member object (RAII) and a base class.
class PinnedBlock {
  public:
    explicit PinnedBlock(size_t n) { cudaMallocHost(&p_, n * sizeof(int)); }
    ~PinnedBlock() { cudaFreeHost(p_); }
    int* get() { return p_; }

  private:
    int* p_ = nullptr;
};

class Counter {
  public:
    Counter() : block_(4) { cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking); }
    int fires_count(const int* d_count) {
        cudaMemcpyAsync(block_.get(), d_count, sizeof(int), cudaMemcpyDeviceToHost, s_);
        return block_.get()[0]; //~ missing_sync
    }
    int ok_count(const int* d_count) {
        cudaMemcpyAsync(block_.get(), d_count, sizeof(int), cudaMemcpyDeviceToHost, s_);
        cudaStreamSynchronize(s_);
        return block_.get()[0];
    }

  private:
    PinnedBlock block_;
    cudaStream_t s_;
};

class DeviceArray {
  protected:
    float* data_ = nullptr;

  public:
    explicit DeviceArray(size_t n) { cudaMalloc(&data_, n * sizeof(float)); }
};

class Field : public DeviceArray {
  public:
    Field(size_t n) : DeviceArray(n) {}
    float fires_probe() {
        return data_[0]; //~ host_deref_device_ptr
    }
};

// Objects made with `new` and `std::make_unique`, ended with `delete` and at the block's end.
float fires_new_object(cudaStream_t s) {
    Staging* st = new Staging(64, s);
    st->download();
    float v = st->host()[0]; //~ missing_sync
    delete st;
    return v;
}

float ok_unique_object(cudaStream_t s) {
    auto st = std::make_unique<Staging>(64, s);
    st->download();
    st->wait();
    return st->host()[0];
}

// An early return ends the objects made before it: the guard reads before the wait.
int fires_early_return(bool skip, const float* d, cudaStream_t s) {
    float* h;
    cudaMallocHost(&h, 64 * sizeof(float));
    Reporter r(h);
    cudaMemcpyAsync(h, d, 64 * sizeof(float), cudaMemcpyDeviceToHost, s);
    if (skip) {
        return 0;
    }
    cudaStreamSynchronize(s);
    return 1;
}

int ok_guard_ends_after_wait(const float* d, cudaStream_t s) {
    float* h;
    cudaMallocHost(&h, 64 * sizeof(float));
    {
        Reporter r(h);
        cudaMemcpyAsync(h, d, 64 * sizeof(float), cudaMemcpyDeviceToHost, s);
        cudaStreamSynchronize(s);
    }
    return 1;
}

// Smart pointers: the deleter is the release function, checked where the pointer is handed over.
struct PinnedDeleter {
    void operator()(float* p) const { cudaFreeHost(p); }
};
struct DeviceDeleter {
    void operator()(float* p) const {
        cudaFree(p); //~ mismatched_free
    }
};
template <typename T> using pinned_ptr = std::unique_ptr<T[], PinnedDeleter>;
template <typename T> using device_ptr = std::unique_ptr<T[], DeviceDeleter>;

void fires_deleter_struct_mismatch(size_t n) {
    float* raw;
    cudaMallocHost(&raw, n * sizeof(float));
    device_ptr<float> p(raw);
}

void ok_deleter_struct_matches(size_t n) {
    float* raw;
    cudaMallocHost(&raw, n * sizeof(float));
    pinned_ptr<float> p(raw);
}

void fires_function_deleter_mismatch(size_t n) {
    float* raw;
    cudaMalloc(&raw, n * sizeof(float));
    std::unique_ptr<float, decltype(&cudaFreeHost)> p(raw, &cudaFreeHost); //~ mismatched_free
}

void ok_function_deleter_matches(size_t n) {
    float* raw;
    cudaMalloc(&raw, n * sizeof(float));
    std::unique_ptr<float, decltype(&cudaFree)> p(raw, &cudaFree);
}

std::shared_ptr<float> fires_lambda_deleter_mismatch(size_t n) {
    float* raw;
    cudaMalloc(&raw, n * sizeof(float));
    return std::shared_ptr<float>(raw, [](float* p) { cudaFreeHost(p); }); //~ mismatched_free
}

std::shared_ptr<float> ok_lambda_deleter_matches(size_t n) {
    float* raw;
    cudaMallocHost(&raw, n * sizeof(float));
    return std::shared_ptr<float>(raw, [](float* p) { cudaFreeHost(p); });
}

void fires_default_delete_of_pinned(size_t n) {
    float* raw;
    cudaMallocHost(&raw, n * sizeof(float));
    std::unique_ptr<float[]> p(raw); //~ mismatched_free
}

class Table {
  public:
    explicit Table(size_t n) {
        float* raw;
        cudaMalloc(&raw, n * sizeof(float));
        data_ = std::shared_ptr<float>(raw, [](float* p) { cudaFree(p); });
    }

  private:
    std::shared_ptr<float> data_;
};

// A factory returns its object by value; a temporary `Staging(..)` initializes a variable;
// member objects are initialized from a factory (no constructor of their own: a copy).
struct Frame {
    float* data = nullptr;
    int n = 0;
};
inline Frame make_frame(int n) {
    Frame f;
    f.n = n;
    cudaMallocManaged(&f.data, n * sizeof(float));
    return f;
}
class DoubleBuffer {
  public:
    explicit DoubleBuffer(int n) : front_(make_frame(n)), back_(make_frame(n)) {
        cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking);
    }
    Frame& front() { return front_; }
    Frame& back() { return back_; }
    void release() {
        cudaFreeHost(front_.data); //~ mismatched_free
    }

  private:
    Frame front_;
    Frame back_;
    cudaStream_t s_;
};

float fires_temporary_initializes_the_variable(const float* d, cudaStream_t s) {
    Staging st = Staging(64, s);
    st.download();
    return st.host()[0]; //~ missing_sync
}

// A member set to managed or device memory by a flag: `at()` throws unless it is managed, and
// `operator[]` runs on the device too (a `__host__ __device__` macro): neither is a host
// dereference of device memory.
#define HD __host__ __device__
class Buffer {
  public:
    Buffer(size_t n, bool managed) : managed_(managed) {
        if (managed_) {
            cudaMallocManaged(&data_, n * sizeof(float));
        } else {
            cudaMalloc(&data_, n * sizeof(float));
        }
    }
    float& at(size_t i) {
        if (!managed_) {
            throw 1;
        }
        return data_[i];
    }
    HD float& operator[](size_t i) { return data_[i]; }

  private:
    bool managed_;
    float* data_ = nullptr;
};

float fires_device_buffer_read_after_a_throw_that_did_not_happen(size_t n) {
    float* d;
    cudaMalloc(&d, n * sizeof(float));
    if (n == 0) {
        throw 2;
    }
    return d[0]; //~ host_deref_device_ptr
}

// A static factory (`Owned::adopt`) and a move assignment into a member: the member owns what
// the factory was given, and its `reset` releases it.
template <typename T> class Owned {
  public:
    Owned() = default;
    static Owned allocate(size_t n) {
        T* p = nullptr;
        cudaMalloc(&p, n * sizeof(T));
        return Owned(p);
    }
    static Owned adopt(T* p) { return Owned(p); }
    explicit Owned(T* p) : ptr_(p) {}
    void reset() {
        cudaFree(ptr_); //~ mismatched_free
        ptr_ = nullptr;
    }

  private:
    T* ptr_ = nullptr;
};

__device__ unsigned int g_bins[256];

class Stage {
  public:
    Stage() : data_(Owned<float>::allocate(1024)) {
        unsigned int* bins = nullptr;
        cudaGetSymbolAddress(reinterpret_cast<void**>(&bins), g_bins);
        bins_ = Owned<unsigned int>::adopt(bins);
    }
    void release() {
        data_.reset();
        bins_.reset();
    }

  private:
    Owned<float> data_;
    Owned<unsigned int> bins_;
};

// A method named like a function that ends the process (`terminate`) is the class's method.
class Plugin {
  public:
    int initialize() {
        cudaMallocHost(&staging_, 4096);
        return 0;
    }
    void terminate() {
        cudaFree(staging_); //~ mismatched_free
        staging_ = nullptr;
    }

  private:
    void* staging_ = nullptr;
};

int fires_plugin_lifecycle() {
    Plugin p;
    p.initialize();
    p.terminate();
    return 0;
}

// `buf[i]` of a class with `operator[]`: the operator returns the element's place, and the
// caller's read or write of it is the access (not the operator's `return ptr_[i]`).
class WcStaging {
public:
    explicit WcStaging(size_t n) { cudaHostAlloc((void**)&p_, n * sizeof(float), cudaHostAllocWriteCombined); }
    ~WcStaging() { cudaFreeHost(p_); }
    float& operator[](size_t i) { return p_[i]; }
private:
    float* p_ = nullptr;
};

class PinnedReadback {
public:
    explicit PinnedReadback(size_t n) { cudaMallocHost((void**)&p_, n * sizeof(float)); }
    ~PinnedReadback() { cudaFreeHost(p_); }
    const float& operator[](size_t i) const { return p_[i]; }
    float* data() { return p_; }
private:
    float* p_ = nullptr;
};

void ok_writes_through_the_operator_to_write_combined_memory(size_t n) {
    WcStaging s(n);
    for (size_t i = 0; i < n; ++i) s[i] = 0.5f * i;
}

float fires_read_through_the_operator_of_write_combined_memory(size_t n) {
    WcStaging s(n);
    s[0] = 1.0f;
    return s[1]; //~ write_combined_host_read
}

float fires_read_through_the_operator_before_the_copy_lands(float* d, size_t n, cudaStream_t st) {
    PinnedReadback r(n);
    cudaMemcpyAsync(r.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost, st);
    float v = r[0]; //~ missing_sync
    cudaStreamSynchronize(st);
    return v;
}

float ok_read_through_the_operator_after_the_wait(float* d, size_t n, cudaStream_t st) {
    PinnedReadback r(n);
    cudaMemcpyAsync(r.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost, st);
    cudaStreamSynchronize(st);
    return r[0];
}

// The snippets above leave out uploads, copies back and frees that are not what they test.
// cuda-lint: allow-file(device_memory_leak, uninitialized_device_read, unread_kernel_output)

