//! case: a producer/consumer pair on two streams sharing one VMM allocation through two mappings; the consumer stream waits on an event recorded after the producer kernel
//! expect: none
use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaFunction, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void produce(float* tiles, unsigned n, float step) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) tiles[i] = step * (float)i;
}
extern "C" __global__ void consume(const float* tiles, float* out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tiles[i] * 0.5f;
}
"#;

/// One physical allocation, mapped once for the producer and once for the consumer.
struct SharedTiles {
    producer_va: sys::CUdeviceptr,
    consumer_va: sys::CUdeviceptr,
    bytes: usize,
    handle: sys::CUmemGenericAllocationHandle,
}

impl SharedTiles {
    fn new(dev: i32, bytes: usize) -> Result<Self, DriverError> {
        let loc = sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: dev };
        let prop = sys::CUmemAllocationProp {
            type_: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
            requestedHandleTypes: sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE,
            location: loc,
            win32HandleMetaData: std::ptr::null_mut(),
            allocFlags: sys::CUmemAllocationProp_st__bindgen_ty_1 { compressionType: 0, gpuDirectRDMACapable: 0, usage: 0, reserved: [0; 4] },
        };
        let access = sys::CUmemAccessDesc { location: loc, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
        let mut t = Self { producer_va: 0, consumer_va: 0, bytes, handle: 0 };
        unsafe {
            sys::cuMemCreate(&mut t.handle, bytes, &prop, 0).result()?;
            for va in [&mut t.producer_va, &mut t.consumer_va] {
                sys::cuMemAddressReserve(va, bytes, 0, 0, 0).result()?;
                sys::cuMemMap(*va, bytes, 0, t.handle, 0).result()?;
                sys::cuMemSetAccess(*va, bytes, &access, 1).result()?;
            }
        }
        Ok(t)
    }
}

impl Drop for SharedTiles {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuCtxSynchronize();
            for va in [self.producer_va, self.consumer_va] {
                let _ = sys::cuMemUnmap(va, self.bytes);
                let _ = sys::cuMemAddressFree(va, self.bytes);
            }
            let _ = sys::cuMemRelease(self.handle);
        }
    }
}

pub struct Pipeline {
    producer: Arc<CudaStream>,
    consumer: Arc<CudaStream>,
    produce: CudaFunction,
    consume: CudaFunction,
}

impl Pipeline {
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self, Box<dyn std::error::Error>> {
        let module = ctx.load_module(compile_ptx(SRC)?)?;
        Ok(Self {
            producer: ctx.new_stream()?,
            consumer: ctx.new_stream()?,
            produce: module.load_function("produce")?,
            consume: module.load_function("consume")?,
        })
    }

    fn step(&self, tiles: &SharedTiles, out: sys::CUdeviceptr, n: u32, step: f32) -> Result<(), DriverError> {
        let cfg = LaunchConfig::for_num_elems(n);
        unsafe { self.producer.launch_builder(&self.produce).arg(&tiles.producer_va).arg(&n).arg(&step).launch(cfg)? };
        let ready = self.producer.record_event(None)?;
        self.consumer.wait(&ready)?;
        unsafe { self.consumer.launch_builder(&self.consume).arg(&tiles.consumer_va).arg(&out).arg(&n).launch(cfg)? };
        Ok(())
    }
}

pub fn run(ctx: &Arc<CudaContext>, steps: usize) -> Result<(), Box<dyn std::error::Error>> {
    let pipe = Pipeline::new(ctx)?;
    let n = 1u32 << 20;
    let tiles = SharedTiles::new(ctx.cu_device(), 4 << 20)?;
    let mut out = 0;
    unsafe { sys::cuMemAlloc_v2(&mut out, n as usize * 4).result()? };
    for s in 0..steps {
        pipe.step(&tiles, out, n, s as f32)?;
        // the next producer kernel overwrites the tiles: wait for the consumer first
        pipe.producer.join(&pipe.consumer)?;
    }
    pipe.consumer.synchronize()?;
    unsafe { sys::cuMemFree_v2(out).result()? };
    Ok(())
}
