use cudarc::driver::sys;

use super::module::ReconModule;

impl Drop for ReconModule {
    fn drop(&mut self) {
        let _ = self.ctx.synchronize();
        unsafe {
            // Release the coil table, then the module itself.
            let _ = sys::cuMemFree_v2(self.d_weights); // EXPECT: mismatched_free
            let _ = sys::cuModuleUnload(self.module);
        }
    }
}
