//! case: a mixture-of-LoRA server maps one physical allocation at two reservations (raw VMM driver calls, access granted on both) and wraps each mapping in a cudarc `CudaSlice` with `upgrade_device_ptr`, one per stream; the merge kernel writes through the slice on the update stream and the apply kernel reads through the other slice on the serving stream, and cudarc orders work per slice, so nothing orders the two launches
//! expect: unfenced_vmm_alias=1

use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const MERGE_SRC: &str = r#"
extern "C" __global__ void merge_adapters(float* merged, const float* a, const float* b, float alpha, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) merged[i] = alpha * a[i] + (1.0f - alpha) * b[i];
}

extern "C" __global__ void apply_delta(const float* delta, const float* x, float* y, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] + delta[i] * x[i];
}
"#;

struct Aliased {
    vas: [sys::CUdeviceptr; 2],
    bytes: usize,
    handle: sys::CUmemGenericAllocationHandle,
}

fn map_twice(dev: sys::CUdevice, min_bytes: usize) -> Result<Aliased> {
    let location = sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: dev };
    let prop = sys::CUmemAllocationProp {
        type_: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
        requestedHandleTypes: sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE,
        location,
        win32HandleMetaData: std::ptr::null_mut(),
        allocFlags: sys::CUmemAllocationProp_st__bindgen_ty_1 { compressionType: 0, gpuDirectRDMACapable: 0, usage: 0, reserved: [0; 4] },
    };
    let desc = sys::CUmemAccessDesc { location, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
    let mut gran = 0usize;
    let mut handle = 0;
    let mut vas = [0u64; 2];
    unsafe {
        sys::cuMemGetAllocationGranularity(&mut gran, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM).result()?;
        let bytes = min_bytes.div_ceil(gran) * gran;
        sys::cuMemCreate(&mut handle, bytes, &prop, 0).result()?;
        for va in vas.iter_mut() {
            sys::cuMemAddressReserve(va, bytes, 0, 0, 0).result()?;
            sys::cuMemMap(*va, bytes, 0, handle, 0).result()?;
            sys::cuMemSetAccess(*va, bytes, &desc, 1).result()?;
        }
        Ok(Aliased { vas, bytes, handle })
    }
}

pub struct AdapterServer {
    update: Arc<CudaStream>,
    serve: Arc<CudaStream>,
    merged_w: CudaSlice<f32>,
    merged_r: CudaSlice<f32>,
    aliased: Aliased,
    n: usize,
}

impl AdapterServer {
    pub fn new(ctx: &Arc<CudaContext>, n: usize) -> Result<Self> {
        let aliased = map_twice(ctx.cu_device(), n * 4)?;
        let update = ctx.new_stream()?;
        let serve = ctx.new_stream()?;
        let merged_w = unsafe { update.upgrade_device_ptr::<f32>(aliased.vas[0], n) };
        let merged_r = unsafe { serve.upgrade_device_ptr::<f32>(aliased.vas[1], n) };
        Ok(AdapterServer { update, serve, merged_w, merged_r, aliased, n })
    }

    pub fn merge_and_apply(&mut self, a: &CudaSlice<f32>, b: &CudaSlice<f32>, alpha: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>) -> Result<()> {
        let ctx = self.update.context();
        let module = ctx.load_module(compile_ptx(MERGE_SRC)?)?;
        let (merge, apply) = (module.load_function("merge_adapters")?, module.load_function("apply_delta")?);
        let n = self.n as u32;
        let cfg = LaunchConfig::for_num_elems(n);

        let mut m = self.update.launch_builder(&merge);
        m.arg(&mut self.merged_w).arg(a).arg(b).arg(&alpha).arg(&n);
        unsafe { m.launch(cfg)? };

        let mut ap = self.serve.launch_builder(&apply);
        ap.arg(&self.merged_r).arg(x).arg(y).arg(&n);
        unsafe { ap.launch(cfg)? }; // EXPECT: unfenced_vmm_alias
        Ok(())
    }

    pub fn shutdown(self) -> Result<()> {
        self.update.synchronize()?;
        self.serve.synchronize()?;
        // the mappings are not cudarc allocations: take them back before unmapping
        let _ = self.merged_w.leak();
        let _ = self.merged_r.leak();
        unsafe {
            for va in self.aliased.vas {
                sys::cuMemUnmap(va, self.aliased.bytes).result()?;
            }
            sys::cuMemRelease(self.aliased.handle).result()?;
            for va in self.aliased.vas {
                sys::cuMemAddressFree(va, self.aliased.bytes).result()?;
            }
        }
        Ok(())
    }
}
