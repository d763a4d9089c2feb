//! case: RLE screen-capture decoder with two slot rings: compressed packets go through write-combined pinned slots the host only writes, decoded frames come back through cuMemAllocHost slots the host reads after each slot's event; every slot is reused only after its event completed
//! expect: none

mod download;
mod upload;

use std::error::Error;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use cudarc::driver::sys::{self, CUdeviceptr};

use download::DownloadRing;
use upload::UploadRing;

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const RLE_SRC: &str = r#"
// Packets are (count, value) byte pairs; prefix[] holds the output offset of every pair.
extern "C" __global__ void rle_expand(const unsigned char* pairs, const unsigned* prefix, unsigned npairs,
                                      unsigned char* frame, unsigned frame_bytes) {
    unsigned p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= npairs) return;
    unsigned start = prefix[p];
    unsigned count = pairs[2 * p];
    unsigned char v = pairs[2 * p + 1];
    for (unsigned k = 0; k < count && start + k < frame_bytes; ++k) frame[start + k] = v;
}

extern "C" __global__ void pair_prefix(const unsigned char* pairs, unsigned npairs, unsigned* prefix) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    unsigned acc = 0;
    for (unsigned p = 0; p < npairs; ++p) { prefix[p] = acc; acc += pairs[2 * p]; }
}
"#;

pub struct Decoder {
    stream: sys::CUstream,
    module: sys::CUmodule,
    expand: sys::CUfunction,
    prefix_k: sys::CUfunction,
    d_prefix: CUdeviceptr,
    d_frames: Vec<CUdeviceptr>,
    up: UploadRing,
    down: DownloadRing,
}

impl Decoder {
    pub fn new(frame_bytes: usize, max_packet: usize, depth: usize) -> Result<Self> {
        let mut dev = 0;
        let mut ctx = null_mut();
        let (mut stream, mut module, mut expand, mut prefix_k) = (null_mut(), null_mut(), null_mut(), null_mut());
        let ptx = cudarc::nvrtc::compile_ptx(RLE_SRC)?;
        let image = CString::new(ptx.to_src())?;
        let mut d_prefix = 0;
        unsafe {
            sys::cuInit(0).result()?;
            sys::cuDeviceGet(&mut dev, 0).result()?;
            sys::cuDevicePrimaryCtxRetain(&mut ctx, dev).result()?;
            sys::cuCtxSetCurrent(ctx).result()?;
            sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
            sys::cuModuleLoadData(&mut module, image.as_ptr().cast()).result()?;
            sys::cuModuleGetFunction(&mut expand, module, c"rle_expand".as_ptr()).result()?;
            sys::cuModuleGetFunction(&mut prefix_k, module, c"pair_prefix".as_ptr()).result()?;
            sys::cuMemAlloc_v2(&mut d_prefix, max_packet / 2 * 4).result()?;
        }
        let mut d_frames = Vec::with_capacity(depth);
        for _ in 0..depth {
            let mut f = 0;
            unsafe { sys::cuMemAlloc_v2(&mut f, frame_bytes).result()? };
            d_frames.push(f);
        }
        Ok(Self {
            stream, module, expand, prefix_k, d_prefix, d_frames,
            up: UploadRing::new(depth, max_packet)?,
            down: DownloadRing::new(depth, frame_bytes)?,
        })
    }

    /// Decodes every packet; `on_frame` gets each frame, in order, as soon as it is back.
    pub fn run(&mut self, packets: &[Vec<u8>], mut on_frame: impl FnMut(usize, &[u8])) -> Result<()> {
        let depth = self.d_frames.len();
        for (k, pkt) in packets.iter().enumerate() {
            let i = k % depth;
            // Drain the frame that used this slot `depth` packets ago.
            self.down.take(i, |f| on_frame(k - depth, f))?;
            let slot = self.up.push(pkt, self.stream)?;
            let (mut pairs, mut prefix, mut frame) = (self.up.slots[slot].dev, self.d_prefix, self.d_frames[i]);
            let (mut np, mut fb) = ((pkt.len() / 2) as u32, self.down.frame_bytes as u32);
            let mut pre_args: [*mut c_void; 3] = [
                (&mut pairs as *mut u64).cast(),
                (&mut np as *mut u32).cast(),
                (&mut prefix as *mut u64).cast(),
            ];
            let mut exp_args: [*mut c_void; 5] = [
                (&mut pairs as *mut u64).cast(),
                (&mut prefix as *mut u64).cast(),
                (&mut np as *mut u32).cast(),
                (&mut frame as *mut u64).cast(),
                (&mut fb as *mut u32).cast(),
            ];
            unsafe {
                sys::cuMemsetD8Async(frame, 0, self.down.frame_bytes, self.stream).result()?;
                sys::cuLaunchKernel(self.prefix_k, 1, 1, 1, 1, 1, 1, 0, self.stream, pre_args.as_mut_ptr(), null_mut()).result()?;
                sys::cuLaunchKernel(self.expand, np.div_ceil(256).max(1), 1, 1, 256, 1, 1, 0, self.stream, exp_args.as_mut_ptr(), null_mut())
                    .result()?;
            }
            self.down.enqueue(i, frame, self.stream)?;
        }
        let n = packets.len();
        for k in n.saturating_sub(depth)..n {
            self.down.take(k % depth, |f| on_frame(k, f))?;
        }
        Ok(())
    }
}

impl Drop for Decoder {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            for &f in &self.d_frames {
                let _ = sys::cuMemFree_v2(f);
            }
            let _ = sys::cuMemFree_v2(self.d_prefix);
            let _ = sys::cuModuleUnload(self.module);
            let _ = sys::cuStreamDestroy_v2(self.stream);
        }
    }
}
