use cuda_lint_runtime::{Context, Error, PinnedBuffer, Stream};

fn fires_double_buffer_of_vecs(ctx: &Context, s: &Stream, batches: usize) -> Result<(), Error> {
    let mut staging = [vec![0.0f32; 4096], vec![0.0f32; 4096]];
    let mut dev = [ctx.alloc::<f32>(4096)?, ctx.alloc::<f32>(4096)?];
    for i in 0..batches {
        let slot = i % 2;
        staging[slot].fill(i as f32);
        unsafe { s.copy_htod_async(&mut dev[slot], &staging[slot])? };
        //~^ pageable_async_copy
    }
    s.synchronize()
}

fn fires_front_back_swap_of_vecs(ctx: &Context, s: &Stream, batches: usize) -> Result<(), Error> {
    let mut front = vec![0.0f32; 4096];
    let mut back = vec![0.0f32; 4096];
    let mut dev = ctx.alloc::<f32>(4096)?;
    for i in 0..batches {
        back.fill(i as f32);
        std::mem::swap(&mut front, &mut back);
        unsafe { s.copy_htod_async(&mut dev, &front)? };
        //~^ pageable_async_copy
        s.synchronize()?;
    }
    Ok(())
}

fn fires_chunks_of_vec(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let input = vec![1.0f32; 1 << 20];
    let mut dev = ctx.alloc::<f32>(1 << 16)?;
    for chunk in input.chunks(1 << 16) {
        unsafe { s.copy_htod_async(&mut dev, chunk)? };
        //~^ pageable_async_copy
        s.synchronize()?;
    }
    Ok(())
}

fn fires_readback_vec_per_iteration(ctx: &Context, s: &Stream, steps: usize) -> Result<f32, Error> {
    let dev = ctx.alloc_zeroed::<f32>(256)?;
    let mut total = 0.0;
    for _ in 0..steps {
        let mut out = vec![0.0f32; 256];
        unsafe { s.copy_dtoh_async(&mut out, &dev)? };
        //~^ pageable_async_copy
        s.synchronize()?;
        total += out.iter().sum::<f32>();
    }
    Ok(total)
}

fn fires_fallback_assigned_inside_loop(ctx: &Context, s: &Stream, steps: usize) -> Result<(), Error> {
    let pinned = ctx.alloc_pinned::<f32>(1024)?;
    let overflow = vec![0.0f32; 1024];
    let mut dev = ctx.alloc::<f32>(1024)?;
    let mut src: &[f32] = &pinned;
    for step in 0..steps {
        unsafe { s.copy_htod_async(&mut dev, src)? };
        //~^ pageable_async_copy
        s.synchronize()?;
        if step > 8 {
            src = &overflow;
        }
    }
    Ok(())
}

fn fires_while_loop_drains_queue(
    ctx: &Context,
    s: &Stream,
    queue: &mut Vec<Vec<f32>>,
) -> Result<(), Error> {
    let mut dev = ctx.alloc::<f32>(512)?;
    while let Some(job) = queue.pop() {
        unsafe { s.copy_htod_async(&mut dev, &job)? };
        //~^ pageable_async_copy
        s.synchronize()?;
    }
    Ok(())
}

fn ok_double_buffer_of_pinned(ctx: &Context, s: &Stream, batches: usize) -> Result<(), Error> {
    let mut staging = [ctx.alloc_pinned::<f32>(4096)?, ctx.alloc_pinned::<f32>(4096)?];
    let mut dev = [ctx.alloc::<f32>(4096)?, ctx.alloc::<f32>(4096)?];
    for i in 0..batches {
        let slot = i % 2;
        s.synchronize()?;
        staging[slot].fill(i as f32);
        unsafe { s.copy_htod_async(&mut dev[slot], &staging[slot])? };
    }
    s.synchronize()
}

fn ok_front_back_swap_of_pinned(ctx: &Context, s: &Stream, batches: usize) -> Result<(), Error> {
    let mut front = ctx.alloc_pinned::<f32>(4096)?;
    let mut back = ctx.alloc_pinned::<f32>(4096)?;
    let mut dev = ctx.alloc::<f32>(4096)?;
    for i in 0..batches {
        back.fill(i as f32);
        std::mem::swap(&mut front, &mut back);
        unsafe { s.copy_htod_async(&mut dev, &front)? };
        s.synchronize()?;
    }
    Ok(())
}

fn ok_chunks_of_pinned(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let input = ctx.alloc_pinned::<f32>(1 << 20)?;
    let mut dev = ctx.alloc::<f32>(1 << 16)?;
    for chunk in input.chunks(1 << 16) {
        unsafe { s.copy_htod_async(&mut dev, chunk)? };
        s.synchronize()?;
    }
    Ok(())
}

fn ok_vec_of_pinned_buffers(ctx: &Context, s: &Stream, depth: usize) -> Result<(), Error> {
    let mut ring: Vec<PinnedBuffer<f32>> = Vec::with_capacity(depth);
    for _ in 0..depth {
        ring.push(ctx.alloc_pinned::<f32>(2048)?);
    }
    let mut dev = ctx.alloc::<f32>(2048)?;
    for i in 0..4 * depth {
        let slot = &ring[i % depth];
        unsafe { s.copy_htod_async(&mut dev, slot)? };
        s.synchronize()?;
    }
    Ok(())
}

fn ok_blocking_copies_in_loop(ctx: &Context, s: &Stream, steps: usize) -> Result<(), Error> {
    let mut host = vec![0.0f32; 1024];
    let mut dev = ctx.alloc::<f32>(1024)?;
    for step in 0..steps {
        host.fill(step as f32);
        s.copy_htod(&mut dev, &host)?;
        s.copy_dtoh(&mut host, &dev)?;
    }
    Ok(())
}

fn ok_registered_for_whole_loop(ctx: &Context, s: &Stream, steps: usize) -> Result<(), Error> {
    let mut host = vec![0.0f32; 1024];
    let mut dev = ctx.alloc::<f32>(1024)?;
    let mut locked = ctx.register_host(&mut host)?;
    for step in 0..steps {
        locked.fill(step as f32);
        unsafe { s.copy_htod_async(&mut dev, &locked)? };
        s.synchronize()?;
    }
    Ok(())
}

fn ok_pinned_readback_ring(ctx: &Context, s: &Stream, steps: usize) -> Result<f32, Error> {
    let dev = ctx.alloc_zeroed::<f32>(256)?;
    let mut outs = [ctx.alloc_pinned::<f32>(256)?, ctx.alloc_pinned::<f32>(256)?];
    let mut total = 0.0;
    for i in 0..steps {
        let out = &mut outs[i % 2];
        unsafe { s.copy_dtoh_async(out, &dev)? };
        s.synchronize()?;
        total += out.iter().sum::<f32>();
    }
    Ok(total)
}

fn main() {}
