//! case: log-analytics bloom index allocates its bit array with `cuMemAlloc_v2` (sys layer), then a debug check reads the header word straight through the device pointer, and teardown releases it with `cuMemFreeHost`
//! expect: host_deref_device_ptr=1, mismatched_free=1

use std::ffi::c_void;

use cudarc::driver::sys;

#[derive(Debug)]
pub struct CuError(pub sys::CUresult);

fn ck(r: sys::CUresult) -> Result<(), CuError> {
    if r == sys::CUresult::CUDA_SUCCESS { Ok(()) } else { Err(CuError(r)) }
}

const BLOOM_MAGIC: u32 = 0xB10F_F17E;

pub struct BloomConfig {
    pub bits: usize,
    pub hashes: u32,
    pub debug_checks: bool,
}

pub struct DeviceBloom {
    bits: sys::CUdeviceptr,
    words: usize,
    hashes: u32,
    stream: sys::CUstream,
}

impl DeviceBloom {
    pub fn build(cfg: &BloomConfig, stream: sys::CUstream) -> Result<Self, CuError> {
        let words = cfg.bits.div_ceil(32) + 1;
        let mut bits: sys::CUdeviceptr = 0;
        ck(unsafe { sys::cuMemAlloc_v2(&mut bits, words * 4) })?;
        ck(unsafe { sys::cuMemsetD32Async(bits, 0, words, stream) })?;
        ck(unsafe { sys::cuMemsetD32Async(bits, BLOOM_MAGIC, 1, stream) })?;
        ck(unsafe { sys::cuStreamSynchronize(stream) })?;
        if cfg.debug_checks {
            let header = unsafe { *(bits as *const u32) }; // EXPECT: host_deref_device_ptr
            assert_eq!(header, BLOOM_MAGIC, "bloom header not initialised");
        }
        Ok(Self { bits, words, hashes: cfg.hashes, stream })
    }

    pub fn device_words(&self) -> (sys::CUdeviceptr, usize) {
        (self.bits, self.words)
    }

    pub fn hashes(&self) -> u32 {
        self.hashes
    }
}

impl Drop for DeviceBloom {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuMemFreeHost(self.bits as *mut c_void); // EXPECT: mismatched_free
        }
    }
}

pub fn build_for_segments(segments: &[(String, usize)], stream: sys::CUstream) -> Result<Vec<(String, DeviceBloom)>, CuError> {
    segments
        .iter()
        .map(|(name, lines)| {
            let cfg = BloomConfig { bits: lines * 10, hashes: 7, debug_checks: cfg!(debug_assertions) };
            DeviceBloom::build(&cfg, stream).map(|b| (name.clone(), b))
        })
        .collect()
}
