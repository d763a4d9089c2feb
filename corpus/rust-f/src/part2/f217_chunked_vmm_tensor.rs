//! case: embedding table built from two physical chunks mapped back to back in one reservation, with a single cuMemSetAccess over the whole range before the first kernel; the two chunks are different allocations (no aliasing); unmapped chunk by chunk after a synchronize
//! expect: none
use cudarc::driver::result as drv;
use cudarc::driver::sys;
use std::ffi::{CString, c_void};

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

const INIT_SRC: &str = r#"
extern "C" __global__ void init_embeddings(float* table, unsigned long long n, unsigned int seed) {
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int h = (unsigned int)i * 2654435761u ^ seed;
    h ^= h >> 16; h *= 0x85ebca6bu; h ^= h >> 13;
    table[i] = ((h & 0xffff) / 65535.0f - 0.5f) * 0.02f;
}
"#;

pub struct ChunkedTable {
    base: sys::CUdeviceptr,
    chunk: usize,
    handles: [sys::CUmemGenericAllocationHandle; 2],
    stream: sys::CUstream,
}

impl ChunkedTable {
    pub fn new(device: sys::CUdevice, rows: usize, dim: usize, stream: sys::CUstream) -> Res<Self> {
        let mut prop: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device;
        let mut gran = 0usize;
        unsafe {
            sys::cuMemGetAllocationGranularity(&mut gran, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM)
                .result()?;
        }
        let half = (rows * dim * 4).div_ceil(2);
        let chunk = half.div_ceil(gran) * gran;
        let mut base = 0;
        let mut handles = [0; 2];
        unsafe {
            sys::cuMemAddressReserve(&mut base, 2 * chunk, 0, 0, 0).result()?;
            for (i, h) in handles.iter_mut().enumerate() {
                sys::cuMemCreate(h, chunk, &prop, 0).result()?;
                sys::cuMemMap(base + (i * chunk) as u64, chunk, 0, *h, 0).result()?;
            }
            let mut access: sys::CUmemAccessDesc = std::mem::zeroed();
            access.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
            access.location.id = device;
            access.flags = sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
            // One call covers both mappings: the range is fully mapped.
            sys::cuMemSetAccess(base, 2 * chunk, &access, 1).result()?;
        }
        Ok(ChunkedTable { base, chunk, handles, stream })
    }

    pub fn initialize(&self, func: sys::CUfunction, seed: u32) -> Res<()> {
        let mut table = self.base;
        let mut n = (2 * self.chunk / 4) as u64;
        let mut s = seed;
        let mut params: [*mut c_void; 3] = [
            (&mut table as *mut u64).cast(),
            (&mut n as *mut u64).cast(),
            (&mut s as *mut u32).cast(),
        ];
        let blocks = n.div_ceil(256) as u32;
        unsafe {
            sys::cuLaunchKernel(func, blocks, 1, 1, 256, 1, 1, 0, self.stream, params.as_mut_ptr(), std::ptr::null_mut()).result()?;
        }
        Ok(())
    }
}

impl Drop for ChunkedTable {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            for (i, h) in self.handles.iter().enumerate() {
                let _ = sys::cuMemUnmap(self.base + (i * self.chunk) as u64, self.chunk);
                let _ = sys::cuMemRelease(*h);
            }
            let _ = sys::cuMemAddressFree(self.base, 2 * self.chunk);
        }
    }
}

pub fn build(rows: usize, dim: usize) -> Res<()> {
    drv::init()?;
    let dev = drv::device::get(0)?;
    let ctx = unsafe { drv::primary_ctx::retain(dev) }?;
    unsafe { drv::ctx::set_current(ctx) }?;
    let stream = drv::stream::create(drv::stream::StreamKind::NonBlocking)?;
    let image = CString::new(cudarc::nvrtc::compile_ptx(INIT_SRC)?.to_src())?;
    let module = unsafe { drv::module::load_data(image.as_ptr().cast()) }?;
    let func = unsafe { drv::module::get_function(module, CString::new("init_embeddings")?) }?;
    let table = ChunkedTable::new(dev, rows, dim, stream)?;
    table.initialize(func, 0x5eed)?;
    drop(table);
    unsafe { drv::stream::destroy(stream) }?;
    Ok(())
}
