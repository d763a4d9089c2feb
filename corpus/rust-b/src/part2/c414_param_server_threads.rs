//! case: a parameter server maps its weights twice (master and replica); the updater thread writes through the master on its stream while the inference thread reads the replica on another, with no event between them
//! expect: unfenced_vmm_alias=1
use std::sync::Arc;
use std::thread;

use cudarc::driver::{sys, CudaContext, CudaFunction, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void sgd_update(float* w, const float* g, float lr, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) w[i] -= lr * g[i];
}
extern "C" __global__ void infer_dot(const float* w, const float* x, float* y, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = w[i] * x[i];
}
"#;

#[derive(Clone, Copy)]
struct WeightViews {
    master: sys::CUdeviceptr,
    replica: sys::CUdeviceptr,
    bytes: usize,
}

fn map_twice(dev: i32, bytes: usize) -> Result<(WeightViews, sys::CUmemGenericAllocationHandle), DriverError> {
    let loc = sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: dev };
    let prop = sys::CUmemAllocationProp {
        type_: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
        requestedHandleTypes: sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE,
        location: loc,
        win32HandleMetaData: std::ptr::null_mut(),
        allocFlags: sys::CUmemAllocationProp_st__bindgen_ty_1 { compressionType: 0, gpuDirectRDMACapable: 0, usage: 0, reserved: [0; 4] },
    };
    let access = sys::CUmemAccessDesc { location: loc, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
    let (mut handle, mut master, mut replica) = (0, 0, 0);
    unsafe {
        sys::cuMemCreate(&mut handle, bytes, &prop, 0).result()?;
        sys::cuMemAddressReserve(&mut master, bytes, 0, 0, 0).result()?;
        sys::cuMemAddressReserve(&mut replica, bytes, 0, 0, 0).result()?;
        sys::cuMemMap(master, bytes, 0, handle, 0).result()?;
        sys::cuMemMap(replica, bytes, 0, handle, 0).result()?;
        sys::cuMemSetAccess(master, bytes, &access, 1).result()?;
        sys::cuMemSetAccess(replica, bytes, &access, 1).result()?;
    }
    Ok((WeightViews { master, replica, bytes }, handle))
}

fn updater(stream: Arc<CudaStream>, f: &CudaFunction, w: WeightViews, grads: sys::CUdeviceptr, steps: usize) -> Result<(), DriverError> {
    let n = (w.bytes / 4) as u32;
    let lr = 1e-3f32;
    for _ in 0..steps {
        unsafe { stream.launch_builder(f).arg(&w.master).arg(&grads).arg(&lr).arg(&n).launch(LaunchConfig::for_num_elems(n))? };
    }
    stream.synchronize()
}

fn server(stream: Arc<CudaStream>, f: &CudaFunction, w: WeightViews, x: sys::CUdeviceptr, y: sys::CUdeviceptr, requests: usize) -> Result<(), DriverError> {
    let n = (w.bytes / 4) as u32;
    for _ in 0..requests {
        let mut b = stream.launch_builder(f);
        b.arg(&w.replica).arg(&x).arg(&y).arg(&n);
        unsafe { b.launch(LaunchConfig::for_num_elems(n))? }; // EXPECT: unfenced_vmm_alias
        stream.synchronize()?;
    }
    Ok(())
}

pub fn serve_while_training(ctx: &Arc<CudaContext>) -> Result<(), Box<dyn std::error::Error>> {
    let module = ctx.load_module(compile_ptx(SRC)?)?;
    let sgd = module.load_function("sgd_update")?;
    let dot = module.load_function("infer_dot")?;
    let bytes = 8 << 20;
    let (views, handle) = map_twice(ctx.cu_device(), bytes)?;
    let (mut grads, mut x, mut y) = (0, 0, 0);
    unsafe {
        for p in [&mut grads, &mut x, &mut y] {
            sys::cuMemAlloc_v2(p, bytes).result()?;
            sys::cuMemsetD8_v2(*p, 0, bytes).result()?;
        }
        // the memsets run on the legacy stream; the worker streams are non-blocking
        sys::cuCtxSynchronize().result()?;
    }
    let train_stream = ctx.new_stream()?;
    let serve_stream = ctx.new_stream()?;
    thread::scope(|s| -> Result<(), DriverError> {
        let t = s.spawn(|| updater(train_stream, &sgd, views, grads, 100));
        server(serve_stream, &dot, views, x, y, 1000)?;
        t.join().expect("updater panicked")
    })?;
    unsafe {
        for p in [grads, x, y] {
            sys::cuMemFree_v2(p).result()?;
        }
        for va in [views.master, views.replica] {
            sys::cuMemUnmap(va, bytes).result()?;
            sys::cuMemAddressFree(va, bytes).result()?;
        }
        sys::cuMemRelease(handle).result()?;
    }
    Ok(())
}
