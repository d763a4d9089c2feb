// case: a C-style GPU hash-join operator with layered goto cleanup: each label releases exactly what was acquired before the jump (cudaHostUnregister only after a successful register, cudaFreeAsync/cudaFree for stream-ordered memory after a sync, cudaFreeHost for pinned, free for malloc); correct.
// expect: none
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define HT_SLOTS (1u << 21)
#define EMPTY_KEY 0xffffffffffffffffull

__global__ void build_ht(const long long* keys, size_t n, unsigned long long* ht) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned long long k = (unsigned long long)keys[i];
  unsigned int slot = (unsigned int)((k * 0x9E3779B97F4A7C15ull) >> 43) & (HT_SLOTS - 1);
  while (atomicCAS(&ht[slot], EMPTY_KEY, k) != EMPTY_KEY && ht[slot] != k) slot = (slot + 1) & (HT_SLOTS - 1);
}

__global__ void probe_ht(const long long* keys, size_t n, const unsigned long long* ht, int* hits) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned long long k = (unsigned long long)keys[i];
  unsigned int slot = (unsigned int)((k * 0x9E3779B97F4A7C15ull) >> 43) & (HT_SLOTS - 1);
  int found = 0;
  for (int probes = 0; probes < 64 && ht[slot] != EMPTY_KEY; ++probes) {
    if (ht[slot] == k) { found = 1; break; }
    slot = (slot + 1) & (HT_SLOTS - 1);
  }
  hits[i] = found;
}

static int run_join(size_t nbuild, size_t nprobe, long long* matches_out) {
  int rc = -1;
  size_t i;
  cudaStream_t s;
  long long *h_build = NULL, *h_probe = NULL, *d_build = NULL, *d_probe = NULL;
  unsigned long long* d_ht = NULL;
  int *d_hits = NULL, *h_hits = NULL;
  long long total = 0;
  const size_t bbytes = nbuild * sizeof(long long), pbytes = nprobe * sizeof(long long);
  const size_t htbytes = HT_SLOTS * sizeof(unsigned long long), obytes = nprobe * sizeof(int);

  if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) return -1;
  if (cudaHostAlloc((void**)&h_build, bbytes, cudaHostAllocPortable) != cudaSuccess) goto out_stream;
  h_probe = (long long*)malloc(pbytes);
  if (h_probe == NULL) goto out_build_host;
  if (cudaHostRegister(h_probe, pbytes, cudaHostRegisterDefault) != cudaSuccess) goto out_probe_heap;
  if (cudaMallocHost((void**)&h_hits, obytes) != cudaSuccess) goto out_probe_reg;
  if (cudaMalloc((void**)&d_build, bbytes) != cudaSuccess) goto out_hits_host;
  if (cudaMallocAsync((void**)&d_probe, pbytes, s) != cudaSuccess) goto out_build_dev;
  if (cudaMallocAsync((void**)&d_ht, htbytes, s) != cudaSuccess) goto out_probe_dev;
  if (cudaMalloc((void**)&d_hits, obytes) != cudaSuccess) goto out_ht;

  for (i = 0; i < nbuild; ++i) h_build[i] = (long long)(i * 3);
  for (i = 0; i < nprobe; ++i) h_probe[i] = (long long)(i * 5);
  cudaMemcpyAsync(d_build, h_build, bbytes, cudaMemcpyHostToDevice, s);
  cudaMemcpyAsync(d_probe, h_probe, pbytes, cudaMemcpyHostToDevice, s);
  cudaMemsetAsync(d_ht, 0xff, htbytes, s);
  build_ht<<<(unsigned)((nbuild + 255) / 256), 256, 0, s>>>(d_build, nbuild, d_ht);
  probe_ht<<<(unsigned)((nprobe + 255) / 256), 256, 0, s>>>(d_probe, nprobe, d_ht, d_hits);
  cudaMemcpyAsync(h_hits, d_hits, obytes, cudaMemcpyDeviceToHost, s);
  if (cudaStreamSynchronize(s) != cudaSuccess) goto out_hits_dev;
  for (i = 0; i < nprobe; ++i) total += h_hits[i];
  *matches_out = total;
  rc = 0;

out_hits_dev:
  cudaStreamSynchronize(s);
  cudaFree(d_hits);
out_ht:
  cudaFreeAsync(d_ht, s);
out_probe_dev:
  cudaFreeAsync(d_probe, s);
  cudaStreamSynchronize(s);
out_build_dev:
  cudaFree(d_build);
out_hits_host:
  cudaFreeHost(h_hits);
out_probe_reg:
  cudaHostUnregister(h_probe);
out_probe_heap:
  free(h_probe);
out_build_host:
  cudaFreeHost(h_build);
out_stream:
  cudaStreamDestroy(s);
  return rc;
}

int main(void) {
  long long matches = 0;
  if (run_join(1u << 20, 3u << 20, &matches) != 0) {
    fprintf(stderr, "join failed\n");
    return 1;
  }
  printf("join produced %lld matches\n", matches);
  return 0;
}
