//! case: prefill input upload on the CUDA runtime API: the prompt's embedding rows, gathered on the host into a `Vec<f32>`, are sent with `cudaMemcpyAsync` (pageable source of prompt-dependent size); the 16-byte batch descriptor sent the same way is a stack struct of constant size
//! expect: pageable_async_copy=1

use std::ffi::c_void;

use cudarc::runtime::{result, sys};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct BatchDesc {
    pub n_tokens: u32,
    pub hidden: u32,
    pub pos_offset: u32,
    pub flags: u32,
}

pub struct PrefillInputs {
    pub embeddings: *mut c_void,
    pub desc: *mut c_void,
}

fn gather_rows(table: &[f32], hidden: usize, ids: &[u32]) -> Vec<f32> {
    let mut rows = Vec::with_capacity(ids.len() * hidden);
    for &id in ids {
        let start = id as usize * hidden;
        rows.extend_from_slice(&table[start..start + hidden]);
    }
    rows
}

pub fn upload_prompt(table: &[f32], hidden: usize, ids: &[u32], pos_offset: u32, stream: sys::cudaStream_t) -> Result<PrefillInputs> {
    let rows = gather_rows(table, hidden, ids);
    let desc = BatchDesc { n_tokens: ids.len() as u32, hidden: hidden as u32, pos_offset, flags: 0 };

    let mut embeddings: *mut c_void = std::ptr::null_mut();
    let mut desc_dev: *mut c_void = std::ptr::null_mut();
    unsafe {
        sys::cudaMalloc(&mut embeddings, rows.len() * 4).result()?;
        sys::cudaMalloc(&mut desc_dev, std::mem::size_of::<BatchDesc>()).result()?;
        sys::cudaMemcpyAsync(embeddings, rows.as_ptr() as *const c_void, rows.len() * 4, sys::cudaMemcpyKind::cudaMemcpyHostToDevice, stream).result()?; // EXPECT: pageable_async_copy
        sys::cudaMemcpyAsync(desc_dev, &desc as *const BatchDesc as *const c_void, std::mem::size_of::<BatchDesc>(), sys::cudaMemcpyKind::cudaMemcpyHostToDevice, stream).result()?;
        result::stream::synchronize(stream)?;
    }
    Ok(PrefillInputs { embeddings, desc: desc_dev })
}

pub fn release(inputs: PrefillInputs) -> Result<()> {
    unsafe {
        sys::cudaFree(inputs.embeddings).result()?;
        sys::cudaFree(inputs.desc).result()?;
    }
    Ok(())
}
