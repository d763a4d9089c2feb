//! Scope guard that waits for a stream when it goes out of scope.

use cuda_lint_runtime::Stream;

pub struct StreamFence<'a> {
    stream: &'a Stream,
}

impl<'a> StreamFence<'a> {
    pub fn new(stream: &'a Stream) -> Self {
        Self { stream }
    }
}

impl Drop for StreamFence<'_> {
    fn drop(&mut self) {
        // Errors cannot be returned from Drop; a failed wait shows up at the next call.
        let _ = self.stream.synchronize();
    }
}
