// Shapes of real host code (NVIDIA's cuda-samples took them): branches that test one flag twice,
// switches on an allocation mode, polling loops, exit(), sizeof, stream-ordered frees, graph
// capture, volatile flags a kernel polls. Annotated lines must be reported; ok_* stay silent.
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void scale(float* x, int n) { x[threadIdx.x] *= 2.0f; }
__global__ void delay(volatile int* flag, unsigned long long timeout = 10000000) {
    while (*flag == 0) {}
}

float ok_same_flag_tested_twice(int n, bool async) {
    float *h, *d;
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMallocHost(&h, n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
    if (async) {
        cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    } else {
        cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
    }
    if (async) {
        cudaStreamSynchronize(s);
    }
    return h[0];
}

float fires_flag_tested_the_wrong_way(int n, bool async) {
    float *h, *d;
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMallocHost(&h, n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
    if (async) {
        cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    }
    if (!async) {
        cudaStreamSynchronize(s);
    }
    return h[0]; //~ missing_sync
}

enum Mode { PAGEABLE, PINNED };

void ok_switch_allocates_and_frees_to_match(int n, Mode mode) {
    float* h = NULL;
    switch (mode) {
    case PAGEABLE:
        h = (float*)malloc(n * sizeof(float));
        break;
    case PINNED:
        cudaMallocHost(&h, n * sizeof(float));
        break;
    }
    h[0] = 1.0f;
    switch (mode) {
    case PAGEABLE:
        free(h);
        break;
    case PINNED:
        cudaFreeHost(h);
        break;
    }
}

float ok_poll_until_the_event_completes(int n) {
    float *h, *d;
    cudaStream_t s;
    cudaEvent_t done;
    cudaStreamCreate(&s);
    cudaEventCreate(&done);
    cudaMallocHost(&h, n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaEventRecord(done, s);
    long spins = 0;
    while (cudaEventQuery(done) == cudaErrorNotReady) {
        spins++;
    }
    return h[0];
}

int ok_sizeof_of_a_device_pointee(int n) {
    float* d;
    cudaMalloc(&d, n * sizeof(*d));
    return (int)sizeof(*d);
}

void ok_exit_ends_the_path(int n, bool supported) {
    float *h, *d;
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMallocHost(&h, n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    if (!supported) {
        exit(2);
    }
    cudaStreamSynchronize(s);
    h[0] = 0.0f;
}

void ok_stream_ordered_free_after_work_on_its_stream(int n, const float* src) {
    float* d;
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMallocAsync(&d, n * sizeof(float), s);
    scale<<<1, 256, 0, s>>>(d, n);
    cudaFreeAsync(d, s);
    cudaStreamSynchronize(s);
}

void fires_stream_ordered_free_on_another_stream(int n) {
    float* d;
    cudaStream_t a, b;
    cudaStreamCreate(&a);
    cudaStreamCreate(&b);
    cudaMallocAsync(&d, n * sizeof(float), a);
    scale<<<1, 256, 0, a>>>(d, n);
    cudaFreeAsync(d, b); //~ missing_sync
    cudaDeviceSynchronize();
}

void ok_work_captured_into_a_graph_is_not_running(int n) {
    float* h;
    float* d;
    cudaStream_t s;
    cudaGraph_t graph;
    cudaStreamCreate(&s);
    cudaMallocHost(&h, n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaStreamEndCapture(s, &graph);
    h[0] = 1.0f;
}

void ok_host_sets_the_flag_a_kernel_polls(void) {
    int* flag;
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaHostAlloc((void**)&flag, sizeof(int), cudaHostAllocPortable);
    *flag = 0;
    delay<<<1, 1, 0, s>>>(flag);
    *flag = 1;
    cudaStreamSynchronize(s);
}

// A loop counter is its first value in the first round only: `if (i > 0)` waits in every round
// but the first, before which nothing was in flight.
void ok_wait_skipped_only_in_the_first_round(float* d, int n, int rounds) {
    float* h;
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMallocHost(&h, n * sizeof(float));
    for (int i = 0; i < rounds; ++i) {
        if (i > 0) cudaStreamSynchronize(s);
        h[0] = (float)i;
        cudaMemcpyAsync(d, h, n * sizeof(float), cudaMemcpyHostToDevice, s);
    }
    cudaStreamSynchronize(s);
}

void fires_wait_skipped_in_the_second_round_too(float* d, int n, int rounds) {
    float* h;
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMallocHost(&h, n * sizeof(float));
    for (int i = 0; i < rounds; ++i) {
        if (i > 1) cudaStreamSynchronize(s);
        h[0] = (float)i; //~ missing_sync
        cudaMemcpyAsync(d, h, n * sizeof(float), cudaMemcpyHostToDevice, s);
    }
    cudaStreamSynchronize(s);
}

// A loop with no condition is left only by `return` (or `throw`): the poll returns once the
// stream is done, and no path goes on past the loop.
static void wait_by_polling(cudaStream_t s) {
    for (;;) {
        if (cudaStreamQuery(s) == cudaSuccess) return;
    }
}

static void poll_a_few_times(cudaStream_t s) {
    for (int tries = 0; tries < 3; ++tries) {
        if (cudaStreamQuery(s) == cudaSuccess) return;
    }
}

float ok_read_after_an_endless_poll_returns(float* d, int n, cudaStream_t s) {
    float* h;
    cudaMallocHost(&h, n * sizeof(float));
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    wait_by_polling(s);
    return h[0];
}

float fires_read_after_a_poll_that_may_give_up(float* d, int n, cudaStream_t s) {
    float* h;
    cudaMallocHost(&h, n * sizeof(float));
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    poll_a_few_times(s);
    return h[0]; //~ missing_sync
}

// The snippets above leave out uploads, copies back and frees that are not what they test.
// cuda-lint: allow-file(device_memory_leak, uninitialized_device_read, unread_kernel_output)

#include <cstdio>

// `fread(&n, ..) != 1 || n == 0`: what the condition reads into `n` is not the `0` it was
// declared with, so the path past the early return is live and its copy is checked.
void reads_a_count_then_uploads_async(FILE* f, float* d, cudaStream_t s) {
    unsigned n = 0;
    if (fread(&n, sizeof n, 1, f) != 1 || n == 0) {
        return;
    }
    float* h = (float*)malloc(n * sizeof(float));
    cudaMemcpyAsync(d, h, n * sizeof(float), cudaMemcpyHostToDevice, s); //~ pageable_async_copy
    cudaStreamSynchronize(s);
    free(h);
}
