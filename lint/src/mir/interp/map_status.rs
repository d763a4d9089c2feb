//! Whether a VMM map call, an allocation or an enqueue succeeded, where the code checks it: `if
//! cuMemMap(..) != CUDA_SUCCESS { cuMemAddressFree(..); return .. }` rolls back a map that did
//! not happen, `if cuMemAlloc(&mut d, n) != CUDA_SUCCESS { return .. }` leaks nothing, and
//! where `status = launch_kernel(..)` is `Err`, no kernel runs (`if status.is_ok() { sync }`
//! leaves nothing in flight on the other arm). The
//! status such a call returns is followed through references and comparisons with a constant
//! (`!=`, `==`, `PartialEq::ne`/`eq`, `!`) to the branch on it; on the branch where the call
//! failed, its mappings are not mapped and its memory was not made; so is cudarc's `if let
//! Err(e) = cuMemMap(..).result()`.
//! (`?` needs none of this: an error path returns, and a
//! caller goes on only where the call succeeded.)

use rustc_middle::mir::{BinOp, Local, Rvalue, SwitchTargets, UnOp};

use super::*;

/// What a call made that did not happen where it failed: VMM mappings and allocations
/// (`views`), work it enqueued (`ops`).
#[derive(Clone, Debug, Default)]
pub(super) struct Made {
    pub(super) views: LocSet,
    pub(super) ops: OpSet,
}

/// What a local holds of map calls' results.
#[derive(Clone, Debug)]
pub(super) enum MapStatus {
    /// The status map calls of these mappings returned, or a reference to it.
    Returned(Made),
    /// A `bool` that is `failed_when` where the map of these mappings failed.
    Test { views: Made, failed_when: bool },
    /// The status made a `Result` (cudarc's `cuMemMap(..).result()`): `Err` where it failed.
    AsResult(Made),
    /// The discriminant of such a `Result`: 1 (`Err`) where the map failed.
    ErrDiscriminant(Made),
    /// The pointer an allocation stored (`cuMemHostAlloc(&mut p, ..)`): null where it failed.
    Pointer(Made),
    /// `NonNull::new` of such a pointer: `None` where the allocation failed.
    AsOption(Made),
    /// The discriminant of such an `Option`: 0 (`None`) where the allocation failed.
    NoneDiscriminant(Made),
}

impl<'a, 'tcx> Interp<'a, 'tcx> {
    fn status_of(&self, f: FrameId, op: &Operand<'tcx>) -> Option<&MapStatus> {
        let place = op.place()?;
        let local = place.as_local()?;
        self.map_status.get(&(f, local))
    }

    /// What an argument operand holds of map calls' results.
    pub(super) fn map_status_of(&self, f: FrameId, op: &Operand<'tcx>) -> Option<MapStatus> {
        if self.map_status.is_empty() {
            return None;
        }
        self.status_of(f, op).cloned()
    }

    /// A map call's result is stored in `destination`.
    pub(super) fn note_map_result(&mut self, f: FrameId, destination: Place<'tcx>) {
        let (views, ops) = (self.mapped_by_call.take(), self.enqueued_by_call.take());
        if views.is_none() && ops.is_none() {
            return;
        }
        let views = Made {
            views: views.unwrap_or_default(),
            ops: ops.unwrap_or_default(),
        };
        if let Some(local) = destination.as_local() {
            // A call that returns a `Result` (cudarc's `result::malloc_sync`) failed where it
            // is `Err`; one that returns a status, where the status says so.
            let body = self.frames[f.0 as usize].body;
            let returns_result = matches!(body.local_decls[local].ty.kind(),
                ty::Adt(def, _) if self.tcx.is_diagnostic_item(rustc_span::sym::Result, def.did()));
            let status = if returns_result {
                MapStatus::AsResult(views)
            } else {
                MapStatus::Returned(views)
            };
            self.map_status.insert((f, local), status);
        }
    }

    /// An allocation stored its memory in the variable `slot` (`cuMemHostAlloc(&mut p, ..)`):
    /// `p` is null where it failed.
    pub(super) fn note_allocated_pointer(&mut self, slot: LocId, roots: &LocSet) {
        let d = self.locs.get(slot);
        if let Root::Local { frame, local } = d.root
            && d.parent.is_none()
        {
            let made = Made {
                views: roots.clone(),
                ops: OpSet::new(),
            };
            self.map_status.insert((frame, local), MapStatus::Pointer(made));
        }
    }

    /// A helper of the crate run inline returned a map or allocation status (`fn alloc(p:
    /// &mut CUdeviceptr) -> CUresult { cuMemAlloc(p, n) }`): its caller's result carries it.
    pub(super) fn status_returned_by_helper(&mut self, f: FrameId, bb: BasicBlock, destination: Place<'tcx>) {
        if self.map_status.is_empty() {
            return;
        }
        let Some(local) = destination.as_local() else { return };
        let callee = self
            .frames
            .iter()
            .enumerate()
            .rev()
            .find(|(_, fr)| fr.parent == Some(f) && fr.called_at == Some(bb))
            .map(|(i, _)| FrameId(i as u32));
        if let Some(callee) = callee
            && let Some(status) = self.map_status.get(&(callee, mir::RETURN_PLACE)).cloned()
        {
            self.map_status.insert((f, local), status);
        }
    }

    /// `place = rvalue` where `rvalue` carries a map status on.
    pub(super) fn status_assign(&mut self, f: FrameId, place: Place<'tcx>, rvalue: &Rvalue<'tcx>) {
        if self.map_status.is_empty() {
            return;
        }
        let Some(local) = place.as_local() else { return };
        let from_local =
            |this: &Self, p: &Place<'tcx>| p.as_local().and_then(|l| this.map_status.get(&(f, l)).cloned());
        let status = match rvalue {
            Rvalue::Use(op, _) => self.status_of(f, op).cloned(),
            Rvalue::Ref(_, _, p) | Rvalue::RawPtr(_, p) => from_local(self, p),
            Rvalue::BinaryOp(bin @ (BinOp::Eq | BinOp::Ne), box (a, b)) => self.comparison(f, a, b, *bin == BinOp::Ne),
            Rvalue::Discriminant(p) => match from_local(self, p) {
                Some(MapStatus::AsResult(views)) => Some(MapStatus::ErrDiscriminant(views)),
                Some(MapStatus::AsOption(views)) => Some(MapStatus::NoneDiscriminant(views)),
                _ => None,
            },
            Rvalue::Cast(_, op, _) => match self.status_of(f, op) {
                Some(MapStatus::Pointer(views)) => Some(MapStatus::Pointer(views.clone())),
                _ => None,
            },
            Rvalue::UnaryOp(UnOp::Not, op) => match self.status_of(f, op) {
                Some(MapStatus::Test { views, failed_when }) => Some(MapStatus::Test {
                    views: views.clone(),
                    failed_when: !failed_when,
                }),
                _ => None,
            },
            _ => None,
        };
        match status {
            Some(s) => {
                self.map_status.insert((f, local), s);
            }
            None => {
                self.map_status.remove(&(f, local));
            }
        }
    }

    /// `a == b` (`ne`: `a != b`) where one side is a map status and the other is not (a
    /// constant: `CUDA_SUCCESS`, `0`).
    fn comparison(&self, f: FrameId, a: &Operand<'tcx>, b: &Operand<'tcx>, ne: bool) -> Option<MapStatus> {
        let (sa, sb) = (self.status_of(f, a), self.status_of(f, b));
        let views = match (sa, sb) {
            (Some(MapStatus::Returned(v)), None) | (None, Some(MapStatus::Returned(v))) => v.clone(),
            _ => return None,
        };
        Some(MapStatus::Test { views, failed_when: ne })
    }

    /// A call of `PartialEq::eq`/`ne` on a map status: its result is a test of it.
    pub(super) fn status_call(
        &mut self,
        f: FrameId,
        def_id: DefId,
        args: &[rustc_span::Spanned<Operand<'tcx>>],
        destination: Place<'tcx>,
    ) {
        if self.map_status.is_empty() {
            return;
        }
        // `status.result()`: a `Result` that is `Err` where the map failed.
        if let [arg] = args
            && let Some(MapStatus::Returned(views)) = self.status_of(f, &arg.node)
            && let Some(local) = destination.as_local()
            && self.tcx.item_name(def_id).as_str() == "result"
        {
            let views = views.clone();
            self.map_status.insert((f, local), MapStatus::AsResult(views));
            return;
        }
        // The pointer an allocation stored: `p.cast()` is it; `NonNull::new(p)` is `None` and
        // `p.is_null()` true where the allocation failed.
        if let Some(first) = args.first()
            && let Some(MapStatus::Pointer(views)) = self.status_of(f, &first.node)
            && let Some(local) = destination.as_local()
        {
            let views = views.clone();
            let status = match self.tcx.item_name(def_id).as_str() {
                "cast" | "cast_mut" | "cast_const" => Some(MapStatus::Pointer(views)),
                "new" => Some(MapStatus::AsOption(views)),
                "is_null" => Some(MapStatus::Test {
                    views,
                    failed_when: true,
                }),
                _ => None,
            };
            if let Some(status) = status {
                self.map_status.insert((f, local), status);
                return;
            }
        }
        // `r.is_ok()` / `r.is_err()` of such a `Result`: a test of it.
        if let Some(first) = args.first()
            && let Some(MapStatus::AsResult(views)) = self.status_of(f, &first.node)
            && let Some(local) = destination.as_local()
            && let name @ ("is_ok" | "is_err") = self.tcx.item_name(def_id).as_str()
        {
            let status = MapStatus::Test {
                views: views.clone(),
                failed_when: name == "is_err",
            };
            self.map_status.insert((f, local), status);
            return;
        }
        // `status.result()?` (`Try::branch`: `Break` where it was `Err`) and `map_err(..)`
        // keep the failure at discriminant 1.
        if let Some(first) = args.first()
            && let Some(MapStatus::AsResult(views)) = self.status_of(f, &first.node)
            && let Some(local) = destination.as_local()
            && matches!(self.tcx.item_name(def_id).as_str(), "branch" | "map_err")
        {
            let views = views.clone();
            self.map_status.insert((f, local), MapStatus::AsResult(views));
            return;
        }
        if args.len() != 2 {
            return;
        }
        let Some(trait_id) = self.tcx.trait_of_assoc(def_id) else {
            return;
        };
        if !self.tcx.is_lang_item(trait_id, rustc_hir::LangItem::PartialEq) {
            return;
        }
        let ne = match self.tcx.item_name(def_id).as_str() {
            "ne" => true,
            "eq" => false,
            _ => return,
        };
        let (Some(status), Some(local)) = (
            self.comparison(f, &args[0].node, &args[1].node, ne),
            destination.as_local(),
        ) else {
            return;
        };
        self.map_status.insert((f, local), status);
    }

    /// At `switchInt(discr)`: the successor where a tested map failed, and its mappings.
    pub(super) fn failed_map_edge(
        &self,
        f: FrameId,
        discr: &Operand<'tcx>,
        targets: &SwitchTargets,
    ) -> Option<(BasicBlock, Made)> {
        let (views, failed_when) = match self.status_of(f, discr) {
            Some(MapStatus::Test { views, failed_when }) => (views, failed_when),
            // `switchInt(discriminant(r)) -> [0: ok, 1: err, ..]`
            Some(MapStatus::ErrDiscriminant(views)) => {
                let (_, err) = targets.iter().find(|&(v, _)| v == 1)?;
                return Some((err, views.clone()));
            }
            // `switchInt(discriminant(o)) -> [0: none, ..]`
            Some(MapStatus::NoneDiscriminant(views)) => {
                let none = targets
                    .iter()
                    .find(|&(v, _)| v == 0)
                    .map_or(targets.otherwise(), |(_, b)| b);
                return Some((none, views.clone()));
            }
            _ => return None,
        };
        // `switchInt(b) -> [0: if_false, otherwise: if_true]`
        let (value, if_false) = targets.iter().next()?;
        if value != 0 {
            return None;
        }
        let failed = if *failed_when { targets.otherwise() } else { if_false };
        Some((failed, views.clone()))
    }
}

/// Locals that hold map statuses, per frame.
pub(super) type MapStatuses = FxHashMap<(FrameId, Local), MapStatus>;
