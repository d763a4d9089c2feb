//! Stream helpers shared by the image kernels.

use cuda_lint_runtime::{Result, Stream};

/// Blocks until every stream given has finished all the work enqueued on it.
pub fn wait_all<'a, I>(streams: I) -> Result<()>
where
    I: IntoIterator<Item = &'a Stream>,
{
    for s in streams {
        s.synchronize()?;
    }
    Ok(())
}
