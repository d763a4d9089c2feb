//! case: intra-frame video encoder: RGB frames staged through a pool of pinned slots, luma DCT/quantization on the GPU, coefficients read back into a slot of the same pool and run-length coded on the host; the pool allocates every slot write-combined (so the coding loop reads uncached memory) and its Drop releases the slots with cuMemFree
//! expect: mismatched_free=1, write_combined_host_read=1

mod encoder;
mod pool;

use std::error::Error;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use cudarc::driver::sys::{self, CUdeviceptr};

use encoder::{ENCODER_SRC, ZIGZAG};
use pool::PinnedPool;

type Result<T> = std::result::Result<T, Box<dyn Error>>;

pub struct IntraEncoder {
    width: u32,
    height: u32,
    stream: sys::CUstream,
    module: sys::CUmodule,
    to_luma: sys::CUfunction,
    dct: sys::CUfunction,
    d_rgb: CUdeviceptr,
    d_luma: CUdeviceptr,
    d_coeffs: CUdeviceptr,
    pool: PinnedPool,
    qstep: f32,
}

impl IntraEncoder {
    pub fn new(width: u32, height: u32, qstep: f32) -> Result<Self> {
        assert!(width % 8 == 0 && height % 8 == 0);
        let mut dev = 0;
        let mut ctx = null_mut();
        unsafe {
            sys::cuInit(0).result()?;
            sys::cuDeviceGet(&mut dev, 0).result()?;
            sys::cuDevicePrimaryCtxRetain(&mut ctx, dev).result()?;
            sys::cuCtxSetCurrent(ctx).result()?;
        }
        let ptx = cudarc::nvrtc::compile_ptx(ENCODER_SRC)?;
        let image = CString::new(ptx.to_src())?;
        let (mut module, mut to_luma, mut dct, mut stream) = (null_mut(), null_mut(), null_mut(), null_mut());
        let px = (width * height) as usize;
        let (mut d_rgb, mut d_luma, mut d_coeffs) = (0, 0, 0);
        unsafe {
            sys::cuModuleLoadData(&mut module, image.as_ptr().cast()).result()?;
            sys::cuModuleGetFunction(&mut to_luma, module, c"rgb_to_luma".as_ptr()).result()?;
            sys::cuModuleGetFunction(&mut dct, module, c"dct8x8_quant".as_ptr()).result()?;
            sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
            sys::cuMemAlloc_v2(&mut d_rgb, 3 * px).result()?;
            sys::cuMemAlloc_v2(&mut d_luma, 4 * px).result()?;
            sys::cuMemAlloc_v2(&mut d_coeffs, 2 * px).result()?;
        }
        let pool = PinnedPool::new(4, 3 * px)?;
        Ok(Self { width, height, stream, module, to_luma, dct, d_rgb, d_luma, d_coeffs, pool, qstep })
    }

    pub fn encode(&mut self, rgb: &[u8]) -> Result<Vec<u8>> {
        let px = (self.width * self.height) as usize;
        assert_eq!(rgb.len(), 3 * px);
        let upload = self.pool.acquire().ok_or("pool exhausted")?;
        let readback = self.pool.acquire().ok_or("pool exhausted")?;
        unsafe {
            std::ptr::copy_nonoverlapping(rgb.as_ptr(), upload.as_ptr::<u8>(), rgb.len());
            sys::cuMemcpyHtoDAsync_v2(self.d_rgb, upload.as_ptr::<c_void>(), rgb.len(), self.stream).result()?;
        }
        let (mut rgb_p, mut luma_p, mut coeff_p) = (self.d_rgb, self.d_luma, self.d_coeffs);
        let (mut w, mut h, mut q) = (self.width, self.height, self.qstep);
        let mut luma_args: [*mut c_void; 4] = [
            (&mut rgb_p as *mut u64).cast(),
            (&mut luma_p as *mut u64).cast(),
            (&mut w as *mut u32).cast(),
            (&mut h as *mut u32).cast(),
        ];
        let mut dct_args: [*mut c_void; 4] = [
            (&mut luma_p as *mut u64).cast(),
            (&mut coeff_p as *mut u64).cast(),
            (&mut w as *mut u32).cast(),
            (&mut q as *mut f32).cast(),
        ];
        unsafe {
            sys::cuLaunchKernel(self.to_luma, self.width.div_ceil(16), self.height.div_ceil(16), 1, 16, 16, 1, 0, self.stream, luma_args.as_mut_ptr(), null_mut())
                .result()?;
            sys::cuLaunchKernel(self.dct, self.width / 8, self.height / 8, 1, 8, 8, 1, 0, self.stream, dct_args.as_mut_ptr(), null_mut())
                .result()?;
            sys::cuMemcpyDtoHAsync_v2(readback.as_ptr::<c_void>(), self.d_coeffs, 2 * px, self.stream).result()?;
            sys::cuStreamSynchronize(self.stream).result()?;
        }
        self.pool.release(upload);

        // Run-length code each block in zig-zag order: (zero run, value) pairs, 0xff ends a block.
        let coeffs = unsafe { std::slice::from_raw_parts(readback.as_ptr::<i16>(), px) };
        let mut bits = Vec::with_capacity(px / 4);
        for block in coeffs.chunks_exact(64) {
            let mut run = 0u8;
            for &z in ZIGZAG.iter() {
                let c = block[z]; // EXPECT: write_combined_host_read
                if c == 0 && run < 254 {
                    run += 1;
                    continue;
                }
                bits.push(run);
                bits.extend_from_slice(&c.to_le_bytes());
                run = 0;
            }
            bits.push(0xff);
        }
        self.pool.release(readback);
        Ok(bits)
    }
}

impl Drop for IntraEncoder {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuMemFree_v2(self.d_rgb);
            let _ = sys::cuMemFree_v2(self.d_luma);
            let _ = sys::cuMemFree_v2(self.d_coeffs);
            let _ = sys::cuModuleUnload(self.module);
            let _ = sys::cuStreamDestroy_v2(self.stream);
        }
    }
}

pub fn encode_clip(frames: &[Vec<u8>], width: u32, height: u32) -> Result<Vec<Vec<u8>>> {
    let mut enc = IntraEncoder::new(width, height, 12.0)?;
    frames.iter().map(|f| enc.encode(f)).collect()
}
