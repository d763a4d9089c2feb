//! case: a lookup table lives in a module `__constant__` symbol found with `driver::result::module::get_global`; the owning struct's `Drop` passes that symbol's address to `free_sync` (cuMemFree), although a module global is not an allocation
//! expect: mismatched_free=1

use std::error::Error;
use std::ffi::CString;
use std::sync::{Arc, LazyLock};

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::{sys, CudaContext};
use cudarc::nvrtc::compile_ptx;

const CRC_SRC: &str = r#"
__constant__ unsigned crc_table[256];

extern "C" __global__ void crc32_blocks(const unsigned char* data, unsigned* out, unsigned block_len, unsigned nblocks) {
    unsigned b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= nblocks) return;
    unsigned c = 0xffffffffu;
    const unsigned char* p = data + (size_t)b * block_len;
    for (unsigned i = 0; i < block_len; ++i) c = crc_table[(c ^ p[i]) & 0xff] ^ (c >> 8);
    out[b] = ~c;
}
"#;

static CRC_PTX: LazyLock<String> =
    LazyLock::new(|| compile_ptx(CRC_SRC).map(|p| p.to_src()).unwrap_or_default());

fn crc_table() -> [u32; 256] {
    let mut t = [0u32; 256];
    for (i, e) in t.iter_mut().enumerate() {
        let mut c = i as u32;
        for _ in 0..8 {
            c = if c & 1 != 0 { 0xedb8_8320 ^ (c >> 1) } else { c >> 1 };
        }
        *e = c;
    }
    t
}

/// The CRC module and its constant table.
pub struct CrcModule {
    _ctx: Arc<CudaContext>,
    module: sys::CUmodule,
    table: sys::CUdeviceptr,
    table_bytes: usize,
    pub kernel: sys::CUfunction,
}

impl CrcModule {
    pub fn load(ctx: Arc<CudaContext>) -> Result<Self, Box<dyn Error>> {
        ctx.bind_to_thread()?;
        let image = CString::new(CRC_PTX.as_str())?;
        let module = unsafe { result::module::load_data(image.as_ptr() as *const _)? };
        let (table, table_bytes) = unsafe { result::module::get_global(module, CString::new("crc_table")?)? };
        let kernel = unsafe { result::module::get_function(module, CString::new("crc32_blocks")?)? };
        let t = crc_table();
        unsafe { result::memcpy_htod_sync(table, &t[..])? };
        Ok(Self { _ctx: ctx, module, table, table_bytes, kernel })
    }

    pub fn table_len(&self) -> usize {
        self.table_bytes / std::mem::size_of::<u32>()
    }
}

impl Drop for CrcModule {
    fn drop(&mut self) {
        unsafe {
            let _ = result::ctx::synchronize();
            let _: Result<(), DriverError> = result::free_sync(self.table); // EXPECT: mismatched_free
            let _ = result::module::unload(self.module);
        }
    }
}

pub fn describe() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let m = CrcModule::load(ctx)?;
    println!("crc table of {} entries at {:#x}", m.table_len(), m.table);
    Ok(())
}
