//! case: near-miss. Multi-stream allocator shares one physical chunk between a producer view and a consumer view (driver VMM via cudarc's sys layer); the producer's memset through one view is recorded on a cudarc event and the consumer stream waits on it before its kernel reads through the other view, so the write is complete before the alias is read
//! expect: none

use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SUM_SRC: &str = r#"
extern "C" __global__ void sum_view(const unsigned* view, unsigned n, unsigned long long* total) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(total, (unsigned long long)view[i]);
}
"#;

fn ck(r: sys::CUresult) -> Result<(), DriverError> {
    r.result()
}

pub struct SharedChunk {
    ctx: Arc<CudaContext>,
    handle: sys::CUmemGenericAllocationHandle,
    producer_va: sys::CUdeviceptr,
    consumer_va: sys::CUdeviceptr,
    bytes: usize,
}

impl SharedChunk {
    pub fn new(ctx: &Arc<CudaContext>, bytes: usize) -> Result<Self, DriverError> {
        ctx.bind_to_thread()?;
        let location = sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: ctx.ordinal() as i32 };
        let prop = sys::CUmemAllocationProp {
            type_: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
            requestedHandleTypes: sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE,
            location,
            win32HandleMetaData: std::ptr::null_mut(),
            allocFlags: sys::CUmemAllocationProp_st__bindgen_ty_1 { compressionType: 0, gpuDirectRDMACapable: 0, usage: 0, reserved: [0; 4] },
        };
        let mut gran = 0;
        ck(unsafe { sys::cuMemGetAllocationGranularity(&mut gran, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM) })?;
        let bytes = bytes.div_ceil(gran) * gran;
        let mut handle = 0;
        ck(unsafe { sys::cuMemCreate(&mut handle, bytes, &prop, 0) })?;
        let access = sys::CUmemAccessDesc { location, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
        let (mut producer_va, mut consumer_va) = (0, 0);
        ck(unsafe { sys::cuMemAddressReserve(&mut producer_va, bytes, 0, 0, 0) })?;
        ck(unsafe { sys::cuMemAddressReserve(&mut consumer_va, bytes, 0, 0, 0) })?;
        ck(unsafe { sys::cuMemMap(producer_va, bytes, 0, handle, 0) })?;
        ck(unsafe { sys::cuMemMap(consumer_va, bytes, 0, handle, 0) })?;
        ck(unsafe { sys::cuMemSetAccess(producer_va, bytes, &access, 1) })?;
        ck(unsafe { sys::cuMemSetAccess(consumer_va, bytes, &access, 1) })?;
        Ok(Self { ctx: ctx.clone(), handle, producer_va, consumer_va, bytes })
    }
}

impl Drop for SharedChunk {
    fn drop(&mut self) {
        let _ = self.ctx.synchronize();
        unsafe {
            let _ = sys::cuMemUnmap(self.producer_va, self.bytes);
            let _ = sys::cuMemUnmap(self.consumer_va, self.bytes);
            let _ = sys::cuMemRelease(self.handle);
            let _ = sys::cuMemAddressFree(self.producer_va, self.bytes);
            let _ = sys::cuMemAddressFree(self.consumer_va, self.bytes);
        }
    }
}

pub struct Handoff {
    producer: Arc<CudaStream>,
    consumer: Arc<CudaStream>,
    sum: CudaFunction,
    chunk: SharedChunk,
    total: CudaSlice<u64>,
}

impl Handoff {
    pub fn new(ctx: &Arc<CudaContext>, bytes: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let producer = ctx.new_stream()?;
        let consumer = ctx.new_stream()?;
        let sum = ctx.load_module(compile_ptx(SUM_SRC)?)?.load_function("sum_view")?;
        let total = consumer.alloc_zeros::<u64>(1)?;
        Ok(Self { producer, consumer, sum, chunk: SharedChunk::new(ctx, bytes)?, total })
    }

    /// Fills the chunk with `pattern` on the producer stream and sums it on the consumer stream.
    pub fn fill_and_sum(&mut self, pattern: u32) -> Result<u64, DriverError> {
        let words = self.chunk.bytes / 4;
        ck(unsafe { sys::cuMemsetD32Async(self.chunk.producer_va, pattern, words, self.producer.cu_stream()) })?;
        let filled = self.producer.record_event(None)?;
        self.consumer.wait(&filled)?;
        self.consumer.memset_zeros(&mut self.total)?;
        let (view, n) = (self.chunk.consumer_va, words as u32);
        unsafe { self.consumer.launch_builder(&self.sum).arg(&view).arg(&n).arg(&mut self.total).launch(LaunchConfig::for_num_elems(n)) }?;
        let out = self.consumer.clone_dtoh(&self.total)?;
        Ok(out[0])
    }
}
