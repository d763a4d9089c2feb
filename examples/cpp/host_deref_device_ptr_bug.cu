// host_deref_device_ptr, the bug: the host reads device memory through its device address.
//
// 1024 floats (0, 1, 2, ...) are copied into cudaMalloc'd memory and the host then reads d[0].
// A device address is not a host address: on a discrete GPU the read kills the process with a
// segmentation fault (also after cudaDeviceSynchronize), and compute-sanitizer only says
// "process didn't terminate successfully". So that the program can say what happened, the read
// runs in a forked child, and the parent prints how the child ended.
#include <cuda_runtime.h>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/wait.h>
#include <unistd.h>

#define CHECK(call)                                                                        \
    do {                                                                                   \
        cudaError_t err_ = (call);                                                         \
        if (err_ != cudaSuccess) {                                                         \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                  \
                    cudaGetErrorString(err_));                                             \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

int main() {
    const int n = 1024;
    float h[n];
    for (int i = 0; i < n; ++i) h[i] = (float)i;
    float* d;
    CHECK(cudaMalloc(&d, n * sizeof(float)));
    CHECK(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaDeviceSynchronize());

    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        cudaFree(d);
        return 1;
    }
    if (pid == 0) {
        // The child makes no CUDA call: it only touches memory, as the parent would.
        float first = d[0];
        printf("host_deref_device_ptr_bug: the host read %g at device address %p without "
               "faulting (the device holds 0 there)\n", first, (void*)d);
        fflush(stdout);
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        printf("host_deref_device_ptr_bug: reading d[0] (device address %p) on the host killed "
               "the process: signal %d (%s)\n", (void*)d, sig, strsignal(sig));
    } else {
        printf("host_deref_device_ptr_bug: the reading process exited with status %d\n",
               WEXITSTATUS(status));
    }
    CHECK(cudaFree(d));
    return 0;
}
