//! Abstract locations: where a value lives, as a root (a local of some frame, or an object a call
//! created) and a short path of field, deref and index projections. Each location knows what it
//! holds: memory of some kind ([`LocKind::Data`]), a handle to memory or to a CUDA object
//! ([`LocKind::Handle`]), a CUDA object itself ([`LocKind::Object`]), or anything else.

use rustc_data_structures::fx::FxHashMap;
use rustc_middle::mir::{BasicBlock, Local};
use rustc_middle::ty::{self, Ty};
use rustc_span::Span;

use super::resolve::Resolver;
use crate::api::{MemKind, ObjKind, Target};
pub use cuda_lint_machine::{Loc as LocId, LocSet};

/// An inlined call's frame; frame 0 is the body being linted.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FrameId(pub u32);

impl FrameId {
    pub const ROOT: FrameId = FrameId(0);
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Root {
    /// A local of a frame (parameters included).
    Local { frame: FrameId, local: Local },
    /// The `which`-th object created by the call that ends `block` in `frame`.
    Fresh {
        frame: FrameId,
        block: BasicBlock,
        which: u8,
    },
    /// An object that is the same wherever a call returns it (device 0's primary context).
    Global { key: u32 },
    /// A `static` item (a `LazyLock`/`OnceLock` holding a stream, a module...): the same
    /// memory in every function.
    Static { def_id: rustc_span::def_id::DefId },
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Proj {
    Field(u32),
    /// Field `.1` of variant `.0` of an enum.
    Variant(u32, u32),
    Deref,
    /// Any element of an array or slice (elements are not told apart).
    Index,
    /// The value of another type a wrapper holds (the `Vec` inside a `Mutex<Vec<_>>`), as
    /// reached through `Deref` of a guard or a smart pointer.
    Inside,
    /// The memory this many bytes (or elements: as the program added) past the start of a VMM
    /// reservation: a view that may be mapped on its own (`cuMemMap(base + size, ..)`), which
    /// the program reaches by address arithmetic. [`OFFSET_ANY`]: an offset not known.
    Offset(u64),
    /// One of the disjoint parts a slice is split into (`split_at_mut`: part 0 and part 1),
    /// which overlap the whole but not each other.
    Part(u8),
}

/// [`Proj::Offset`] by an amount not known where it is added (`base + self.size`).
pub const OFFSET_ANY: u64 = u64::MAX;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LocKind {
    /// Memory contents of this kind.
    Data(MemKind),
    /// A value that refers to memory or to an object (a buffer, a stream, a `Vec`).
    Handle(Target),
    /// A CUDA object that is not memory (a stream, an event, a module...).
    Object(ObjKind),
    /// Anything else: pointers, numbers, structs holding handles.
    Plain,
}

pub struct LocData<'tcx> {
    pub root: Root,
    pub parent: Option<(LocId, Proj)>,
    pub kind: LocKind,
    pub ty: Option<Ty<'tcx>>,
    /// Where it comes from: the local's declaration, or the call that created it.
    pub origin: Span,
    /// For objects created by a call: whether an API table said it is new (an allocation, a
    /// mapping) rather than an unknown function returning it.
    pub allocated: bool,
    pub children: Vec<(Proj, LocId)>,
    depth: u8,
    /// Whether the path goes through a dereference (the memory is somebody else's).
    behind_deref: bool,
}

/// Paths longer than this are cut: deeper projections stay at the cut location.
const MAX_DEPTH: u8 = 6;

/// The key of the global location that stands for a null pointer ([`Locs::null_pointer`]).
const NULL_KEY: u32 = u32::MAX - 1;

/// The interner of locations of one analysis.
pub struct Locs<'a, 'tcx> {
    /// How types are seen: through the API tables.
    rs: &'a Resolver<'tcx>,
    data: Vec<LocData<'tcx>>,
    roots: FxHashMap<Root, LocId>,
    /// Locations rooted at each local, to forget them at `StorageDead`.
    by_local: FxHashMap<(FrameId, Local), Vec<LocId>>,
}

impl<'a, 'tcx> Locs<'a, 'tcx> {
    pub fn new(rs: &'a Resolver<'tcx>) -> Self {
        Locs {
            rs,
            data: Vec::new(),
            roots: FxHashMap::default(),
            by_local: FxHashMap::default(),
        }
    }

    /// How many locations there are.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    pub fn get(&self, id: LocId) -> &LocData<'tcx> {
        &self.data[id.0 as usize]
    }

    pub fn kind(&self, id: LocId) -> LocKind {
        self.get(id).kind
    }

    /// The stack variable or `static` item a location lies in (the value itself, or a field or
    /// element of it, not memory reached through a pointer it holds), when it lies in one: its
    /// size is its type's.
    pub fn enclosing_stack_value(&self, id: LocId) -> Option<LocId> {
        let d = self.get(id);
        if d.behind_deref || !matches!(d.root, Root::Local { .. } | Root::Static { .. }) {
            return None;
        }
        let mut cur = id;
        for _ in 0..=MAX_DEPTH {
            match self.get(cur).parent {
                Some((parent, _)) => cur = parent,
                None => return Some(cur),
            }
        }
        None
    }

    /// The array or buffer whose element `l` is, climbing element projections (`a[i]` of
    /// `a[j][i]`: `a`); `l` itself when it is no element.
    pub fn whole_of_elements(&self, l: LocId) -> LocId {
        let mut cur = l;
        for _ in 0..=MAX_DEPTH {
            match self.get(cur).parent {
                Some((parent, Proj::Index)) => cur = parent,
                _ => break,
            }
        }
        cur
    }

    /// The memory of a `static` item of type `ty`.
    pub fn static_item(&mut self, def_id: rustc_span::def_id::DefId, ty: Ty<'tcx>, origin: Span) -> LocId {
        self.typed_root(Root::Static { def_id }, ty, origin)
    }

    /// The location of a frame's local.
    pub fn local(&mut self, frame: FrameId, local: Local, ty: Ty<'tcx>, origin: Span) -> LocId {
        let root = Root::Local { frame, local };
        let known = self.roots.contains_key(&root);
        let id = self.typed_root(root, ty, origin);
        if !known {
            self.by_local.entry((frame, local)).or_default().push(id);
        }
        id
    }

    /// A location with no parent whose kind its type says, made once.
    fn typed_root(&mut self, root: Root, ty: Ty<'tcx>, origin: Span) -> LocId {
        if let Some(&id) = self.roots.get(&root) {
            return id;
        }
        let kind = self.kind_of_ty(ty, false);
        let id = self.push(LocData {
            root,
            parent: None,
            kind,
            ty: Some(ty),
            origin,
            allocated: false,
            children: Vec::new(),
            depth: 0,
            behind_deref: false,
        });
        self.roots.insert(root, id);
        id
    }

    /// An object created by a call; `ty` is the type of its contents when known (`[T]` for
    /// the memory of a new `Vec<T>`).
    pub fn fresh(
        &mut self,
        frame: FrameId,
        block: BasicBlock,
        which: u8,
        target: Target,
        origin: Span,
        ty: Option<Ty<'tcx>>,
    ) -> LocId {
        self.root_object(Root::Fresh { frame, block, which }, target, origin, ty)
    }

    /// A value a call made that holds no memory or object itself (an `Option` a call returns,
    /// its payload rebuilt from a collection's element).
    pub fn fresh_plain(&mut self, frame: FrameId, block: BasicBlock, which: u8, origin: Span, ty: Ty<'tcx>) -> LocId {
        self.root_with_kind(Root::Fresh { frame, block, which }, LocKind::Plain, origin, Some(ty))
    }

    /// The object named `key`, the same for every call that returns it (not [`NULL_KEY`]).
    pub fn global(&mut self, key: u32, target: Target, origin: Span) -> LocId {
        self.root_object(Root::Global { key }, target, origin, None)
    }

    /// The location that stands for a null pointer (no memory): what a copy given `0` or
    /// `null_mut()` dereferences.
    pub fn null_pointer(&mut self, origin: Span) -> LocId {
        self.global(NULL_KEY, Target::Mem(MemKind::Unknown), origin)
    }

    /// Whether `l` is [`Self::null_pointer`]'s location.
    pub fn is_null(&self, l: LocId) -> bool {
        matches!(self.get(l).root, Root::Global { key: NULL_KEY }) && self.get(l).parent.is_none()
    }

    /// The location of an object with no parent (made by a call, or global), made once.
    fn root_object(&mut self, root: Root, target: Target, origin: Span, ty: Option<Ty<'tcx>>) -> LocId {
        let kind = match target {
            Target::Mem(k) => LocKind::Data(k),
            Target::Obj(o) => LocKind::Object(o),
        };
        self.root_with_kind(root, kind, origin, ty)
    }

    fn root_with_kind(&mut self, root: Root, kind: LocKind, origin: Span, ty: Option<Ty<'tcx>>) -> LocId {
        if let Some(&id) = self.roots.get(&root) {
            return id;
        }
        let id = self.push(LocData {
            root,
            parent: None,
            kind,
            ty,
            origin,
            allocated: false,
            children: Vec::new(),
            depth: 0,
            behind_deref: false,
        });
        self.roots.insert(root, id);
        id
    }

    /// The value of type `ty` that a wrapper at `parent` holds (see [`Proj::Inside`]); for a
    /// trait object, the value of one type that implements the trait (one location per type).
    pub fn inside(&mut self, parent: LocId, ty: Ty<'tcx>) -> LocId {
        let dyn_parent = self.get(parent).ty.is_some_and(|t| matches!(t.kind(), ty::Dynamic(..)));
        if let Some(&(_, id)) = self
            .get(parent)
            .children
            .iter()
            .find(|&&(p, c)| p == Proj::Inside && (!dyn_parent || self.get(c).ty == Some(ty)))
        {
            return id;
        }
        let p = self.get(parent);
        // Like every projection, bounded: a wrapper inside a wrapper inside ... (an iterator
        // narrowed again on each turn of a loop) stops at the cut.
        if p.depth >= MAX_DEPTH {
            return parent;
        }
        let (root, origin, depth) = (p.root, p.origin, p.depth);
        let kind = self.kind_of_ty(ty, true);
        let id = self.push(LocData {
            root,
            parent: Some((parent, Proj::Inside)),
            kind,
            ty: Some(ty),
            origin,
            allocated: false,
            children: Vec::new(),
            depth: depth + 1,
            behind_deref: true,
        });
        self.data[parent.0 as usize].children.push((Proj::Inside, id));
        if let Root::Local { frame, local } = root {
            self.by_local.entry((frame, local)).or_default().push(id);
        }
        id
    }

    /// The location `parent` projected by `proj`.
    pub fn child(&mut self, parent: LocId, proj: Proj) -> LocId {
        if let Some(&(_, id)) = self.get(parent).children.iter().find(|(p, _)| *p == proj) {
            return id;
        }
        let p = self.get(parent);
        if p.depth >= MAX_DEPTH {
            return parent;
        }
        let (root, origin, depth, parent_kind, parent_ty) = (p.root, p.origin, p.depth, p.kind, p.ty);
        let behind_deref = p.behind_deref || proj == Proj::Deref;
        let ty = parent_ty.and_then(|t| self.project_ty(t, proj));
        let kind = match (parent_kind, proj) {
            // A handle stored in memory (a `Vec<PinnedBuffer<T>>`'s element) is a handle.
            _ if let Some(target) = ty.and_then(|t| self.rs.role(t)) => LocKind::Handle(target),
            // Part of memory is that memory; what a pointer stored in it points at is not (a
            // pool's `Vec<*mut f32>` of pinned buffers is pageable, its buffers are not).
            (LocKind::Data(k), p) if p != Proj::Deref || ty.is_none() => LocKind::Data(k),
            (LocKind::Handle(Target::Mem(k)), Proj::Deref) => LocKind::Data(k),
            (LocKind::Handle(Target::Obj(o)), Proj::Deref) => LocKind::Object(o),
            (LocKind::Object(o), _) => LocKind::Object(o),
            _ => match ty {
                Some(ty) => self.kind_of_ty(ty, behind_deref),
                None if proj == Proj::Deref => LocKind::Data(MemKind::Unknown),
                None => LocKind::Plain,
            },
        };
        let id = self.push(LocData {
            root,
            parent: Some((parent, proj)),
            kind,
            ty,
            origin,
            allocated: false,
            children: Vec::new(),
            depth: depth + 1,
            behind_deref,
        });
        self.data[parent.0 as usize].children.push((proj, id));
        if let Root::Local { frame, local } = root {
            self.by_local.entry((frame, local)).or_default().push(id);
        }
        id
    }

    /// The view `delta` past `l` (see [`Proj::Offset`]; `None`: by an amount not known), for a
    /// VMM reservation or a view of one; `l` itself for other memory.
    pub fn offset_view(&mut self, l: LocId, delta: Option<u64>) -> LocId {
        if delta == Some(0) || self.kind(l) != LocKind::Data(MemKind::VmmMapping) {
            return l;
        }
        let (base, at) = match self.get(l).parent {
            Some((parent, Proj::Offset(at))) => (parent, at),
            // A part of the reservation reached otherwise (a field, an element) stays as is.
            Some(_) if self.data_root(l) != l => return l,
            _ => (l, 0),
        };
        let at = match delta {
            Some(d) if at != OFFSET_ANY => at.wrapping_add(d),
            _ => OFFSET_ANY,
        };
        if at == 0 {
            base
        } else {
            self.child(base, Proj::Offset(at))
        }
    }

    /// The VMM mapping `l` is part of (see `Regions::mapping`): the view of its reservation at
    /// an offset, or the whole reservation.
    pub fn mapping_view(&self, l: LocId) -> LocId {
        let root = self.data_root(l);
        let mut cur = l;
        while let Some((parent, proj)) = self.get(cur).parent {
            if parent == root {
                return if matches!(proj, Proj::Offset(_)) { cur } else { root };
            }
            cur = parent;
        }
        root
    }

    /// Where a location is said to come from (a view of a reservation: where it is mapped).
    pub fn set_origin(&mut self, l: LocId, origin: Span) {
        self.data[l.0 as usize].origin = origin;
    }

    /// The views of the reservation `root` at offsets, the whole one included.
    pub fn views(&self, root: LocId) -> impl Iterator<Item = (LocId, Option<u64>)> + '_ {
        std::iter::once((root, Some(0))).chain(self.get(root).children.iter().filter_map(|&(p, c)| match p {
            Proj::Offset(OFFSET_ANY) => Some((c, None)),
            Proj::Offset(at) => Some((c, Some(at))),
            _ => None,
        }))
    }

    /// The default stream of a context object, legacy or per-thread: the same object each time
    /// it is asked for.
    pub fn default_stream(&mut self, context: LocId, legacy: bool) -> LocId {
        let id = self.child(context, Proj::Field(if legacy { u32::MAX } else { u32::MAX - 1 }));
        if id != context {
            self.data[id.0 as usize].kind = LocKind::Object(ObjKind::Stream);
        }
        id
    }

    /// Marks an object created by a call as new memory or a new object (see
    /// [`LocData::allocated`]).
    /// The kind of what a location is, learnt after it was made (a field's pointee, from the
    /// type's builders).
    pub fn set_kind(&mut self, id: LocId, kind: LocKind) {
        self.data[id.0 as usize].kind = kind;
    }

    pub fn set_allocated(&mut self, id: LocId) {
        self.data[id.0 as usize].allocated = true;
    }

    /// The root local and the projections of a location.
    pub fn path(&self, id: LocId) -> (Root, Vec<Proj>) {
        let mut projs = Vec::new();
        let mut cur = id;
        while let Some((parent, proj)) = self.get(cur).parent {
            projs.push(proj);
            cur = parent;
        }
        projs.reverse();
        (self.get(cur).root, projs)
    }

    /// Every location rooted at a frame's local.
    pub fn of_local(&self, frame: FrameId, local: Local) -> &[LocId] {
        self.by_local.get(&(frame, local)).map_or(&[], Vec::as_slice)
    }

    /// Whether `a` and `b` may denote overlapping memory: one contains the other.
    pub fn overlaps(&self, a: LocId, b: LocId) -> bool {
        self.is_within(a, b) || self.is_within(b, a)
    }

    /// Whether `inner` is `outer` or a projection of it.
    pub fn is_within(&self, inner: LocId, outer: LocId) -> bool {
        let mut cur = Some(inner);
        while let Some(id) = cur {
            if id == outer {
                return true;
            }
            cur = self.get(id).parent.map(|(p, _)| p);
        }
        false
    }

    /// The outermost location with memory contents that `id` is inside of (itself if none).
    pub fn data_root(&self, id: LocId) -> LocId {
        let mut best = id;
        let mut cur = Some(id);
        while let Some(c) = cur {
            if matches!(self.kind(c), LocKind::Data(_)) {
                best = c;
            }
            cur = self.get(c).parent.map(|(p, _)| p);
        }
        best
    }

    fn push(&mut self, data: LocData<'tcx>) -> LocId {
        let id = LocId(u32::try_from(self.data.len()).expect("fewer than 2^32 locations"));
        self.data.push(data);
        id
    }

    /// The type of what a handle of type `ty` refers to (`[T]` for `Vec<T>`), if it is one.
    pub fn target_ty(&self, ty: Ty<'tcx>) -> Option<Ty<'tcx>> {
        self.project_ty(ty, Proj::Deref)
    }

    fn project_ty(&self, ty: Ty<'tcx>, proj: Proj) -> Option<Ty<'tcx>> {
        let tcx = self.rs.tcx;
        match (ty.kind(), proj) {
            // What a handle to memory refers to: `[T]` for `Vec<T>`, `PinnedBuffer<T>`...
            (ty::Adt(_, args), Proj::Deref) if !ty.is_box() && matches!(self.rs.role(ty), Some(Target::Mem(_))) => {
                Some(match args.types().next() {
                    Some(elem) => Ty::new_slice(tcx, elem),
                    None => tcx.types.str_,
                })
            }
            (_, Proj::Deref) => ty.builtin_deref(true),
            (_, Proj::Offset(_) | Proj::Part(_)) => Some(ty),
            (ty::Array(elem, _) | ty::Slice(elem), Proj::Index) => Some(*elem),
            (ty::Adt(def, args), Proj::Field(i)) if def.is_struct() || def.is_union() => def
                .non_enum_variant()
                .fields
                .iter()
                .nth(i as usize)
                .map(|f| f.ty(tcx, args).skip_normalization()),
            (ty::Adt(def, args), Proj::Variant(v, i)) if def.is_enum() => def
                .variants()
                .iter()
                .nth(v as usize)
                .and_then(|variant| variant.fields.iter().nth(i as usize))
                .map(|f| f.ty(tcx, args).skip_normalization()),
            (ty::Tuple(tys), Proj::Field(i)) => tys.get(i as usize).copied(),
            (ty::Closure(_, args), Proj::Field(i)) => args.as_closure().upvar_tys().get(i as usize).copied(),
            // An `async` body: its captures (`self`), and what it keeps across an `.await`
            // (field `i` of suspension state `v`).
            (ty::Coroutine(_, args), Proj::Field(i)) => args.as_coroutine().upvar_tys().get(i as usize).copied(),
            (ty::Coroutine(def_id, args), Proj::Variant(v, i)) => {
                let layout = tcx.coroutine_layout(*def_id, args).ok()?;
                let local = *layout.variant_fields.iter().nth(v as usize)?.iter().nth(i as usize)?;
                let saved = layout.field_tys.get(local)?.ty;
                Some(ty::EarlyBinder::bind(saved).instantiate(tcx, args).skip_normalization())
            }
            _ => None,
        }
    }

    /// What a value of `ty` is, found through the API tables; `behind_deref` when it lives in
    /// memory somebody else owns (so arrays in it are of unknown kind, not the stack).
    fn kind_of_ty(&self, ty: Ty<'tcx>, behind_deref: bool) -> LocKind {
        if let Some(target) = self.rs.role(ty) {
            return LocKind::Handle(target);
        }
        match ty.kind() {
            // Arrays of numbers are memory a copy can use; arrays of references (the argument
            // list of a launch) are values that point elsewhere.
            ty::Array(elem, _) | ty::Slice(elem) if self.holds_pointers(*elem) => LocKind::Plain,
            ty::Array(..) | ty::Slice(_) | ty::Str => LocKind::Data(if behind_deref {
                MemKind::Unknown
            } else {
                MemKind::Pageable
            }),
            ty::Int(_) | ty::Uint(_) | ty::Float(_) | ty::Bool | ty::Char if behind_deref => {
                LocKind::Data(MemKind::Unknown)
            }
            _ => LocKind::Plain,
        }
    }

    /// Whether values of `ty` can refer to other memory (references, pointers, handles).
    pub fn holds_pointers(&self, ty: Ty<'tcx>) -> bool {
        ty.walk().any(|arg| {
            arg.as_type().is_some_and(|t| {
                matches!(t.kind(), ty::Ref(..) | ty::RawPtr(..) | ty::Dynamic(..) | ty::FnPtr(..))
                    || self.rs.role(t).is_some()
                    // A struct with a lifetime borrows something (`slice::Iter<'a, T>`).
                    || matches!(t.kind(), ty::Adt(_, args) if args.regions().next().is_some())
            })
        })
    }
}
