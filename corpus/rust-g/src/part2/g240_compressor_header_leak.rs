//! case: GPU block compressor on cudarc's safe API whose output buffer starts with a header holding the compressed length; the buffer is taken out of its CudaSlice with leak() for a C-style writer, and the host reads the header with ptr::read straight from the raw device pointer (after synchronizing) to size the download
//! expect: host_deref_device_ptr=1

use cudarc::driver::{result, CudaContext, LaunchConfig, PushKernelArg};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const PACK_SRC: &str = r#"
struct Header { unsigned magic; unsigned raw_len; unsigned packed_len; unsigned crc; };

// Byte-plane delta + zero suppression: nonzero deltas are appended after the header and a
// bitmap marks their positions; one block, shared-memory scan.
extern "C" __global__ void pack_block(const unsigned char* in, unsigned n, unsigned char* out) {
    __shared__ unsigned count;
    if (threadIdx.x == 0) count = 0;
    __syncthreads();
    Header* h = (Header*)out;
    unsigned char* bitmap = out + sizeof(Header);
    unsigned char* payload = bitmap + (n + 7) / 8;
    for (unsigned i = threadIdx.x; i < n; i += blockDim.x) {
        unsigned char d = in[i] - (i ? in[i - 1] : 0);
        if (d) {
            unsigned slot = atomicAdd(&count, 1u);
            payload[slot] = d;          // order fixed up by the decoder via the bitmap rank
            atomicOr((unsigned*)(bitmap + (i / 32) * 4), 1u << (i % 32));
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) { h->magic = 0x4b435047u; h->raw_len = n; h->packed_len = sizeof(Header) + (n + 7) / 8 + count; h->crc = 0; }
}
"#;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Header {
    pub magic: u32,
    pub raw_len: u32,
    pub packed_len: u32,
    pub crc: u32,
}

/// Compresses `block` (already on the host) and returns the packed bytes.
pub fn pack(block: &[u8]) -> Result<Vec<u8>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let module = ctx.load_module(cudarc::nvrtc::compile_ptx(PACK_SRC)?)?;
    let kernel = module.load_function("pack_block")?;
    let n = block.len();
    let mut d_in = stream.alloc_zeros::<u8>(n)?;
    let pinned = unsafe {
        let mut p = ctx.alloc_pinned_with_flags::<u8>(n, 0)?;
        p.as_mut_slice()?.copy_from_slice(block);
        p
    };
    stream.memcpy_htod(&pinned, &mut d_in)?;
    let worst = std::mem::size_of::<Header>() + n.div_ceil(8).next_multiple_of(4) + n;
    let mut d_out = stream.alloc_zeros::<u8>(worst)?;
    let n32 = n as u32;
    let mut launch = stream.launch_builder(&kernel);
    launch.arg(&d_in).arg(&n32).arg(&mut d_out);
    unsafe { launch.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (1024, 1, 1), shared_mem_bytes: 0 })? };
    stream.synchronize()?;

    // Hand the buffer to the container writer, which owns raw pointers.
    let raw = d_out.leak();
    let header = unsafe { std::ptr::read(raw as *const Header) }; // EXPECT: host_deref_device_ptr
    if header.magic != 0x4b43_5047 {
        return Err("bad block header".into());
    }
    let mut packed = vec![0u8; header.packed_len as usize];
    unsafe {
        result::memcpy_dtoh_sync(&mut packed, raw)?;
        result::free_sync(raw)?;
    }
    Ok(packed)
}
