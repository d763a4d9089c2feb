//! case: attention server maps per-request VMM scratch (create, reserve, map, set access), launches the softmax-workspace kernel on it and tears the mapping down as soon as the launch is enqueued (cuMemUnmap does not wait for the kernel); the stream is synchronized only afterwards
//! expect: missing_sync=1
use cudarc::driver::result as drv;
use cudarc::driver::sys;
use std::ffi::{CString, c_void};

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

const SRC: &str = r#"
extern "C" __global__ void attn_scores(const float* q, const float* k, float* scratch, float* row_max,
                                       unsigned int seq, unsigned int dim) {
    unsigned int r = blockIdx.x, c = threadIdx.x;
    float m = -1e30f;
    for (unsigned int j = c; j < seq; j += blockDim.x) {
        float s = 0.f;
        for (unsigned int d = 0; d < dim; ++d) s += q[r * dim + d] * k[j * dim + d];
        scratch[r * seq + j] = s;
        m = fmaxf(m, s);
    }
    atomicMax((int*)&row_max[r], __float_as_int(fmaxf(m, 0.f)));
}
"#;

struct Scratch {
    va: sys::CUdeviceptr,
    bytes: usize,
    handle: sys::CUmemGenericAllocationHandle,
}

fn map_scratch(device: sys::CUdevice, want: usize) -> Res<Scratch> {
    let mut prop: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
    prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    let mut gran = 0usize;
    let (mut handle, mut va) = (0, 0);
    let mut access: sys::CUmemAccessDesc = unsafe { std::mem::zeroed() };
    access.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
    access.location.id = device;
    access.flags = sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    unsafe {
        sys::cuMemGetAllocationGranularity(&mut gran, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM).result()?;
        let bytes = want.div_ceil(gran) * gran;
        sys::cuMemCreate(&mut handle, bytes, &prop, 0).result()?;
        sys::cuMemAddressReserve(&mut va, bytes, 0, 0, 0).result()?;
        sys::cuMemMap(va, bytes, 0, handle, 0).result()?;
        sys::cuMemSetAccess(va, bytes, &access, 1).result()?;
        Ok(Scratch { va, bytes, handle })
    }
}

pub struct AttentionServer {
    device: sys::CUdevice,
    stream: sys::CUstream,
    scores: sys::CUfunction,
}

impl AttentionServer {
    pub fn new() -> Res<Self> {
        drv::init()?;
        let device = drv::device::get(0)?;
        let ctx = unsafe { drv::primary_ctx::retain(device) }?;
        unsafe { drv::ctx::set_current(ctx) }?;
        let image = CString::new(cudarc::nvrtc::compile_ptx(SRC)?.to_src())?;
        let module = unsafe { drv::module::load_data(image.as_ptr().cast()) }?;
        let scores = unsafe { drv::module::get_function(module, CString::new("attn_scores")?) }?;
        Ok(AttentionServer { device, stream: drv::stream::create(drv::stream::StreamKind::NonBlocking)?, scores })
    }

    /// Row maxima of q·kᵀ for one request; `row_max` (seq floats, device) receives them.
    pub fn request(&self, q: sys::CUdeviceptr, k: sys::CUdeviceptr, row_max: sys::CUdeviceptr, seq: u32, dim: u32) -> Res<()> {
        let scratch = map_scratch(self.device, seq as usize * seq as usize * 4)?;
        let (mut qq, mut kk, mut s, mut rm, mut sq, mut dd) = (q, k, scratch.va, row_max, seq, dim);
        let mut params: [*mut c_void; 6] = [
            (&mut qq as *mut u64).cast(),
            (&mut kk as *mut u64).cast(),
            (&mut s as *mut u64).cast(),
            (&mut rm as *mut u64).cast(),
            (&mut sq as *mut u32).cast(),
            (&mut dd as *mut u32).cast(),
        ];
        unsafe {
            sys::cuMemsetD32Async(row_max, 0, seq as usize, self.stream).result()?;
            sys::cuLaunchKernel(self.scores, seq, 1, 1, 128, 1, 1, 0, self.stream, params.as_mut_ptr(), std::ptr::null_mut()).result()?;
            // Give the scratch back right away so the next request can reuse the memory.
            sys::cuMemUnmap(scratch.va, scratch.bytes).result()?; // EXPECT: missing_sync
            sys::cuMemRelease(scratch.handle).result()?;
            sys::cuMemAddressFree(scratch.va, scratch.bytes).result()?;
            sys::cuStreamSynchronize(self.stream).result()?;
        }
        Ok(())
    }
}
