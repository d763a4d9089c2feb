use std::ffi::c_void;

use cudarc::driver::sys;

use super::solver::LbmSolver;

impl Drop for LbmSolver {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuMemFree_v2(self.solid);
            let _ = sys::cuMemFree_v2(self.f_b);
            // The distribution array was the first (and biggest) allocation.
            let _ = sys::cuMemFreeHost(self.f_a as *mut c_void); // EXPECT: mismatched_free
            let _ = sys::cuModuleUnload(self.module);
            let _ = sys::cuStreamDestroy_v2(self.stream);
        }
    }
}
