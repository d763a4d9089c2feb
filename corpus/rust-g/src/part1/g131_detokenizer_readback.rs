//! case: detokenizer stage of a generation server on the CUDA runtime API: generated ids are copied into a `cudaHostAlloc(.., cudaHostAllocWriteCombined)` buffer, the stream is synchronized, and the host reads the ids back out of that buffer to build strings
//! expect: write_combined_host_read=1

use std::ffi::c_void;

use cudarc::runtime::{result, sys};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

pub struct Detokenizer {
    vocab: Vec<String>,
    host_ids: *mut c_void,
    capacity: usize,
    stream: sys::cudaStream_t,
}

impl Detokenizer {
    pub fn new(vocab: Vec<String>, capacity: usize) -> Result<Self> {
        let stream = result::stream::create(result::stream::StreamKind::NonBlocking)?;
        let mut host_ids: *mut c_void = std::ptr::null_mut();
        unsafe { sys::cudaHostAlloc(&mut host_ids, capacity * 4, sys::cudaHostAllocWriteCombined).result()? };
        Ok(Detokenizer { vocab, host_ids, capacity, stream })
    }

    /// `device_ids` holds `n` u32 token ids written by the sampler kernels.
    pub fn decode(&self, device_ids: *const c_void, n: usize) -> Result<String> {
        let n = n.min(self.capacity);
        unsafe {
            sys::cudaMemcpyAsync(self.host_ids, device_ids, n * 4, sys::cudaMemcpyKind::cudaMemcpyDeviceToHost, self.stream).result()?;
            result::stream::synchronize(self.stream)?;
        }
        let ids = unsafe { std::slice::from_raw_parts(self.host_ids as *const u32, n) }.to_vec(); // EXPECT: write_combined_host_read
        Ok(ids
            .iter()
            .filter_map(|&id| self.vocab.get(id as usize))
            .map(|piece| piece.replace('\u{2581}', " "))
            .collect::<String>())
    }
}

impl Drop for Detokenizer {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cudaStreamSynchronize(self.stream);
            let _ = sys::cudaFreeHost(self.host_ids);
            let _ = sys::cudaStreamDestroy(self.stream);
        }
    }
}

pub fn detokenize_batch(vocab: Vec<String>, generated: &[(*const c_void, usize)]) -> Result<Vec<String>> {
    let detok = Detokenizer::new(vocab, 4096)?;
    generated.iter().map(|&(ptr, n)| detok.decode(ptr, n)).collect()
}
