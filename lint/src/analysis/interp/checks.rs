//! The questions the lints ask of the state: host accesses of device memory or of memory work
//! in flight uses, and VMM aliases used without a fence or without ordering.

#[allow(unused_imports)]
use super::*;

impl<'a, 'tcx> Interp<'a, 'tcx> {
    pub(super) fn cross_stream_checks(&mut self, call: &CallSite<'_, 'tcx>, new: OpId, state: &State) {
        let op = self.ops[new.0 as usize].clone();
        // The most recent conflicting work is the one to show (one finding per call).
        let mut reuse: Option<(OpId, LocId)> = None;
        for other in state.inflight_may.clone().iter() {
            if other == new || self.ordered_before(other, &op.streams, state) {
                continue;
            }
            let prev = self.ops[other.0 as usize].clone();
            let some_paths = !state.inflight_must.contains(other);
            // Two mappings of one physical allocation, used by unordered work.
            let mine: Vec<LocId> = op
                .reads
                .iter()
                .chain(op.writes.iter())
                .filter(|l| self.is_mapping(*l))
                .collect();
            let theirs: Vec<LocId> = prev
                .reads
                .iter()
                .chain(prev.writes.iter())
                .filter(|l| self.is_mapping(*l))
                .collect();
            if let Some((a, b)) = self.alias_pair(&mine, &theirs) {
                let first = self.region(call.f, b, state);
                let second = self.region(call.f, a, state);
                let other_desc = self.in_flight(call.f, other, state);
                self.report(
                    call.f,
                    call.span,
                    call.si,
                    FindingKind::AliasAcrossStreams {
                        first,
                        second,
                        other: other_desc,
                    },
                    some_paths,
                );
                continue;
            }
            // The same memory reused while unordered work on another stream uses it.
            let conflict = op.writes.iter().find_map(|w| {
                prev.reads
                    .iter()
                    .chain(prev.writes.iter())
                    .find(|p| self.locs.overlaps(w, *p))
                    .map(|_| w)
            });
            let conflict = conflict.or_else(|| {
                op.reads
                    .iter()
                    .find(|r| prev.writes.iter().any(|p| self.locs.overlaps(*r, p)))
            });
            if let Some(l) = conflict
                && let LocKind::Data(k) = self.locs.kind(l)
                && k != MemKind::Unknown
            {
                reuse = Some((other, l));
            }
        }
        if let Some((other, l)) = reuse {
            let some_paths = !state.inflight_must.contains(other);
            let target = self.region(call.f, self.locs.data_root(l), state);
            let other_desc = self.in_flight(call.f, other, state);
            self.report(
                call.f,
                call.span,
                call.si,
                FindingKind::MissingSync {
                    access: Access::Reuse,
                    target,
                    op: other_desc,
                },
                some_paths,
            );
        }
    }

    /// Reports `access` to the memory at `l` while operation `op` may still use it.
    pub(super) fn report_missing_sync(
        &mut self,
        f: FrameId,
        si: SourceInfo,
        access: Access,
        l: LocId,
        op: OpId,
        state: &State,
    ) {
        let target = self.region(f, self.locs.data_root(l), state);
        let op_desc = self.in_flight(f, op, state);
        let some_paths = !state.inflight_must.contains(op);
        self.report(
            f,
            si.span,
            si,
            FindingKind::MissingSync {
                access,
                target,
                op: op_desc,
            },
            some_paths,
        );
    }

    pub(super) fn is_mapping(&self, l: LocId) -> bool {
        matches!(self.locs.kind(l), LocKind::Data(MemKind::VmmMapping))
    }

    /// Two different mappings (one from each list) of the same physical allocation.
    pub(super) fn alias_pair(&self, a: &[LocId], b: &[LocId]) -> Option<(LocId, LocId)> {
        for &x in a {
            let rx = self.locs.data_root(x);
            // A mapping of unknown origin (a parameter) can be paired with nothing.
            let Some(px) = self.attrs.get(&rx).map(|at| &at.physical) else {
                continue;
            };
            for &y in b {
                let ry = self.locs.data_root(y);
                if rx == ry {
                    continue;
                }
                if let Some(py) = self.attrs.get(&ry).map(|at| &at.physical)
                    && px.intersects(py)
                {
                    return Some((rx, ry));
                }
            }
        }
        None
    }

    /// Reports two mappings of one physical allocation passed to one launch, unless `verdict`
    /// (what is known of the kernel, see [`Self::kernel_verdict`]) says it is fenced.
    pub(super) fn alias_in_one_kernel(
        &mut self,
        call: &CallSite<'_, 'tcx>,
        verdict: Option<Kernel>,
        slots: &[LocSet],
        apart: bool,
        state: &State,
    ) {
        if !self.reporting {
            return;
        }
        let mappings_of = |this: &Self, set: &LocSet| -> Vec<LocId> {
            let mut v: Vec<LocId> = set
                .iter()
                .filter(|l| this.is_mapping(*l))
                .map(|l| this.locs.data_root(l))
                .collect();
            v.sort();
            v.dedup();
            v
        };
        // Two arguments (one argument is one pointer, however many mappings it may be).
        let per_slot: Vec<Vec<LocId>> = slots.iter().map(|s| mappings_of(self, s)).collect();
        let mut pair = None;
        for (i, a) in per_slot.iter().enumerate() {
            for (j, b) in per_slot.iter().enumerate() {
                if (i != j || !apart) && pair.is_none() {
                    pair = self.alias_pair(a, b);
                }
            }
        }
        let Some((a, b)) = pair else { return };
        let Some(kernel) = verdict else {
            return;
        };
        let first = self.region(call.f, a, state);
        let second = self.region(call.f, b, state);
        self.report(
            call.f,
            call.span,
            call.si,
            FindingKind::AliasInOneKernel { first, second, kernel },
            false,
        );
    }

    /// What the CUDA sources say of the kernels a launch may run: `None` when all of them
    /// fence, else why the launch is reported.
    pub(super) fn kernel_verdict(&self, kernels: &LocSet) -> Option<Kernel> {
        let mut unfenced = None;
        let (mut name_unknown, mut not_in_source, mut source_unknown) = (false, None, None);
        if kernels.is_empty() {
            return Some(Kernel::SourceNotVisible { name: None });
        }
        for k in kernels.iter() {
            let attrs = self.attrs.get(&k).cloned().unwrap_or_default();
            let sources: Vec<Option<Rc<str>>> = attrs
                .modules
                .iter()
                .flat_map(|m| {
                    self.attrs
                        .get(&m)
                        .map(|a| a.sources.clone())
                        .unwrap_or_else(|| vec![None])
                })
                .collect();
            let names = if attrs.kernel_names.is_empty() {
                vec![None]
            } else {
                attrs.kernel_names.clone()
            };
            let sources = if sources.is_empty() { vec![None] } else { sources };
            for name in &names {
                for source in &sources {
                    match (name, source) {
                        (Some(n), Some(src)) => match kernel_fence(src, n) {
                            Fence::Fenced => {}
                            Fence::Unfenced => unfenced = Some(n.clone()),
                            Fence::NotFound => not_in_source = Some(n.clone()),
                        },
                        (None, Some(_)) => name_unknown = true,
                        (n, None) => source_unknown = Some(n.clone()),
                    }
                }
            }
        }
        if let Some(name) = unfenced {
            Some(Kernel::Unfenced { name })
        } else if let Some(name) = not_in_source {
            Some(Kernel::NotInSource { name })
        } else if name_unknown {
            Some(Kernel::NameNotConstant)
        } else {
            source_unknown.map(|name| Kernel::SourceNotVisible { name })
        }
    }

    pub(super) fn host_access(&mut self, f: FrameId, locs: &LocSet, access: Access, si: SourceInfo, state: &State) {
        if !self.reporting || locs.is_empty() {
            return;
        }
        let mut device = Vec::new();
        for l in locs.iter() {
            if let LocKind::Data(k) = self.locs.kind(l)
                && k.is_device_only()
            {
                device.push(self.locs.data_root(l));
            }
        }
        if let Some(&first) = device.first() {
            let target = self.region(f, first, state);
            let some_paths = device.len() < locs.len();
            self.report(
                f,
                si.span,
                si,
                FindingKind::HostDerefDevicePtr {
                    target,
                    write: access == Access::Write,
                    made_into_slice: false,
                },
                some_paths,
            );
            return;
        }
        self.conflicts(f, locs, access, si, state);
    }

    /// A raw pointer made into a slice or reference for the host.
    pub(super) fn host_view(&mut self, f: FrameId, data: &LocSet, write: bool, si: SourceInfo, state: &State) {
        if !self.reporting {
            return;
        }
        let device: Vec<LocId> = data
            .iter()
            .filter(|l| matches!(self.locs.kind(*l), LocKind::Data(k) if k.is_device_only()))
            .map(|l| self.locs.data_root(l))
            .collect();
        if let Some(&first) = device.first() {
            let target = self.region(f, first, state);
            let some_paths = device.len() < data.len();
            self.report(
                f,
                si.span,
                si,
                FindingKind::HostDerefDevicePtr {
                    target,
                    write,
                    made_into_slice: true,
                },
                some_paths,
            );
        }
    }

    /// Reports the first in-flight operation that `access` to `locs` races with.
    pub(super) fn conflicts(&mut self, f: FrameId, locs: &LocSet, access: Access, si: SourceInfo, state: &State) {
        if !self.reporting {
            return;
        }
        for l in locs.iter() {
            let LocKind::Data(kind) = self.locs.kind(l) else {
                continue;
            };
            if kind == MemKind::Unknown || !self.can_be_in_flight(l, state) {
                if access != Access::Free || kind == MemKind::Unknown {
                    continue;
                }
            }
            for op in state.inflight_may.iter() {
                let info = &self.ops[op.0 as usize];
                let hit = match access {
                    Access::Read => info.writes.iter().any(|w| self.locs.overlaps(w, l)),
                    Access::Write | Access::Free | Access::Reuse => info
                        .writes
                        .iter()
                        .chain(info.reads.iter())
                        .any(|w| self.locs.overlaps(w, l)),
                };
                if !hit {
                    continue;
                }
                self.report_missing_sync(f, si, access, l, op, state);
                return;
            }
        }
    }
}
