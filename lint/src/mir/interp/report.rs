//! Findings as the user reads them: where, with which names, through which helper.

#[allow(unused_imports)]
use super::*;

impl<'a, 'tcx> Interp<'a, 'tcx> {
    /// The state in words, for `CUDA_LINT_TRACE`.
    pub(super) fn show(&self, state: &State) -> String {
        // The root, then each projection down to the location (`_3.F0.V(1,0)`).
        let name = |l: LocId| {
            let mut projs = Vec::new();
            let mut cur = l;
            while let Some((parent, proj)) = self.locs.get(cur).parent {
                projs.push(format!("{proj:?}"));
                cur = parent;
                if projs.len() > 8 {
                    break;
                }
            }
            projs.reverse();
            let root = match self.locs.get(cur).root {
                Root::Local { frame, local } => format!("f{}{local:?}", frame.0),
                other => format!("{other:?}"),
            };
            let mut out = root;
            for p in projs {
                out.push('.');
                out.push_str(&p);
            }
            out
        };
        let values: Vec<String> = state
            .values
            .iter()
            .map(|(h, v)| format!("{}:{}->{:?}", h.0, name(*h), v.iter().map(|l| l.0).collect::<Vec<_>>()))
            .collect();
        let ops: Vec<String> = state
            .m
            .inflight_may
            .iter()
            .map(|o| {
                let info = self.machine.op(o);
                format!(
                    "op{}{} w{:?} r{:?}",
                    o.0,
                    if state.m.inflight_must.contains(o) { "!" } else { "?" },
                    info.writes,
                    info.reads
                )
            })
            .collect();
        format!(
            "inflight [{}] covers {:?} waits {:?} running_when {:?} values [{}]",
            ops.join(", "),
            state.m.event_covers,
            state.m.stream_waits,
            state.running_when,
            values.join(" ")
        )
    }

    /// The frame of the helper the root body calls, on the way to frame `f`.
    pub(super) fn outermost_helper(&self, mut f: FrameId) -> FrameId {
        while let Some(parent) = self.frames[f.0 as usize].parent
            && parent != FrameId::ROOT
        {
            f = parent;
        }
        f
    }

    pub(super) fn lint_root(&self, f: FrameId, si: SourceInfo) -> HirId {
        let body = self.frames[f.0 as usize].body;
        match &body.source_scopes[si.scope].local_data {
            ClearCrossCrate::Set(data) => data.lint_root,
            ClearCrossCrate::Clear => self.tcx.local_def_id_to_hir_id(self.frames[0].def_id.expect_local()),
        }
    }

    /// `name` of the function a frame runs, for notes.
    pub(super) fn frame_name(&self, f: FrameId) -> String {
        let def_id = self.frames[f.0 as usize].def_id;
        if self.tcx.is_closure_like(def_id) {
            "a closure".to_string()
        } else {
            format!("`{}`", self.tcx.item_name(def_id))
        }
    }

    pub(super) fn in_flight(&self, f: FrameId, op: OpId, state: &State) -> InFlight<Span> {
        let info = self.machine.op(op);
        let (frame, site) = self.op_sites[op.0 as usize];
        let stream = info.streams.iter().next().and_then(|s| self.name_of(f, s, state));
        // Work started in the same function as the finding, or in the root body, is shown
        // where it starts; work started inside another helper, at that helper's call in the
        // root body.
        let span = match &self.frames[frame.0 as usize].entered_from {
            Some((call_span, ..)) if frame != f => *call_span,
            _ => site,
        };
        // Blocking calls run on the legacy default stream, which has no name in the code.
        let on_legacy =
            stream.is_none() && !info.streams.is_empty() && info.streams.iter().all(|s| self.machine.is_legacy(s));
        let what = match info.kind {
            OpKind::Copy if on_legacy => "copy on the legacy default stream",
            OpKind::Memset if on_legacy => "memset on the legacy default stream",
            kind => kind.describe(),
        };
        InFlight {
            what,
            span,
            stream,
            advice: info.advice,
            notes: info.notes.clone(),
        }
    }

    pub(super) fn region(&self, f: FrameId, loc: LocId, state: &State) -> Region<Span> {
        let data = self.locs.get(loc);
        let kind = match data.kind {
            LocKind::Data(k) => k,
            _ => MemKind::Unknown,
        };
        // Where the user wrote it: `vec![..]`, not the inside of `vec!`. For a leak, memory made
        // inside a helper is shown, as work is, at that helper's call in the root body: the
        // finding is the root body's.
        let origin = match data.root {
            Root::Fresh { frame, .. } if frame != f && self.origins_at_root_calls => {
                match &self.frames[frame.0 as usize].entered_from {
                    Some((call_span, ..)) => *call_span,
                    None => data.origin.source_callsite(),
                }
            }
            _ => data.origin.source_callsite(),
        };
        let origin_kind = match data.root {
            Root::Fresh { .. } if data.allocated && kind == MemKind::VmmMapping => Origin::Mapped,
            Root::Fresh { .. } if data.allocated => Origin::Allocated,
            Root::Fresh { .. } | Root::Global { .. } => Origin::Returned,
            Root::Local { .. } | Root::Static { .. } => Origin::Declared,
        };
        // The type of what owns the memory: the handle it is the contents of, or the variable
        // holding it.
        let owner_ty = match data.parent {
            Some((parent, Proj::Deref)) if matches!(self.locs.kind(parent), LocKind::Handle(_)) => {
                self.locs.get(parent).ty
            }
            _ => None,
        };
        let (name, holder_ty) = self.holder(f, loc, state).unzip();
        let ty = owner_ty
            .or(holder_ty.flatten())
            .or(data.ty)
            .map(|t| rustc_middle::ty::print::with_forced_trimmed_paths!(t.to_string()));
        let family = self.attrs.get(&loc).and_then(|a| a.family).unwrap_or(self.family);
        Region {
            name,
            kind,
            origin,
            origin_kind,
            ty,
            advice: &family.advice,
        }
    }

    /// A name the user knows for what `loc` is or what a variable refers to.
    pub(super) fn name_of(&self, f: FrameId, loc: LocId, state: &State) -> Option<String> {
        self.holder(f, loc, state).map(|(name, _)| name)
    }

    /// The name of `loc` (or of the variable that holds it), and that variable's type.
    pub(super) fn holder(&self, f: FrameId, loc: LocId, state: &State) -> Option<(String, Option<Ty<'tcx>>)> {
        if let Some(path) = self.path_name(loc) {
            return Some((path, None));
        }
        // Memory or objects created by a call: the variable of the frame that holds them,
        // preferring the owner (`dev`) to pointers into it (`p`), then the shortest name.
        // Ranked by (held as a whole by a struct, not the owner, name length): lowest wins.
        type Ranked<'tcx> = ((bool, bool, usize), (String, Option<Ty<'tcx>>));
        let mut best: Option<Ranked<'tcx>> = None;
        for (holder, vals) in &state.values {
            if !vals.contains(loc) {
                continue;
            }
            let Root::Local { frame, .. } = self.locs.get(*holder).root else {
                continue;
            };
            if frame != f && frame != FrameId::ROOT {
                continue;
            }
            if let Some(name) = self.path_name(*holder) {
                let owner = matches!(self.locs.kind(*holder), LocKind::Handle(_));
                // A struct holding it as a whole names it least well (`download` rather than
                // `download.host`).
                let aggregate = !owner
                    && self.locs.get(*holder).ty.is_some_and(|t| match t.kind() {
                        ty::Tuple(fields) => fields.len() > 1,
                        ty::Adt(def, _) => def.is_struct() && def.non_enum_variant().fields.len() > 1,
                        _ => false,
                    });
                let score = (aggregate, !owner, name.len());
                if best.as_ref().is_none_or(|(s, _)| score < *s) {
                    best = Some((score, (name, self.locs.get(*holder).ty)));
                }
            }
        }
        best.map(|(_, n)| n)
    }

    /// `x`, `x.field`, `self.a.b` for locations rooted at named locals.
    pub(super) fn path_name(&self, loc: LocId) -> Option<String> {
        // Variables debug info names through projections: a closure's captured variables.
        if let (Root::Local { frame, local }, projs) = self.locs.path(loc)
            && !projs.is_empty()
            && let Some((_, _, name)) = self.frames[frame.0 as usize]
                .named_paths
                .iter()
                .find(|(l, p, _)| *l == local && *p == projs)
        {
            return Some(name.clone());
        }
        let data = self.locs.get(loc);
        match data.parent {
            None => match data.root {
                Root::Local { frame, local } => self.frames[frame.0 as usize].names.get(&local).cloned(),
                Root::Fresh { .. } | Root::Global { .. } => None,
                Root::Static { def_id } => self.tcx.opt_item_name(def_id).map(|n| n.to_string()),
            },
            Some((parent, Proj::Deref | Proj::Inside)) => self.path_name(parent),
            Some((parent, Proj::Index)) => self.path_name(parent).map(|p| format!("{p}[..]")),
            Some((parent, Proj::Offset(crate::mir::loc::OFFSET_ANY))) => {
                self.path_name(parent).map(|p| format!("{p} + .."))
            }
            Some((parent, Proj::Offset(at))) => self.path_name(parent).map(|p| format!("{p} + {at}")),
            Some((parent, Proj::Part(_))) => self.path_name(parent).map(|p| format!("{p}[..]")),
            // A context's default streams are no field of it: the variable holding one names it.
            Some((_, Proj::Field(i))) if i >= u32::MAX - 1 => None,
            Some((parent, Proj::Field(i) | Proj::Variant(_, i))) => {
                let base = self.path_name(parent)?;
                let pty = self.locs.get(parent).ty.map(|t| t.peel_refs());
                let field = match pty.map(Ty::kind) {
                    Some(ty::Adt(def, _)) if def.is_struct() => def
                        .non_enum_variant()
                        .fields
                        .iter()
                        .nth(i as usize)
                        .map(|f| f.name.to_string()),
                    _ => None,
                }
                .unwrap_or_else(|| i.to_string());
                Some(format!("{base}.{field}"))
            }
        }
    }
}
