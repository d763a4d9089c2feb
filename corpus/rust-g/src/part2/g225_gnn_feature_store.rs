//! case: GNN feature store on a VMM mapping whose physical handle is released (cuMemRelease) right after mapping and granting access, as the driver allows: the mapping keeps the memory alive until cuMemUnmap, which runs after the stream is synchronized and before cuMemAddressFree
//! expect: none

use std::error::Error;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use cudarc::driver::result;
use cudarc::driver::sys::{self, CUdeviceptr, CUstream};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const GATHER_SRC: &str = r#"
extern "C" __global__ void gather_mean(const float* features, const unsigned* nbr_offsets,
                                       const unsigned* nbr_ids, unsigned nodes, unsigned dim,
                                       float* out) {
    unsigned v = blockIdx.x;
    if (v >= nodes) return;
    unsigned begin = nbr_offsets[v], end = nbr_offsets[v + 1];
    float inv = end > begin ? 1.f / (end - begin) : 0.f;
    for (unsigned d = threadIdx.x; d < dim; d += blockDim.x) {
        float acc = 0.f;
        for (unsigned e = begin; e < end; ++e) acc += features[(size_t)nbr_ids[e] * dim + d];
        out[(size_t)v * dim + d] = acc * inv;
    }
}
"#;

pub struct FeatureStore {
    va: CUdeviceptr,
    size: usize,
    stream: CUstream,
    rows: u32,
    dim: u32,
}

impl FeatureStore {
    /// Maps `rows x dim` floats and fills them from `pinned_rows` (page-locked host memory).
    pub fn load(device: i32, stream: CUstream, pinned_rows: *const f32, rows: u32, dim: u32) -> Result<Self> {
        let location = sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: device };
        let prop = sys::CUmemAllocationProp {
            type_: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
            requestedHandleTypes: sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE,
            location,
            win32HandleMetaData: null_mut(),
            allocFlags: sys::CUmemAllocationProp_st__bindgen_ty_1 { compressionType: 0, gpuDirectRDMACapable: 0, usage: 0, reserved: [0; 4] },
        };
        let mut gran = 0;
        unsafe {
            sys::cuMemGetAllocationGranularity(&mut gran, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_RECOMMENDED)
                .result()?;
        }
        let bytes = rows as usize * dim as usize * 4;
        let size = bytes.div_ceil(gran) * gran;
        let (mut va, mut handle) = (0, 0);
        let desc = sys::CUmemAccessDesc { location, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
        unsafe {
            sys::cuMemAddressReserve(&mut va, size, 0, 0, 0).result()?;
            sys::cuMemCreate(&mut handle, size, &prop, 0).result()?;
            sys::cuMemMap(va, size, 0, handle, 0).result()?;
            sys::cuMemSetAccess(va, size, &desc, 1).result()?;
            // The mapping holds a reference: the memory lives until it is unmapped.
            sys::cuMemRelease(handle).result()?;
            sys::cuMemcpyHtoDAsync_v2(va, pinned_rows.cast(), bytes, stream).result()?;
        }
        Ok(Self { va, size, stream, rows, dim })
    }
}

impl Drop for FeatureStore {
    fn drop(&mut self) {
        unsafe {
            // cuMemUnmap does not wait for kernels still reading the features.
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuMemUnmap(self.va, self.size);
            let _ = sys::cuMemAddressFree(self.va, self.size);
        }
    }
}

/// One mean-aggregation layer over a CSR neighbourhood already on the device.
pub fn aggregate(store: &FeatureStore, offsets: CUdeviceptr, ids: CUdeviceptr, out: CUdeviceptr) -> Result<()> {
    let ptx = cudarc::nvrtc::compile_ptx(GATHER_SRC)?;
    let image = CString::new(ptx.to_src())?;
    let module = unsafe { result::module::load_data(image.as_ptr().cast())? };
    let gather = unsafe { result::module::get_function(module, CString::new("gather_mean")?)? };
    let (mut f, mut o, mut i, mut y) = (store.va, offsets, ids, out);
    let (mut nodes, mut dim) = (store.rows, store.dim);
    let mut params: [*mut c_void; 6] = [
        (&mut f as *mut u64).cast(),
        (&mut o as *mut u64).cast(),
        (&mut i as *mut u64).cast(),
        (&mut nodes as *mut u32).cast(),
        (&mut dim as *mut u32).cast(),
        (&mut y as *mut u64).cast(),
    ];
    unsafe {
        result::launch_kernel(gather, (nodes, 1, 1), (128, 1, 1), 0, store.stream, &mut params)?;
        result::stream::synchronize(store.stream)?;
        result::module::unload(module)?;
    }
    Ok(())
}
