// A slot's state kept beside its buffers: an `Option<Event>` taken and waited for before the
// slot is refilled, or an `in_use` flag tested before waiting. Where the option is `None` (or
// the flag `false`), no copy of the slot is running: on the first turn of the loop nothing was
// enqueued yet, and every later turn set it after enqueueing. The analysis keeps, per variant
// of such a value, what may run where it is that variant.
use cuda_lint_runtime::{Context, DeviceBuffer, Error, Event, PinnedBuffer, Stream};

struct Slot {
    staging: PinnedBuffer<f32>,
    dev: DeviceBuffer<f32>,
    copied: Option<Event>,
    done: Event,
    in_use: bool,
}

struct Uploader {
    ctx: Context,
    copy: Stream,
    slots: Vec<Slot>,
}

impl Uploader {
    fn new(ctx: &Context) -> Result<Uploader, Error> {
        let slots = (0..2)
            .map(|_| {
                Ok(Slot {
                    staging: ctx.alloc_pinned(1 << 16)?,
                    dev: ctx.alloc(1 << 16)?,
                    copied: None,
                    done: ctx.new_event()?,
                    in_use: false,
                })
            })
            .collect::<Result<Vec<_>, Error>>()?;
        Ok(Uploader { ctx: ctx.clone(), copy: ctx.new_stream()?, slots })
    }

    fn ok_option_event_taken_and_waited(&mut self, rows: &[f32]) -> Result<(), Error> {
        for (row, idx) in rows.chunks_exact(1 << 16).zip((0..self.slots.len()).cycle()) {
            let slot = &mut self.slots[idx];
            if let Some(copied) = slot.copied.take() {
                copied.synchronize()?;
            }
            slot.staging.copy_from_slice(row);
            unsafe { self.copy.copy_htod_async(&mut slot.dev, &slot.staging)? };
            let ev = self.ctx.new_event()?;
            self.copy.record_event(&ev)?;
            slot.copied = Some(ev);
        }
        self.copy.synchronize()
    }

    fn fires_option_event_taken_but_not_waited(&mut self, rows: &[f32]) -> Result<(), Error> {
        for (row, idx) in rows.chunks_exact(1 << 16).zip((0..self.slots.len()).cycle()) {
            let slot = &mut self.slots[idx];
            let _previous = slot.copied.take();
            slot.staging.copy_from_slice(row); //~ missing_sync
            unsafe { self.copy.copy_htod_async(&mut slot.dev, &slot.staging)? };
            let ev = self.ctx.new_event()?;
            self.copy.record_event(&ev)?;
            slot.copied = Some(ev);
        }
        self.copy.synchronize()
    }

    fn ok_flag_tested_before_waiting(&mut self, rows: &[f32]) -> Result<(), Error> {
        for (row, idx) in rows.chunks_exact(1 << 16).zip((0..self.slots.len()).cycle()) {
            let slot = &mut self.slots[idx];
            if slot.in_use {
                slot.done.synchronize()?;
                slot.in_use = false;
            }
            slot.staging.copy_from_slice(row);
            unsafe { self.copy.copy_htod_async(&mut slot.dev, &slot.staging)? };
            self.copy.record_event(&slot.done)?;
            slot.in_use = true;
        }
        self.copy.synchronize()
    }

    fn fires_flag_set_before_the_copy(&mut self, rows: &[f32]) -> Result<(), Error> {
        for (row, idx) in rows.chunks_exact(1 << 16).zip((0..self.slots.len()).cycle()) {
            let slot = &mut self.slots[idx];
            if slot.in_use {
                slot.done.synchronize()?;
            }
            // `in_use` is false from here on: the copy below runs while it says "free".
            slot.in_use = false;
            slot.staging.copy_from_slice(row); //~ missing_sync
            unsafe { self.copy.copy_htod_async(&mut slot.dev, &slot.staging)? };
            self.copy.record_event(&slot.done)?;
        }
        self.copy.synchronize()
    }
}

fn main() {}
