//! case: pretraining data loader that packs documents into fixed-length sequences in one `Vec<u32>` page-locked once with `cuMemHostRegister`; each iteration repacks the vector and enqueues its upload and the embedding kernel, but the stream is synchronized only after the loop, so the next repack overwrites memory the previous upload may still be reading
//! expect: missing_sync=1

use std::ffi::{c_void, CString};

use cudarc::driver::{result, sys, CudaContext};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const EMBED_SRC: &str = r#"
extern "C" __global__ void embed_packed(const unsigned* ids, const float* table, float* out,
                                        unsigned n_tokens, unsigned dim) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n_tokens * dim) out[i] += table[(size_t)ids[i / dim] * dim + i % dim];
}
"#;

const SEQ_LEN: usize = 2048;
const EOD: u32 = 0;

/// Fills `out` with documents from `docs`, separated by EOD tokens, starting at `*cursor`.
fn pack_sequence(docs: &[Vec<u32>], cursor: &mut (usize, usize), out: &mut [u32]) {
    let mut filled = 0;
    while filled < out.len() && cursor.0 < docs.len() {
        let doc = &docs[cursor.0];
        let take = (doc.len() - cursor.1).min(out.len() - filled);
        out[filled..filled + take].copy_from_slice(&doc[cursor.1..cursor.1 + take]);
        filled += take;
        cursor.1 += take;
        if cursor.1 == doc.len() {
            cursor.0 += 1;
            cursor.1 = 0;
            if filled < out.len() {
                out[filled] = EOD;
                filled += 1;
            }
        }
    }
    out[filled..].fill(EOD);
}

pub fn pack_and_embed(docs: &[Vec<u32>], table: sys::CUdeviceptr, dim: u32, out: sys::CUdeviceptr, steps: usize) -> Result<usize> {
    let ctx = CudaContext::new(0)?;
    ctx.bind_to_thread()?;
    let stream = result::stream::create(result::stream::StreamKind::NonBlocking)?;
    let image = CString::new(compile_ptx(EMBED_SRC)?.to_src())?;
    let name = CString::new("embed_packed")?;
    let mut module: sys::CUmodule = std::ptr::null_mut();
    let mut embed: sys::CUfunction = std::ptr::null_mut();
    unsafe {
        sys::cuModuleLoadData(&mut module, image.as_ptr() as *const c_void).result()?;
        sys::cuModuleGetFunction(&mut embed, module, name.as_ptr()).result()?;
    }

    let mut packed = vec![EOD; SEQ_LEN];
    let bytes = SEQ_LEN * 4;
    let ids_dev = unsafe { result::malloc_sync(bytes)? };
    unsafe { sys::cuMemHostRegister_v2(packed.as_mut_ptr() as *mut c_void, bytes, 0).result()? };

    let mut cursor = (0usize, 0usize);
    let mut produced = 0;
    for _ in 0..steps {
        if cursor.0 >= docs.len() {
            break;
        }
        pack_sequence(docs, &mut cursor, &mut packed); // EXPECT: missing_sync
        let (mut ids, mut tab, mut o, mut n, mut d) = (ids_dev, table, out, SEQ_LEN as u32, dim);
        let mut params = [
            &mut ids as *mut _ as *mut c_void,
            &mut tab as *mut _ as *mut c_void,
            &mut o as *mut _ as *mut c_void,
            &mut n as *mut _ as *mut c_void,
            &mut d as *mut _ as *mut c_void,
        ];
        unsafe {
            sys::cuMemcpyHtoDAsync_v2(ids_dev, packed.as_ptr() as *const c_void, bytes, stream).result()?;
            result::launch_kernel(embed, ((SEQ_LEN as u32 * dim).div_ceil(256), 1, 1), (256, 1, 1), 0, stream, &mut params)?;
        }
        produced += 1;
    }

    unsafe {
        result::stream::synchronize(stream)?;
        sys::cuMemHostUnregister(packed.as_mut_ptr() as *mut c_void).result()?;
        result::free_sync(ids_dev)?;
        sys::cuModuleUnload(module).result()?;
        result::stream::destroy(stream)?;
    }
    Ok(produced)
}
