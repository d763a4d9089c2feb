//! case: tokenizer stage of a pretraining pipeline: the flattened token ids of a batch (a `Vec<u32>` of data-dependent length) are uploaded with cudarc's `memcpy_htod`, a pageable async copy; the offsets and header are fixed-size stack arrays, small enough not to matter
//! expect: pageable_async_copy=1

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const MAX_BATCH: usize = 32;
const PAD_ID: u32 = 0;
const EOS_ID: u32 = 2;

const PACK_SRC: &str = r#"
extern "C" __global__ void pad_and_mask(const unsigned* flat, const unsigned* offsets,
                                        const unsigned* header, unsigned* ids, unsigned char* mask) {
    unsigned b = blockIdx.y;
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned batch = header[0], max_len = header[1], pad = header[2];
    if (b >= batch || t >= max_len) return;
    unsigned start = offsets[b], end = offsets[b + 1];
    bool live = start + t < end;
    ids[b * max_len + t] = live ? flat[start + t] : pad;
    mask[b * max_len + t] = live ? 1 : 0;
}
"#;

/// Byte-level stand-in for a BPE tokenizer.
fn tokenize(text: &str) -> Vec<u32> {
    let mut ids: Vec<u32> = text.split_whitespace().map(|w| 3 + w.bytes().map(u32::from).sum::<u32>() % 50_000).collect();
    ids.push(EOS_ID);
    ids
}

pub struct PackedBatch {
    pub ids: CudaSlice<u32>,
    pub mask: CudaSlice<u8>,
    pub max_len: usize,
}

pub fn pack_batch(stream: &Arc<CudaStream>, texts: &[&str]) -> Result<PackedBatch> {
    let texts = &texts[..texts.len().min(MAX_BATCH)];
    let tokenized: Vec<Vec<u32>> = texts.iter().map(|t| tokenize(t)).collect();
    let max_len = tokenized.iter().map(Vec::len).max().unwrap_or(1);

    let mut offsets = [0u32; MAX_BATCH + 1];
    let mut acc = 0u32;
    for (i, t) in tokenized.iter().enumerate() {
        offsets[i] = acc;
        acc += t.len() as u32;
        offsets[i + 1] = acc;
    }
    let flat: Vec<u32> = tokenized.into_iter().flatten().collect();
    let header: [u32; 4] = [texts.len() as u32, max_len as u32, PAD_ID, EOS_ID];

    let ctx = stream.context();
    let module = ctx.load_module(compile_ptx(PACK_SRC)?)?;
    let pack = module.load_function("pad_and_mask")?;

    let mut flat_dev = stream.alloc_zeros::<u32>(flat.len().max(1))?;
    let mut offsets_dev = stream.alloc_zeros::<u32>(MAX_BATCH + 1)?;
    let mut header_dev = stream.alloc_zeros::<u32>(4)?;
    stream.memcpy_htod(&flat, &mut flat_dev)?; // EXPECT: pageable_async_copy
    stream.memcpy_htod(&offsets, &mut offsets_dev)?;
    stream.memcpy_htod(&header, &mut header_dev)?;

    let mut ids = stream.alloc_zeros::<u32>(texts.len() * max_len)?;
    let mut mask = stream.alloc_zeros::<u8>(texts.len() * max_len)?;
    let cfg = LaunchConfig {
        grid_dim: ((max_len as u32).div_ceil(128), texts.len() as u32, 1),
        block_dim: (128, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut launch = stream.launch_builder(&pack);
    launch.arg(&flat_dev).arg(&offsets_dev).arg(&header_dev).arg(&mut ids).arg(&mut mask);
    unsafe { launch.launch(cfg)? };
    stream.synchronize()?;
    Ok(PackedBatch { ids, mask, max_len })
}

pub fn run(corpus: &[&str]) -> Result<usize> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let mut packed = 0;
    for chunk in corpus.chunks(MAX_BATCH) {
        let batch = pack_batch(&stream, chunk)?;
        packed += batch.ids.len();
    }
    Ok(packed)
}
