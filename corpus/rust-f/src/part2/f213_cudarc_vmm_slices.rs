//! case: cudarc program maps one VMM allocation at two addresses with driver::sys and wraps each as a CudaSlice (upgrade_device_ptr) on its own stream; the writer kernel runs on one stream and the reader kernel on the other, and cudarc's per-slice events never order the two slices
//! expect: unfenced_vmm_alias=1
use cudarc::driver::sys;
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::sync::Arc;

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

const SRC: &str = r#"
extern "C" __global__ void write_tokens(int* table, const int* ids, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) table[i] = ids[i] * 2 + 1;
}
extern "C" __global__ void gather_tokens(const int* table, int* out, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = table[n - 1 - i];
}
"#;

struct AliasedTable {
    va_a: sys::CUdeviceptr,
    va_b: sys::CUdeviceptr,
    bytes: usize,
    handle: sys::CUmemGenericAllocationHandle,
}

impl AliasedTable {
    fn new(ctx: &Arc<CudaContext>, n: usize) -> Result<Self, DriverError> {
        ctx.bind_to_thread()?;
        let mut prop: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = ctx.cu_device();
        let mut gran = 0usize;
        let (mut handle, mut va_a, mut va_b) = (0, 0, 0);
        unsafe {
            sys::cuMemGetAllocationGranularity(&mut gran, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM)
                .result()?;
            let bytes = (n * 4).div_ceil(gran) * gran;
            sys::cuMemCreate(&mut handle, bytes, &prop, 0).result()?;
            sys::cuMemAddressReserve(&mut va_a, bytes, 0, 0, 0).result()?;
            sys::cuMemAddressReserve(&mut va_b, bytes, 0, 0, 0).result()?;
            sys::cuMemMap(va_a, bytes, 0, handle, 0).result()?;
            sys::cuMemMap(va_b, bytes, 0, handle, 0).result()?;
            let mut access: sys::CUmemAccessDesc = std::mem::zeroed();
            access.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
            access.location.id = ctx.cu_device();
            access.flags = sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
            sys::cuMemSetAccess(va_a, bytes, &access, 1).result()?;
            sys::cuMemSetAccess(va_b, bytes, &access, 1).result()?;
            Ok(AliasedTable { va_a, va_b, bytes, handle })
        }
    }
}

impl Drop for AliasedTable {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuCtxSynchronize();
            let _ = sys::cuMemUnmap(self.va_a, self.bytes);
            let _ = sys::cuMemUnmap(self.va_b, self.bytes);
            let _ = sys::cuMemRelease(self.handle);
            let _ = sys::cuMemAddressFree(self.va_a, self.bytes);
            let _ = sys::cuMemAddressFree(self.va_b, self.bytes);
        }
    }
}

pub fn remap_tokens(ids: &CudaSlice<i32>, n: usize) -> Res<Vec<i32>> {
    let ctx = ids.context().clone();
    let writer: Arc<CudaStream> = ctx.new_stream()?;
    let reader: Arc<CudaStream> = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(SRC)?)?;
    let write_tokens = module.load_function("write_tokens")?;
    let gather_tokens = module.load_function("gather_tokens")?;

    let table = AliasedTable::new(&ctx, n)?;
    let mut table_w: CudaSlice<i32> = unsafe { writer.upgrade_device_ptr(table.va_a, n) };
    let table_r: CudaSlice<i32> = unsafe { reader.upgrade_device_ptr(table.va_b, n) };
    let mut out = reader.alloc_zeros::<i32>(n)?;
    let cfg = LaunchConfig::for_num_elems(n as u32);
    let n32 = n as u32;

    unsafe {
        writer.launch_builder(&write_tokens).arg(&mut table_w).arg(ids).arg(&n32).launch(cfg)?;
        reader.launch_builder(&gather_tokens).arg(&table_r).arg(&mut out).arg(&n32).launch(cfg)?; // EXPECT: unfenced_vmm_alias
    }

    let mut host = unsafe { ctx.alloc_pinned_with_flags::<i32>(n, 0) }?;
    reader.memcpy_dtoh(&out, &mut host)?;
    reader.synchronize()?;
    let result = host.as_slice()?.to_vec();

    // The table's memory belongs to the VMM mapping, not to cudarc's allocator.
    let _ = table_w.leak();
    let _ = table_r.leak();
    drop(table);
    Ok(result)
}
