//! case: checkpoint writer that stages each parameter tensor through one `cuMemHostAlloc` buffer allocated write-combined (chosen for fast uploads when restoring), copies device->host into it, synchronizes, and then computes a CRC over the staged bytes before writing them out
//! expect: write_combined_host_read=1

use std::ffi::c_void;
use std::io::Write;

use cudarc::driver::{result, sys};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

pub struct Param {
    pub name: String,
    pub ptr: sys::CUdeviceptr,
    pub bytes: usize,
}

pub fn save_checkpoint(params: &[Param], stream: sys::CUstream, out: &mut impl Write) -> Result<Vec<(String, u32)>> {
    let max_bytes = params.iter().map(|p| p.bytes).max().unwrap_or(0);
    let mut staging: *mut c_void = std::ptr::null_mut();
    unsafe {
        sys::cuMemHostAlloc(&mut staging, max_bytes, sys::CU_MEMHOSTALLOC_WRITECOMBINED | sys::CU_MEMHOSTALLOC_PORTABLE).result()?
    };

    let mut manifest = Vec::with_capacity(params.len());
    let saved = (|| -> Result<()> {
        for p in params {
            unsafe {
                sys::cuMemcpyDtoHAsync_v2(staging, p.ptr, p.bytes, stream).result()?;
                result::stream::synchronize(stream)?;
            }
            let crc = crc32(unsafe { std::slice::from_raw_parts(staging as *const u8, p.bytes) }); // EXPECT: write_combined_host_read
            out.write_all(&(p.name.len() as u32).to_le_bytes())?;
            out.write_all(p.name.as_bytes())?;
            out.write_all(&(p.bytes as u64).to_le_bytes())?;
            out.write_all(unsafe { std::slice::from_raw_parts(staging as *const u8, p.bytes) })?;
            out.write_all(&crc.to_le_bytes())?;
            manifest.push((p.name.clone(), crc));
        }
        Ok(())
    })();

    unsafe {
        let _ = result::stream::synchronize(stream);
        sys::cuMemFreeHost(staging).result()?;
    }
    saved.map(|()| manifest)
}
