//@no-rustfix
// Some findings here have no machine-applicable fix: the fixes are checked in fixes.rs.
// Chunked readbacks and uploads driven by iterator adapters: `chunks_mut(..).zip(..)` with
// `try_for_each`, `for_each` or `map(..).collect()`. A chunk read in the closure right after its
// copy was enqueued races with that copy; reading after the stream is synchronized does not, nor
// writing a chunk before its own upload is enqueued (the other chunks are other memory).
use cuda_lint_runtime::{Context, DeviceBuffer, Error, PinnedBuffer, Stream};

/// A sharded tensor: one device buffer per shard, one pinned buffer for the whole of it.
struct Sharded {
    stream: Stream,
    shards: Vec<DeviceBuffer<f32>>,
    host: PinnedBuffer<f32>,
    shard_len: usize,
}

impl Sharded {
    fn new(ctx: &Context, shards: usize, shard_len: usize) -> Result<Sharded, Error> {
        let shards = (0..shards).map(|_| ctx.alloc::<f32>(shard_len)).collect::<Result<Vec<_>, _>>()?;
        let host = ctx.alloc_pinned::<f32>(shards.len() * shard_len)?;
        Ok(Sharded { stream: ctx.new_stream()?, shards, host, shard_len })
    }

    fn fires_try_for_each_sums_each_chunk_after_its_copy(&mut self) -> Result<f32, Error> {
        let mut total = 0.0;
        let stream = &self.stream;
        self.host.chunks_mut(self.shard_len).zip(self.shards.iter()).try_for_each(|(chunk, shard)| {
            //~^ missing_sync
            // (reported at the adapter, with a note at the read in the closure)
            unsafe { stream.copy_dtoh_async(chunk, shard)? };
            total += chunk.iter().sum::<f32>();
            Ok::<(), Error>(())
        })?;
        self.stream.synchronize()?;
        Ok(total)
    }

    fn ok_try_for_each_enqueues_then_sums_after_the_sync(&mut self) -> Result<f32, Error> {
        let stream = &self.stream;
        self.host
            .chunks_mut(self.shard_len)
            .zip(self.shards.iter())
            .try_for_each(|(chunk, shard)| unsafe { stream.copy_dtoh_async(chunk, shard) })?;
        self.stream.synchronize()?;
        Ok(self.host.iter().sum())
    }

    fn fires_map_collect_keeps_the_first_value_of_each_chunk(&mut self) -> Result<Vec<f32>, Error> {
        let stream = &self.stream;
        let firsts = self
            .host
            .chunks_mut(self.shard_len)
            .zip(self.shards.iter())
            .map(|(chunk, shard)| {
                //~^ missing_sync
                // (reported at the adapter that runs the closure, as for a helper)
                unsafe { stream.copy_dtoh_async(chunk, shard)? };
                Ok(chunk[0])
            })
            .collect::<Result<Vec<f32>, Error>>()?;
        self.stream.synchronize()?;
        Ok(firsts)
    }

    fn ok_map_collect_enqueues_then_reads_the_chunks_after_the_sync(&mut self) -> Result<Vec<f32>, Error> {
        let stream = &self.stream;
        self.host
            .chunks_mut(self.shard_len)
            .zip(self.shards.iter())
            .map(|(chunk, shard)| unsafe { stream.copy_dtoh_async(chunk, shard) })
            .collect::<Result<Vec<()>, Error>>()?;
        self.stream.synchronize()?;
        Ok(self.host.chunks(self.shard_len).map(|chunk| chunk[0]).collect())
    }

    fn fires_enqueue_only_pass_then_read_before_the_sync(&mut self) -> Result<f32, Error> {
        let stream = &self.stream;
        self.host
            .chunks_mut(self.shard_len)
            .zip(self.shards.iter())
            .try_for_each(|(chunk, shard)| unsafe { stream.copy_dtoh_async(chunk, shard) })?;
        // Every copy is enqueued; none need be done.
        let peak = self.host.iter().cloned().fold(f32::MIN, f32::max);
        //~^ missing_sync
        self.stream.synchronize()?;
        Ok(peak)
    }

    fn ok_iterator_only_enqueues(&mut self) -> Result<(), Error> {
        // The caller synchronizes before it looks at `host`.
        let stream = &self.stream;
        self.host
            .chunks_mut(self.shard_len)
            .zip(self.shards.iter())
            .try_for_each(|(chunk, shard)| unsafe { stream.copy_dtoh_async(chunk, shard) })
    }

    fn ok_each_chunk_synchronized_in_the_closure_before_it_is_read(&mut self) -> Result<f32, Error> {
        let mut total = 0.0;
        let stream = &self.stream;
        self.host.chunks_mut(self.shard_len).zip(self.shards.iter()).try_for_each(|(chunk, shard)| {
            unsafe { stream.copy_dtoh_async(chunk, shard)? };
            stream.synchronize()?;
            total += chunk.iter().sum::<f32>();
            Ok::<(), Error>(())
        })?;
        Ok(total)
    }
}

fn fires_for_each_normalizes_each_chunk_after_its_copy(ctx: &Context, stream: &Stream, shards: &[DeviceBuffer<f32>]) -> Result<PinnedBuffer<f32>, Error> {
    let shard_len = shards[0].len();
    let mut host = ctx.alloc_pinned::<f32>(shards.len() * shard_len)?;
    host.chunks_mut(shard_len).zip(shards).for_each(|(chunk, shard)| {
        //~^ missing_sync
        // (reported at the adapter that runs the closure, as for a helper)
        unsafe { stream.copy_dtoh_async(chunk, shard).expect("enqueue readback") };
        let scale = 1.0 / chunk.len() as f32;
        chunk.iter_mut().for_each(|v| *v *= scale);
    });
    stream.synchronize()?;
    Ok(host)
}

fn ok_for_each_enqueues_then_normalizes_after_the_sync(ctx: &Context, stream: &Stream, shards: &[DeviceBuffer<f32>]) -> Result<PinnedBuffer<f32>, Error> {
    let shard_len = shards[0].len();
    let mut host = ctx.alloc_pinned::<f32>(shards.len() * shard_len)?;
    host.chunks_mut(shard_len).zip(shards).for_each(|(chunk, shard)| {
        unsafe { stream.copy_dtoh_async(chunk, shard).expect("enqueue readback") };
    });
    stream.synchronize()?;
    let scale = 1.0 / shard_len as f32;
    host.iter_mut().for_each(|v| *v *= scale);
    Ok(host)
}

fn ok_upload_fills_each_chunk_before_its_own_copy(ctx: &Context, stream: &Stream, shards: &mut [DeviceBuffer<f32>], seed: f32) -> Result<(), Error> {
    // Each chunk is written, then its upload enqueued; the next iteration writes the next chunk,
    // which no copy enqueued so far reads.
    let shard_len = shards[0].len();
    let mut staging = ctx.alloc_pinned::<f32>(shards.len() * shard_len)?;
    staging.chunks_mut(shard_len).zip(shards.iter_mut()).enumerate().try_for_each(|(i, (chunk, shard))| {
        chunk.fill(seed + i as f32);
        unsafe { stream.copy_htod_async(shard, chunk) }
    })?;
    stream.synchronize()
}

fn fires_upload_chunk_rewritten_after_its_copy(ctx: &Context, stream: &Stream, shards: &mut [DeviceBuffer<f32>]) -> Result<(), Error> {
    let shard_len = shards[0].len();
    let mut staging = ctx.alloc_pinned::<f32>(shards.len() * shard_len)?;
    staging.chunks_mut(shard_len).zip(shards.iter_mut()).try_for_each(|(chunk, shard)| {
        //~^ missing_sync
        // (reported at the adapter, with a note at the write in the closure)
        chunk.fill(1.0);
        unsafe { stream.copy_htod_async(shard, chunk)? };
        // Clearing the chunk for the next user races with the upload that reads it.
        chunk.fill(0.0);
        Ok::<(), Error>(())
    })?;
    stream.synchronize()
}

fn main() {}
