//! What a body says of a local by reading all of it, rather than by running it: every
//! assignment and borrow of the local (a pointer the program sets to null and never changes, an
//! offset made of constants, a slice coerced from a whole owner, a variable only given to a
//! launch as a parameter). Each question costs a read of the body, so they are asked only of
//! bodies small enough (`Interp::body_scannable`).

#[allow(unused_imports)]
use super::*;

/// The assignments (`dest = rvalue`) of the body whose destination is `local` or a part of it.
pub(super) fn assignments_to<'b, 'tcx>(
    body: &'b Body<'tcx>,
    local: Local,
) -> impl Iterator<Item = (&'b Place<'tcx>, &'b Rvalue<'tcx>)> + 'b {
    body.basic_blocks
        .iter()
        .flat_map(|d| &d.statements)
        .filter_map(move |stmt| match &stmt.kind {
            StatementKind::Assign(box (dest, rv)) if dest.local == local => Some((dest, rv)),
            _ => None,
        })
}

/// Whether field `field` of the local struct `local` is null on every path (see
/// `surely_null_in_body`): each assignment of the whole builds it with that field null, and
/// nothing assigns the field, borrows it or the whole mutably, or takes a raw pointer to them.
pub(super) fn field_surely_null<'tcx>(
    tcx: TyCtxt<'tcx>,
    env: TypingEnv<'tcx>,
    body: &Body<'tcx>,
    local: Local,
    field: rustc_abi::FieldIdx,
    depth: u32,
    static_stays_zero: &dyn Fn(DefId) -> bool,
) -> bool {
    if local.as_usize() <= body.arg_count {
        return false;
    }
    // A projection that is the whole or the field (not another field).
    let covers = |p: &Place<'tcx>| {
        p.local == local
            && match p.projection.first() {
                None => true,
                Some(ProjectionElem::Field(f, _)) => *f == field,
                Some(_) => true,
            }
    };
    let mut null = false;
    for data in body.basic_blocks.iter() {
        for stmt in &data.statements {
            let StatementKind::Assign(box (dest, rv)) = &stmt.kind else {
                continue;
            };
            if matches!(rv, Rvalue::Ref(_, kind, src) if covers(src) && !matches!(kind, mir::BorrowKind::Shared))
                || matches!(rv, Rvalue::RawPtr(_, src) if covers(src))
            {
                return false;
            }
            if dest.local != local {
                continue;
            }
            if !dest.projection.is_empty() {
                if covers(dest) {
                    return false;
                }
                continue;
            }
            match rv {
                Rvalue::Aggregate(_, fields) => match fields.get(field) {
                    Some(op) if surely_null_in_body(tcx, env, body, op, depth, static_stays_zero) => null = true,
                    _ => return false,
                },
                _ => return false,
            }
        }
        if let TerminatorKind::Call { destination, .. } = &data.terminator().kind
            && destination.local == local
        {
            return false;
        }
    }
    null
}

/// The place `op` copies, through temporaries assigned once by a copy or a cast (`_3 = copy
/// ((*_1).1)`, passed as `move _3`).
pub(super) fn copied_place<'tcx>(body: &Body<'tcx>, op: &Operand<'tcx>, depth: u32) -> Option<Place<'tcx>> {
    let place = op.place()?;
    if !place.projection.is_empty() || depth == 0 || place.local.as_usize() <= body.arg_count {
        return Some(place);
    }
    let mut found = None;
    for (dest, rv) in assignments_to(body, place.local) {
        if found.is_some() || !dest.projection.is_empty() {
            return Some(place);
        }
        found = match rv {
            Rvalue::Use(inner, _) | Rvalue::Cast(_, inner, _) => copied_place(body, inner, depth - 1),
            _ => return Some(place),
        };
    }
    found.or(Some(place))
}

/// The launch functions whose parameter array holds pointers to the arguments' values, which
/// they read.
const LAUNCHES_READING_PARAMS: &[&str] = &[
    "cuLaunchKernel",
    "cuLaunchCooperativeKernel",
    "cudaLaunchKernel",
    "cudaLaunchCooperativeKernel",
    "launch_kernel",
];

/// Whether the pointer in `local` (to a variable) only becomes an element of an array of
/// kernel parameters (through casts and reborrows), and that array is only borrowed to be
/// given to a launch function (`params.as_mut_ptr()` to `cuLaunchKernel`): nothing writes the
/// variable through it.
pub(super) fn only_a_launch_parameter<'tcx>(tcx: TyCtxt<'tcx>, body: &Body<'tcx>, local: Local, depth: u32) -> bool {
    if depth == 0 || local.as_usize() <= body.arg_count {
        return false;
    }
    let mentions = |op: &Operand<'tcx>| op.place().is_some_and(|p| p.local == local);
    let mut array = None;
    let mut used = false;
    for data in body.basic_blocks.iter() {
        for stmt in &data.statements {
            let StatementKind::Assign(box (dest, rv)) = &stmt.kind else {
                continue;
            };
            let ok = match rv {
                Rvalue::Cast(_, op, _) | Rvalue::Use(op, _) if mentions(op) => {
                    dest.projection.is_empty() && only_a_launch_parameter(tcx, body, dest.local, depth - 1)
                }
                Rvalue::RawPtr(_, src) | Rvalue::Ref(_, _, src) | Rvalue::CopyForDeref(src) if src.local == local => {
                    dest.projection.is_empty() && only_a_launch_parameter(tcx, body, dest.local, depth - 1)
                }
                Rvalue::Aggregate(kind, ops) if ops.iter().any(&mentions) => {
                    matches!(**kind, mir::AggregateKind::Array(_)) && dest.projection.is_empty() && {
                        array = Some(dest.local);
                        true
                    }
                }
                _ => {
                    // Any other mention of it (a store, a comparison) is not a parameter's.
                    let other = match rv {
                        Rvalue::BinaryOp(_, box (a, b)) => mentions(a) || mentions(b),
                        Rvalue::UnaryOp(_, op) | Rvalue::Repeat(op, _) => mentions(op),
                        _ => false,
                    };
                    if other {
                        return false;
                    }
                    continue;
                }
            };
            if !ok {
                return false;
            }
            used = true;
        }
        if let TerminatorKind::Call { args, .. } = &data.terminator().kind
            && args.iter().any(|a| mentions(&a.node))
        {
            return false;
        }
    }
    used && array.is_none_or(|arr| array_only_given_to_a_launch(tcx, body, arr))
}

/// Whether the array `arr` is only borrowed (and its borrow turned into a pointer) to be given
/// to one of [`LAUNCHES_READING_PARAMS`].
pub(super) fn array_only_given_to_a_launch<'tcx>(tcx: TyCtxt<'tcx>, body: &Body<'tcx>, arr: Local) -> bool {
    // The locals the array's borrows flow through, and whether one reaches a launch.
    let mut carriers = vec![arr];
    let mut launched = false;
    for _ in 0..4 {
        let before = carriers.len();
        for data in body.basic_blocks.iter() {
            for stmt in &data.statements {
                let StatementKind::Assign(box (dest, rv)) = &stmt.kind else {
                    continue;
                };
                let from_carrier = match rv {
                    Rvalue::Ref(_, _, src) | Rvalue::RawPtr(_, src) => carriers.contains(&src.local),
                    Rvalue::Cast(_, op, _) | Rvalue::Use(op, _) => {
                        op.place().is_some_and(|p| carriers.contains(&p.local))
                    }
                    _ => false,
                };
                if from_carrier {
                    if !dest.projection.is_empty() {
                        return false;
                    }
                    if !carriers.contains(&dest.local) {
                        carriers.push(dest.local);
                    }
                } else if dest.local == arr && !matches!(rv, Rvalue::Aggregate(..)) {
                    return false;
                }
            }
            if let TerminatorKind::Call {
                func,
                args,
                destination,
                ..
            } = &data.terminator().kind
                && args
                    .iter()
                    .any(|a| a.node.place().is_some_and(|p| carriers.contains(&p.local)))
            {
                let name = match *func.ty(&body.local_decls, tcx).kind() {
                    ty::FnDef(def_id, _) => tcx.item_name(def_id).to_string(),
                    _ => return false,
                };
                if LAUNCHES_READING_PARAMS.contains(&name.as_str()) {
                    launched = true;
                } else if matches!(name.as_str(), "as_mut_ptr" | "as_ptr") {
                    if !carriers.contains(&destination.local) {
                        carriers.push(destination.local);
                    }
                } else {
                    return false;
                }
            }
        }
        if carriers.len() == before {
            break;
        }
    }
    launched
}

/// The `static` a local points to, where its only assignment is the constant pointing to it
/// (`_3 = const {alloc: *mut u64}`, how MIR reads `S`).
pub(super) fn static_pointed_by(tcx: TyCtxt<'_>, body: &Body<'_>, local: Local) -> Option<DefId> {
    let mut found = None;
    for (_, rv) in assignments_to(body, local) {
        let Rvalue::Use(Operand::Constant(c), _) = rv else {
            return None;
        };
        let mir::Const::Val(mir::ConstValue::Scalar(mir::interpret::Scalar::Ptr(ptr, _)), _) = c.const_ else {
            return None;
        };
        let mir::interpret::GlobalAlloc::Static(def_id) = tcx.global_alloc(ptr.provenance.alloc_id()) else {
            return None;
        };
        if found.is_some_and(|f| f != def_id) {
            return None;
        }
        found = Some(def_id);
    }
    found
}

/// Whether `op` names a whole owner of memory: a reference to a `CudaSlice`, a `Vec` or an
/// array, or a slice made from one by coercion (`&host` passed as `&[T]`), through locals.
pub(super) fn names_whole_owner<'tcx>(tcx: TyCtxt<'tcx>, body: &Body<'tcx>, op: &Operand<'tcx>, depth: u32) -> bool {
    let whole_ty = |mut ty: Ty<'tcx>| {
        while let ty::Ref(_, inner, _) = ty.kind() {
            ty = *inner;
        }
        match ty.kind() {
            ty::Array(..) => true,
            ty::Adt(def, _) => matches!(tcx.item_name(def.did()).as_str(), "CudaSlice" | "Vec"),
            _ => false,
        }
    };
    if whole_ty(op.ty(&body.local_decls, tcx)) {
        return true;
    }
    let Some(place) = op.place() else { return false };
    let Some(local) = place.as_local() else { return false };
    if depth == 0 || local.as_usize() <= body.arg_count {
        return false;
    }
    let mut found = false;
    for (_, rv) in assignments_to(body, local) {
        let ok = match rv {
            Rvalue::Cast(mir::CastKind::PointerCoercion(ty::adjustment::PointerCoercion::Unsize, _), inner, _)
            | Rvalue::Use(inner, _) => names_whole_owner(tcx, body, inner, depth - 1),
            Rvalue::Ref(_, _, src) if src.projection.is_empty() => whole_ty(body.local_decls[src.local].ty),
            _ => false,
        };
        if !ok {
            return false;
        }
        found = true;
    }
    for data in body.basic_blocks.iter() {
        // `&*v` of a `Vec` (`Deref::deref`), a call whose destination is the slice.
        if let TerminatorKind::Call {
            func,
            destination,
            args,
            ..
        } = &data.terminator().kind
            && destination.local == local
        {
            let deref_of_whole = matches!(*func.ty(&body.local_decls, tcx).kind(),
                ty::FnDef(def_id, _) if matches!(tcx.item_name(def_id).as_str(), "deref" | "deref_mut"))
                && args
                    .first()
                    .is_some_and(|a| whole_ty(a.node.ty(&body.local_decls, tcx)));
            if !deref_of_whole {
                return false;
            }
            found = true;
        }
    }
    found
}

/// Whether `func` is `ptr::null` or `ptr::null_mut`.
pub(super) fn is_ptr_null_fn<'tcx>(tcx: TyCtxt<'tcx>, body: &Body<'tcx>, func: &Operand<'tcx>) -> bool {
    matches!(*func.ty(&body.local_decls, tcx).kind(),
        ty::FnDef(def_id, _) if matches!(tcx.crate_name(def_id.krate).as_str(), "core" | "std")
            && matches!(tcx.item_name(def_id).as_str(), "null" | "null_mut"))
}

/// How far past the pointer it starts from `op` points, where that is a sum of constants
/// (`d + FIELD_BYTES as u64`, through locals, casts and overflow checks): `Some(0)` for a value
/// no arithmetic made; `None` where other arithmetic took part (a subtraction, an offset not
/// known), which may move it either way.
pub(super) fn const_offset_in_body<'tcx>(
    tcx: TyCtxt<'tcx>,
    env: TypingEnv<'tcx>,
    body: &Body<'tcx>,
    op: &Operand<'tcx>,
    depth: u32,
) -> Option<u64> {
    let place = match op {
        Operand::Copy(place) | Operand::Move(place) if depth > 0 => place,
        _ => return Some(0),
    };
    let local = match place.projection.as_slice() {
        [] => place.local,
        // The value of a checked addition (`(sum, overflowed).0`).
        [ProjectionElem::Field(f, _)] if f.as_u32() == 0 => place.local,
        _ => return Some(0),
    };
    if local.as_usize() <= body.arg_count {
        return Some(0);
    }
    let mut found: Option<u64> = None;
    for (_, rv) in assignments_to(body, local).filter(|(dest, _)| dest.projection.is_empty()) {
        let off = match rv {
            Rvalue::Use(inner, _) | Rvalue::Cast(_, inner, _) => {
                const_offset_in_body(tcx, env, body, inner, depth - 1)?
            }
            Rvalue::BinaryOp(BinOp::Add | BinOp::AddWithOverflow | BinOp::AddUnchecked, box (a, b)) => {
                let k = const_ints_of(tcx, env, body, b, 4).and_then(|v| match v.as_slice() {
                    [one] => u64::try_from(*one).ok(),
                    _ => None,
                })?;
                const_offset_in_body(tcx, env, body, a, depth - 1)?.checked_add(k)?
            }
            Rvalue::BinaryOp(..) | Rvalue::UnaryOp(..) => return None,
            _ => 0,
        };
        // Assigned twice (a loop, two branches): only one value is an answer.
        if found.is_some_and(|f| f != off) {
            return None;
        }
        found = Some(off);
    }
    Some(found.unwrap_or(0))
}

/// Whether `op` is surely a null pointer: a constant zero, or a local whose every assignment
/// is one (or `ptr::null()`/`null_mut()`) and that nothing borrows, assigns in part or gets
/// from another call (`cuMemAlloc(&mut d, ..)` gives `d` memory, whatever it was).
pub(super) fn surely_null_in_body<'tcx>(
    tcx: TyCtxt<'tcx>,
    env: TypingEnv<'tcx>,
    body: &Body<'tcx>,
    op: &Operand<'tcx>,
    depth: u32,
    static_stays_zero: &dyn Fn(DefId) -> bool,
) -> bool {
    let local = match op {
        Operand::Constant(_) => return null_in_body(tcx, env, body, op, depth),
        Operand::Copy(place) | Operand::Move(place) if depth > 0 && place.projection.is_empty() => place.local,
        // `S` of a `static` (read through the constant that points to it) that is zero and
        // that nothing writes.
        Operand::Copy(place) | Operand::Move(place)
            if matches!(place.projection.as_slice(), [ProjectionElem::Deref]) =>
        {
            return static_pointed_by(tcx, body, place.local).is_some_and(static_stays_zero);
        }
        // A field of a local struct (`bufs.output`) every value of which is built with it null
        // and that nothing sets since (a borrow of another field, `&mut bufs.input`, is not one).
        Operand::Copy(place) | Operand::Move(place) if depth > 0 => {
            let [ProjectionElem::Field(field, _)] = place.projection.as_slice() else {
                return false;
            };
            return field_surely_null(tcx, env, body, place.local, *field, depth - 1, static_stays_zero);
        }
        _ => return false,
    };
    if local.as_usize() <= body.arg_count {
        return false;
    }
    let borrowed = body.basic_blocks.iter().any(|data| {
        data.statements.iter().any(|stmt| match &stmt.kind {
            StatementKind::Assign(box (dest, rv)) => {
                // A shared borrow (`&d`, a launch argument) cannot change an integer or a raw
                // pointer; a mutable one or a raw pointer to it can, unless it only becomes a
                // kernel's parameter (`[&mut d as *mut _ as *mut c_void, ..]` given to
                // `cuLaunchKernel`, which reads the value).
                (dest.local == local && !dest.projection.is_empty())
                    || (matches!(rv, Rvalue::Ref(_, kind, src) if src.local == local && !matches!(kind, mir::BorrowKind::Shared))
                        || matches!(rv, Rvalue::RawPtr(_, src) if src.local == local))
                        && !(dest.projection.is_empty() && only_a_launch_parameter(tcx, body, dest.local, 4))
            }
            _ => false,
        })
    });
    if borrowed {
        return false;
    }
    let mut null = false;
    for data in body.basic_blocks.iter() {
        for stmt in &data.statements {
            if let StatementKind::Assign(box (dest, rv)) = &stmt.kind
                && dest.local == local
            {
                match rv {
                    Rvalue::Use(inner, _) | Rvalue::Cast(_, inner, _) => {
                        if !surely_null_in_body(tcx, env, body, inner, depth - 1, static_stays_zero) {
                            return false;
                        }
                        null = true;
                    }
                    _ => return false,
                }
            }
        }
        if let TerminatorKind::Call { func, destination, .. } = &data.terminator().kind
            && destination.local == local
        {
            if !is_ptr_null_fn(tcx, body, func) {
                return false;
            }
            null = true;
        }
    }
    null
}

/// Whether `op` is null in `body`: a zero constant, or a local set from one, or from
/// `ptr::null`/`ptr::null_mut`, through copies and casts.
pub(super) fn null_in_body<'tcx>(
    tcx: TyCtxt<'tcx>,
    env: TypingEnv<'tcx>,
    body: &Body<'tcx>,
    op: &Operand<'tcx>,
    depth: u32,
) -> bool {
    match op {
        Operand::Constant(c) => c
            .const_
            .try_eval_scalar_int(tcx, env)
            .is_some_and(|i| i.to_bits_unchecked() == 0),
        Operand::Copy(place) | Operand::Move(place) if depth > 0 && place.projection.is_empty() => {
            let mut null = false;
            for data in body.basic_blocks.iter() {
                for stmt in &data.statements {
                    if let StatementKind::Assign(box (dest, rv)) = &stmt.kind
                        && dest.local == place.local
                    {
                        match rv {
                            Rvalue::Use(inner, _) | Rvalue::Cast(_, inner, _) if dest.projection.is_empty() => {
                                if !null_in_body(tcx, env, body, inner, depth - 1) {
                                    return false;
                                }
                                null = true;
                            }
                            _ => return false,
                        }
                    }
                }
                if let TerminatorKind::Call { func, destination, .. } = &data.terminator().kind
                    && destination.local == place.local
                {
                    if !is_ptr_null_fn(tcx, body, func) {
                        return false;
                    }
                    null = true;
                }
            }
            null
        }
        _ => false,
    }
}
