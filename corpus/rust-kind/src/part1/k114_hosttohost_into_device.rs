//! case: a tokenizer stage builds an embedding-index Vec and copies it with cudaMemcpyHostToHost into what is a cudaMalloc'd index buffer, so the destination is device memory under a host-to-host kind.
//! expect: memcpy_kind_mismatch=1
use cudarc::runtime::sys;
use std::collections::HashMap;
use std::ffi::c_void;

pub fn tokenize(text: &str, vocab: &HashMap<String, u32>, unk: u32) -> Vec<u32> {
    text.split_whitespace().map(|w| *vocab.get(&w.to_lowercase()).unwrap_or(&unk)).collect()
}

pub fn stage_tokens(text: &str, vocab: &HashMap<String, u32>, max_len: usize) -> (*mut c_void, usize) {
    let mut ids = tokenize(text, vocab, 0);
    ids.truncate(max_len);
    let mut padded = ids.clone();
    padded.resize(max_len, 0);
    let mut d_ids: *mut c_void = std::ptr::null_mut();
    unsafe {
        sys::cudaMalloc(&mut d_ids, max_len * 4);
        let rc = sys::cudaMemcpy( // EXPECT: memcpy_kind_mismatch
            d_ids,
            padded.as_ptr() as *const c_void,
            max_len * 4,
            sys::cudaMemcpyKind::cudaMemcpyHostToHost,
        );
        if rc != sys::cudaError_t::cudaSuccess {
            sys::cudaFree(d_ids);
            return (std::ptr::null_mut(), 0);
        }
    }
    (d_ids, ids.len())
}
