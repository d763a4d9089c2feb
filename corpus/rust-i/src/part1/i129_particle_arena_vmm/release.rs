use cudarc::driver::sys;

use super::arena::ParticleArena;

impl Drop for ParticleArena {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            // Give the address space back first, then tear the chunks down.
            let _ = sys::cuMemAddressFree(self.base, self.reserved); // EXPECT: vmm_lifecycle
            for (i, &handle) in self.chunks.iter().enumerate() {
                let _ = sys::cuMemUnmap(self.base + (i * self.chunk) as u64, self.chunk);
                let _ = sys::cuMemRelease(handle);
            }
        }
    }
}
