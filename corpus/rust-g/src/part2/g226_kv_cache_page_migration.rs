//! case: paged KV cache on a VMM reservation (one physical handle per page); migrating a page to fresh physical memory unmaps it, maps the new handle at the same address and restores the contents with cuMemcpyDtoDAsync before cuMemSetAccess is called for the new mapping
//! expect: vmm_lifecycle=1

use std::error::Error;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use cudarc::driver::sys::{self, CUdeviceptr, CUmemGenericAllocationHandle, CUstream};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const ATTN_SRC: &str = r#"
// One query head attending over the pages listed in page_table (paged attention, fp32 toy).
extern "C" __global__ void paged_scores(const float* q, const unsigned long long* page_table,
                                        unsigned tokens, unsigned tokens_per_page, unsigned dim,
                                        float* scores) {
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= tokens) return;
    const float* page = (const float*)page_table[t / tokens_per_page];
    const float* k = page + (t % tokens_per_page) * dim;
    float s = 0.f;
    for (unsigned d = 0; d < dim; ++d) s += q[d] * k[d];
    scores[t] = s * rsqrtf((float)dim);
}
"#;

pub struct PagedKvCache {
    device: i32,
    stream: CUstream,
    base: CUdeviceptr,
    page_bytes: usize,
    pages: Vec<CUmemGenericAllocationHandle>,
    prop: sys::CUmemAllocationProp,
    access: sys::CUmemAccessDesc,
}

impl PagedKvCache {
    pub fn new(device: i32, stream: CUstream, npages: usize) -> Result<Self> {
        let location = sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: device };
        let prop = sys::CUmemAllocationProp {
            type_: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
            requestedHandleTypes: sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE,
            location,
            win32HandleMetaData: null_mut(),
            allocFlags: sys::CUmemAllocationProp_st__bindgen_ty_1 { compressionType: 0, gpuDirectRDMACapable: 0, usage: 0, reserved: [0; 4] },
        };
        let access = sys::CUmemAccessDesc { location, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
        let mut page_bytes = 0;
        unsafe {
            sys::cuMemGetAllocationGranularity(&mut page_bytes, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM)
                .result()?;
        }
        let mut base = 0;
        unsafe { sys::cuMemAddressReserve(&mut base, npages * page_bytes, 0, 0, 0).result()? };
        let mut pages = Vec::with_capacity(npages);
        for i in 0..npages {
            let mut h = 0;
            let va = base + (i * page_bytes) as u64;
            unsafe {
                sys::cuMemCreate(&mut h, page_bytes, &prop, 0).result()?;
                sys::cuMemMap(va, page_bytes, 0, h, 0).result()?;
                sys::cuMemSetAccess(va, page_bytes, &access, 1).result()?;
            }
            pages.push(h);
        }
        Ok(Self { device, stream, base, page_bytes, pages, prop, access })
    }

    pub fn page_addr(&self, i: usize) -> CUdeviceptr {
        self.base + (i * self.page_bytes) as u64
    }

    /// Moves page `i` onto newly created physical memory (e.g. after the old one was
    /// reported as degraded), restoring its contents from `backup`.
    pub fn migrate_page(&mut self, i: usize, backup: CUdeviceptr) -> Result<()> {
        let va = self.page_addr(i);
        let mut fresh = 0;
        unsafe {
            sys::cuStreamSynchronize(self.stream).result()?;
            sys::cuMemcpyDtoDAsync_v2(backup, va, self.page_bytes, self.stream).result()?;
            sys::cuStreamSynchronize(self.stream).result()?;
            sys::cuMemUnmap(va, self.page_bytes).result()?;
            sys::cuMemRelease(self.pages[i]).result()?;
            sys::cuMemCreate(&mut fresh, self.page_bytes, &self.prop, 0).result()?;
            sys::cuMemMap(va, self.page_bytes, 0, fresh, 0).result()?;
            sys::cuMemcpyDtoDAsync_v2(va, backup, self.page_bytes, self.stream).result()?; // EXPECT: vmm_lifecycle
            sys::cuMemSetAccess(va, self.page_bytes, &self.access, 1).result()?;
        }
        self.pages[i] = fresh;
        Ok(())
    }
}

impl Drop for PagedKvCache {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            for (i, &h) in self.pages.iter().enumerate() {
                let _ = sys::cuMemUnmap(self.base + (i * self.page_bytes) as u64, self.page_bytes);
                let _ = sys::cuMemRelease(h);
            }
            let _ = sys::cuMemAddressFree(self.base, self.pages.len() * self.page_bytes);
        }
    }
}

/// Scores one query against `tokens` cached keys, migrating `degraded` pages first.
pub fn score_query(
    cache: &mut PagedKvCache,
    degraded: &[usize],
    q: CUdeviceptr,
    tokens: u32,
    dim: u32,
    scores_pinned: *mut f32,
) -> Result<()> {
    let mut backup = 0;
    let mut table = 0;
    let mut scores = 0;
    let mut table_host: *mut c_void = null_mut();
    let npages = cache.pages.len();
    unsafe {
        sys::cuMemAlloc_v2(&mut backup, cache.page_bytes).result()?;
        sys::cuMemAlloc_v2(&mut table, npages * 8).result()?;
        sys::cuMemAlloc_v2(&mut scores, tokens as usize * 4).result()?;
        sys::cuMemAllocHost_v2(&mut table_host, npages * 8).result()?;
    }
    for &i in degraded {
        cache.migrate_page(i, backup)?;
    }
    let addrs = unsafe { std::slice::from_raw_parts_mut(table_host.cast::<u64>(), npages) };
    for (i, a) in addrs.iter_mut().enumerate() {
        *a = cache.page_addr(i);
    }
    let ptx = cudarc::nvrtc::compile_ptx(ATTN_SRC)?;
    let image = CString::new(ptx.to_src())?;
    let (mut module, mut kernel) = (null_mut(), null_mut());
    let tokens_per_page = (cache.page_bytes / (dim as usize * 4)) as u32;
    let (mut q_, mut t_, mut s_) = (q, table, scores);
    let (mut nt, mut tpp, mut d) = (tokens, tokens_per_page, dim);
    let mut params: [*mut c_void; 6] = [
        (&mut q_ as *mut u64).cast(),
        (&mut t_ as *mut u64).cast(),
        (&mut nt as *mut u32).cast(),
        (&mut tpp as *mut u32).cast(),
        (&mut d as *mut u32).cast(),
        (&mut s_ as *mut u64).cast(),
    ];
    unsafe {
        sys::cuModuleLoadData(&mut module, image.as_ptr().cast()).result()?;
        sys::cuModuleGetFunction(&mut kernel, module, c"paged_scores".as_ptr()).result()?;
        sys::cuMemcpyHtoDAsync_v2(table, table_host, npages * 8, cache.stream).result()?;
        sys::cuLaunchKernel(kernel, tokens.div_ceil(128), 1, 1, 128, 1, 1, 0, cache.stream, params.as_mut_ptr(), null_mut())
            .result()?;
        sys::cuMemcpyDtoHAsync_v2(scores_pinned.cast(), scores, tokens as usize * 4, cache.stream).result()?;
        sys::cuStreamSynchronize(cache.stream).result()?;
        sys::cuMemFreeHost(table_host).result()?;
        for p in [backup, table, scores] {
            sys::cuMemFree_v2(p).result()?;
        }
        sys::cuModuleUnload(module).result()?;
    }
    let _ = cache.device;
    Ok(())
}
