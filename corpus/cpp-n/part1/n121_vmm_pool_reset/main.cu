// case: Activation pool on a VMM reservation (helpers in vmm_util.cuh) is reset to a larger physical allocation between phases: the new mapping is memset before vmm_grant gives it access (a fresh mapping starts with none), and at shutdown the reservation is freed with cuMemAddressFree while the allocation is still mapped (unmapped only after).
// expect: vmm_lifecycle=2
#include "vmm_util.cuh"
#include <cuda_runtime.h>

__global__ void relu_inplace(float* a, size_t n) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) a[i] = a[i] > 0.f ? a[i] : 0.f;
}

int main() {
  CU_CHECK(cuInit(0));
  CUdevice dev;
  CU_CHECK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU_CHECK(cuCtxSetCurrent(ctx));
  CUstream stream;
  CU_CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));

  const size_t gran = vmm_granularity(dev);
  const size_t reserve_bytes = 64 * gran;
  CUdeviceptr pool;
  CU_CHECK(cuMemAddressReserve(&pool, reserve_bytes, 0, 0, 0));

  // Phase 1: small working set.
  size_t cap = vmm_round_up(4 * gran, gran);
  CUmemGenericAllocationHandle h = vmm_create(cap, dev);
  CU_CHECK(cuMemMap(pool, cap, 0, h, 0));
  vmm_grant(pool, cap, dev);
  CU_CHECK(cuMemsetD32Async(pool, 0, cap / 4, stream));
  relu_inplace<<<unsigned((cap / 4 + 255) / 256), 256, 0, stream>>>((float*)pool, cap / 4);
  CU_CHECK(cuStreamSynchronize(stream));

  // Phase 2: drop the old block and map a larger one at the same address.
  CU_CHECK(cuMemUnmap(pool, cap));
  CU_CHECK(cuMemRelease(h));
  cap = vmm_round_up(16 * gran, gran);
  h = vmm_create(cap, dev);
  CU_CHECK(cuMemMap(pool, cap, 0, h, 0));
  CU_CHECK(cuMemsetD32Async(pool, 0, cap / 4, stream));  // EXPECT: vmm_lifecycle
  vmm_grant(pool, cap, dev);
  relu_inplace<<<unsigned((cap / 4 + 255) / 256), 256, 0, stream>>>((float*)pool, cap / 4);
  CU_CHECK(cuStreamSynchronize(stream));

  // Shutdown.
  CU_CHECK(cuMemAddressFree(pool, reserve_bytes));  // EXPECT: vmm_lifecycle
  CU_CHECK(cuMemUnmap(pool, cap));
  CU_CHECK(cuMemRelease(h));
  CU_CHECK(cuStreamDestroy(stream));
  CU_CHECK(cuDevicePrimaryCtxRelease(dev));
  printf("pool done\n");
  return 0;
}
