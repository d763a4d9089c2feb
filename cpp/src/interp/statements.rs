//! Statements: blocks, declarations, branches (joined as "may", decided where the condition is
//! a known fact), `switch`, loops to a fixpoint, and whether a loop body waits.

use super::*;

impl<'s, 't> FileAnalysis<'s, 't> {
    pub(super) fn statement(&mut self, n: Node<'t>, flow: &mut Flow) {
        // Not in this build (`#ifdef NOT_DEFINED ... #endif`): not run.
        if flow.dead || self.excluded.contains(n.start_byte()) {
            return;
        }
        self.work += 1;
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            self.depth -= 1;
            self.too_deep.get_or_insert(n.start_byte());
            return;
        }
        match n.kind() {
            "compound_statement" | "translation_unit" => {
                let mut c = n.walk();
                let children: Vec<Node> = n.named_children(&mut c).collect();
                // The statements run on partitions of the path, split where a branch tests a
                // variable (so a later test of it follows the same way), joined at the end.
                let mut parts = vec![std::mem::take(flow)];
                for s in children {
                    let mut next = Vec::new();
                    for mut part in parts {
                        if part.dead {
                            next.push(part);
                            continue;
                        }
                        match self.branch(s, &mut part) {
                            Some(split) => next.extend(split),
                            None => {
                                self.statement(s, &mut part);
                                next.push(part);
                            }
                        }
                    }
                    parts = merge_parts(next);
                }
                // The block's objects end, last made first.
                if n.kind() == "compound_statement" {
                    for part in &mut parts {
                        if !part.dead {
                            self.end_block_objects(n, None, None, n, part);
                        }
                    }
                }
                *flow = join_parts(parts);
            }
            "declaration" => self.declaration(n, flow),
            "expression_statement" => {
                self.unchecked_results(n, flow);
                if let Some(e) = n.named_child(0) {
                    self.expr(e, flow, false);
                }
            }
            "if_statement" => {
                let mark = self.mark();
                if let Some(c) = n.field("condition") {
                    self.expr(c, flow, false);
                }
                let direct = self.since(mark);
                let cond = n.field("condition");
                let mut other = flow.clone();
                if let Some(c) = cond {
                    self.failed_branch(c, &direct, true, flow);
                    self.failed_branch(c, &direct, false, &mut other);
                    self.null_branch(c, true, flow);
                    self.null_branch(c, false, &mut other);
                }
                if let Some(then) = n.field("consequence") {
                    self.statement(then, flow);
                }
                if let Some(alt) = n.field("alternative") {
                    self.statement(alt, &mut other);
                }
                flow.join(&other);
            }
            "else_clause" => {
                let mut c = n.walk();
                let children: Vec<Node> = n.named_children(&mut c).collect();
                for s in children {
                    self.statement(s, flow);
                }
            }
            "for_statement" | "while_statement" | "for_range_loop" | "do_statement" => self.looped(n, flow),
            "switch_statement" => self.switch(n, flow),
            "return_statement" => {
                let value = match n.named_child(0) {
                    // A local object returned by value (the caller's variable is that object), a
                    // member object returned by reference.
                    Some(e) if self.object_named(e, flow).is_some() => self.object_named(e, flow).unwrap_or_default(),
                    // `T& operator[](size_t i) { return ptr_[i]; }`: the element's place, not a
                    // read of it; the caller reads or writes through the reference.
                    Some(e) if returns_reference(n) && e.kind() == "subscript_expression" => self.address_of(e, flow),
                    Some(e)
                        if returns_reference(n)
                            && e.kind() == "pointer_expression"
                            && self.text(e).trim_start().starts_with('*') =>
                    {
                        e.field("argument")
                            .map(|x| self.expr(x, flow, false))
                            .unwrap_or_default()
                    }
                    Some(e) => self.expr(e, flow, false),
                    None => LocSet::new(),
                };
                // The objects of the blocks it leaves end (not one it returns).
                let keep = n
                    .named_child(0)
                    .filter(|e| e.kind() == "identifier")
                    .map(|e| self.text(e));
                self.leave_function(n, keep, &value, flow);
            }
            "break_statement" | "continue_statement" | "goto_statement" => {}
            // An exception leaves the function (and, uncaught here, its callers): no path goes
            // on past it.
            "throw_statement" => {
                if let Some(e) = n.named_child(0) {
                    self.expr(e, flow, false);
                }
                flow.dead = true;
            }
            "comment" | "preproc_include" | "preproc_def" | "preproc_call" => {}
            _ => {
                // switch, try, labeled statements, preprocessor blocks: their parts in order.
                let mut c = n.walk();
                let children: Vec<Node> = n.named_children(&mut c).collect();
                for s in children {
                    if self.excluded.contains(s.start_byte()) {
                        continue;
                    }
                    if is_statement(s.kind()) {
                        self.statement(s, flow);
                    } else {
                        self.expr(s, flow, false);
                    }
                }
            }
        }
        self.depth -= 1;
    }

    /// The path returns at `at` with `value` (`keep`: the local object returned, which does not
    /// end): the objects of the blocks it leaves end; the function analysed on its own ends
    /// (its locals with it); a function run inline goes back to its caller.
    pub(super) fn leave_function(&mut self, at: Node<'t>, keep: Option<&str>, value: &LocSet, flow: &mut Flow) {
        self.end_objects_on_return(at, keep, flow);
        if self.returns.is_empty() {
            self.scope_exit(at, value, flow);
        }
        if let Some((returned, ret)) = self.returns.last_mut() {
            ret.union_with(value);
            match returned {
                Some(r) => r.join(flow),
                None => *returned = Some(flow.clone()),
            }
        }
        if !flow.failing
            && let Some(ok) = self.ok_returns.last_mut()
        {
            match ok {
                Some(m) => {
                    m.join(&flow.m);
                }
                None => *ok = Some(flow.m.clone()),
            }
        }
        flow.dead = true;
    }

    /// On the branch of `if (p)`, `if (!p)`, `if (p != nullptr)`, `if (p == NULL)` where the
    /// pointer `p` is null: what it may hold was never allocated there (`if (d) cudaFree(d);`
    /// leaves nothing behind when `d` is null).
    pub(super) fn null_branch(&self, cond: Node<'t>, taken: bool, flow: &mut Flow) {
        let mut c = cond;
        while matches!(c.kind(), "parenthesized_expression" | "condition_clause") {
            let Some(inner) = c.named_child(0) else { return };
            c = inner;
        }
        let (var, null_when_taken) = match c.kind() {
            "identifier" => (c, false),
            "unary_expression" if self.text(c).trim_start().starts_with('!') => {
                match c.field("argument").filter(|a| a.kind() == "identifier") {
                    Some(a) => (a, true),
                    None => return,
                }
            }
            "binary_expression" => {
                let (Some(l), Some(r), Some(op)) = (c.field("left"), c.field("right"), c.field("operator")) else {
                    return;
                };
                if l.kind() != "identifier" || !matches!(self.text(r).trim(), "NULL" | "nullptr" | "0") {
                    return;
                }
                match self.text(op) {
                    "!=" => (l, false),
                    "==" => (l, true),
                    _ => return,
                }
            }
            _ => return,
        };
        if taken != null_when_taken {
            return;
        }
        let name = self.text(var);
        let vals = match flow.vars.get(name) {
            Some(v) => v.clone(),
            None => match self.global_objects(name, flow) {
                Some(g) => self.field_value(&g, name, flow),
                None => return,
            },
        };
        let mem = self.memory(&vals);
        if !mem.is_empty() {
            // An allocation that gave nothing: an error path (at `main`, the process's end).
            flow.failing = true;
        }
        self.machine.allocation_failed(&mut flow.m, &mem);
    }

    /// An `if` or a `switch` on a plain variable, run on one partition: the way its facts say, or
    /// split into a partition per way, each knowing which it took. `None`: not such a branch.
    pub(super) fn branch(&mut self, n: Node<'t>, flow: &mut Flow) -> Option<Vec<Flow>> {
        match n.kind() {
            "switch_statement" => Some(self.switch_parts(n, flow)),
            "if_statement" => {
                let cond = n.field("condition")?;
                let then = n.field("consequence");
                let alt = n.field("alternative");
                if let Some((var, values, when_in)) = self.set_test(cond) {
                    self.expr(cond, flow, false);
                    let known = flow.facts.get(&var).cloned();
                    // The values the variable may still have among the tested ones.
                    let possible: Vec<String> = values
                        .iter()
                        .filter(|v| known.as_ref().is_none_or(|f| f.equals(v) != Some(false)))
                        .cloned()
                        .collect();
                    let surely_in = known
                        .as_ref()
                        .is_some_and(|f| values.iter().any(|v| f.equals(v) == Some(true)));
                    let mut out = Vec::new();
                    for inside in [true, false] {
                        if (inside && possible.is_empty()) || (!inside && surely_in) {
                            continue;
                        }
                        let mut part = flow.clone();
                        let fact = if inside {
                            Fact::one_of(possible.clone())
                        } else {
                            Fact::none_of(known.as_ref(), &values)
                        };
                        part.facts.insert(var.clone(), fact);
                        let body = if inside == when_in { then } else { alt };
                        out.extend(self.branch_body(body, part));
                    }
                    return Some(out);
                }
                // `fread(&n, ..) != 1 || n == 0`: what the condition gives by address is not
                // what was known of it before.
                self.forget_addressed(cond, flow);
                let Some(test) = self.test(cond) else {
                    // `a && b`, `!a || b`: decided when the facts decide it, else both ways.
                    let decided = self.decide(cond, &flow.facts, 0)?;
                    self.expr(cond, flow, false);
                    if let Some(b) = if decided { then } else { alt } {
                        self.statement(b, flow);
                    }
                    return Some(vec![std::mem::take(flow)]);
                };
                let mark = self.mark();
                self.expr(cond, flow, false);
                let direct = self.since(mark);
                let known = flow.facts.get(&test.var).and_then(|f| f.equals(&test.value));
                let holds = known.map(|eq| eq == test.when_equal);
                let mut out = Vec::new();
                for taken in [true, false] {
                    if holds.is_some_and(|h| h != taken) {
                        continue;
                    }
                    let mut part = flow.clone();
                    if holds.is_none() {
                        let equal = taken == test.when_equal;
                        let fact = if equal {
                            Fact::Is(test.value.clone())
                        } else {
                            // Of a case group's labels, the others; else one more it is not.
                            Fact::none_of(part.facts.get(&test.var), std::slice::from_ref(&test.value))
                        };
                        part.facts.insert(test.var.clone(), fact);
                    }
                    self.failed_branch(cond, &direct, taken, &mut part);
                    self.null_branch(cond, taken, &mut part);
                    let body = if taken { then } else { alt };
                    out.extend(self.branch_body(body, part));
                }
                Some(out)
            }
            _ => None,
        }
    }

    /// A branch's body run on its partition: an `else if` on a plain variable splits it
    /// further, so `if (rank == 0) .. else if (rank == 1) ..` knows `rank` after it as two
    /// `if`s would (up to [`MAX_ELSE_IF`] deep).
    fn branch_body(&mut self, body: Option<Node<'t>>, mut part: Flow) -> Vec<Flow> {
        let Some(b) = body else { return vec![part] };
        let inner_if = (b.kind() == "else_clause")
            .then(|| b.named_child(0))
            .flatten()
            .filter(|i| i.kind() == "if_statement");
        if let Some(i) = inner_if
            && self.else_if_depth < MAX_ELSE_IF
        {
            self.else_if_depth += 1;
            let split = self.branch(i, &mut part);
            self.else_if_depth -= 1;
            if let Some(split) = split {
                return split;
            }
            return vec![part];
        }
        self.statement(b, &mut part);
        vec![part]
    }

    /// Whether a condition holds, when the facts say (`a && b`, `a || !b`, simple tests).
    pub(super) fn decide(&self, cond: Node<'t>, facts: &BTreeMap<String, Fact>, depth: u32) -> Option<bool> {
        if depth > 16 {
            return None;
        }
        if let Some(t) = self.test(cond) {
            let eq = facts.get(&t.var)?.equals(&t.value)?;
            return Some(eq == t.when_equal);
        }
        let mut e = cond;
        while matches!(e.kind(), "condition_clause" | "parenthesized_expression") {
            e = e.named_child(0)?;
        }
        match e.kind() {
            "binary_expression" => {
                let op = e.field("operator").map(|o| self.text(o))?;
                let (l, r) = (e.field("left")?, e.field("right")?);
                let (a, b) = (self.decide(l, facts, depth + 1), self.decide(r, facts, depth + 1));
                match op {
                    "&&" => match (a, b) {
                        (Some(false), _) | (_, Some(false)) => Some(false),
                        (Some(true), Some(true)) => Some(true),
                        _ => None,
                    },
                    "||" => match (a, b) {
                        (Some(true), _) | (_, Some(true)) => Some(true),
                        (Some(false), Some(false)) => Some(false),
                        _ => None,
                    },
                    // `frame > 0`, `0 < frame`: a variable against a number.
                    "<" | "<=" | ">" | ">=" => {
                        let flipped = match op {
                            "<" => ">",
                            "<=" => ">=",
                            ">" => "<",
                            _ => "<=",
                        };
                        let (var, num, op) = if l.kind() == "identifier" && r.kind() == "number_literal" {
                            (l, r, op)
                        } else if r.kind() == "identifier" && l.kind() == "number_literal" {
                            (r, l, flipped)
                        } else {
                            return None;
                        };
                        let value = super::parse_int(self.text(num))?;
                        facts.get(self.text(var))?.compares(op, value)
                    }
                    _ => None,
                }
            }
            "unary_expression" if self.text(e).trim_start().starts_with('!') => {
                self.decide(e.field("argument")?, facts, depth + 1).map(|v| !v)
            }
            _ => None,
        }
    }

    /// The variable a condition tests, when it is that simple.
    /// Drops the facts of the variables an expression gives by address (`&n`).
    fn forget_addressed(&self, e: Node<'t>, flow: &mut Flow) {
        let mut stack = vec![e];
        let mut seen = 0;
        while let Some(x) = stack.pop() {
            seen += 1;
            if seen > 10_000 {
                return;
            }
            if x.kind() == "pointer_expression"
                && x.child(0).is_some_and(|o| self.text(o) == "&")
                && let Some(a) = x.field("argument")
                && a.kind() == "identifier"
            {
                flow.facts.remove(self.text(a));
            }
            let mut c = x.walk();
            stack.extend(x.named_children(&mut c));
        }
    }

    /// `x == A || x == B ...` (the branch is taken when `x` is one of them) or `x != A && x !=
    /// B ...` (taken when it is none): the variable, the values, and which way is "one of".
    pub(super) fn set_test(&self, cond: Node<'t>) -> Option<(String, Vec<String>, bool)> {
        let mut e = cond;
        for _ in 0..4 {
            match e.kind() {
                "condition_clause" | "parenthesized_expression" => e = e.named_child(0)?,
                _ => break,
            }
        }
        let op = e.field("operator").map(|o| self.text(o))?;
        let when_in = match op {
            "||" => true,
            "&&" => false,
            _ => return None,
        };
        // The operands, flattened: `a || b || c` is `(a || b) || c`.
        let mut operands = Vec::new();
        let mut stack = vec![e];
        while let Some(x) = stack.pop() {
            if operands.len() > 32 {
                return None;
            }
            let mut x = x;
            while x.kind() == "parenthesized_expression" {
                x = x.named_child(0)?;
            }
            if x.kind() == "binary_expression" && x.field("operator").map(|o| self.text(o)) == Some(op) {
                stack.push(x.field("right")?);
                stack.push(x.field("left")?);
            } else {
                operands.push(x);
            }
        }
        let mut var: Option<String> = None;
        let mut values = Vec::new();
        for o in operands {
            let t = self.test(o)?;
            if t.when_equal != when_in || t.value == "true" || var.as_ref().is_some_and(|v| *v != t.var) {
                return None;
            }
            var = Some(t.var);
            values.push(t.value);
        }
        (values.len() >= 2).then(|| (var.unwrap_or_default(), values, when_in))
    }

    pub(super) fn test(&self, cond: Node<'t>) -> Option<Test> {
        let mut e = cond;
        for _ in 0..4 {
            match e.kind() {
                "condition_clause" | "parenthesized_expression" => e = e.named_child(0)?,
                _ => break,
            }
        }
        match e.kind() {
            "identifier" => Some(Test {
                var: self.text(e).to_string(),
                value: "true".into(),
                when_equal: true,
            }),
            "unary_expression" if self.text(e).trim_start().starts_with('!') => {
                let arg = e.field("argument")?;
                (arg.kind() == "identifier").then(|| Test {
                    var: self.text(arg).to_string(),
                    value: "true".into(),
                    when_equal: false,
                })
            }
            "binary_expression" => {
                let op = e.field("operator").map(|o| self.text(o))?;
                let (l, r) = (e.field("left")?, e.field("right")?);
                let when_equal = match op {
                    "==" => true,
                    "!=" => false,
                    _ => return None,
                };
                let constant = |n: Node<'_>| {
                    matches!(
                        n.kind(),
                        "identifier" | "number_literal" | "qualified_identifier" | "true" | "false"
                    )
                };
                (l.kind() == "identifier" && constant(r)).then(|| Test {
                    var: self.text(l).to_string(),
                    value: self.text(r).to_string(),
                    when_equal,
                })
            }
            _ => None,
        }
    }

    /// `switch`: each case from the state before it (a case that falls through to the next one
    /// is taken as the next one's path), joined; without a `default`, the path that matches none.
    pub(super) fn switch(&mut self, n: Node<'t>, flow: &mut Flow) {
        let parts = self.switch_parts(n, flow);
        *flow = join_parts(parts);
    }

    /// The paths through a `switch`, one per case taken (and one for no case, without a
    /// `default`), each knowing the case it took.
    pub(super) fn switch_parts(&mut self, n: Node<'t>, flow: &mut Flow) -> Vec<Flow> {
        if let Some(c) = n.field("condition") {
            self.expr(c, flow, false);
        }
        let Some(body) = n.field("body") else {
            return vec![std::mem::take(flow)];
        };
        let var = n
            .field("condition")
            .and_then(|c| self.test(c))
            .filter(|t| t.value == "true" && t.when_equal)
            .map(|t| t.var);
        let entry = flow.clone();
        let known = var.as_ref().and_then(|v| entry.facts.get(v).cloned());
        let mut out: Vec<Flow> = Vec::new();
        let mut labels: Vec<String> = Vec::new();
        let mut has_default = false;
        let mut c = body.walk();
        let cases: Vec<Node> = body
            .named_children(&mut c)
            .filter(|case| case.kind() == "case_statement")
            .collect();
        // Cases without statements share the body of the next (`case A: case B: body`): one
        // path for the group, knowing the value is one of its labels.
        let mut group: Vec<Option<String>> = Vec::new();
        for (at, &case) in cases.iter().enumerate() {
            let label = case.field("value").map(|v| self.text(v).to_string());
            has_default |= label.is_none();
            labels.extend(label.clone());
            group.push(label);
            let empty = {
                let mut cc = case.walk();
                case.named_children(&mut cc)
                    .all(|s| Some(s) == case.field("value") || s.kind() == "comment")
            };
            if empty && at + 1 < cases.len() {
                continue;
            }
            let group_labels = std::mem::take(&mut group);
            // A group the path's facts rule out is not taken (a `default` may always be).
            if let Some(f) = &known
                && group_labels
                    .iter()
                    .all(|l| l.as_ref().is_some_and(|l| f.equals(l) == Some(false)))
            {
                continue;
            }
            let mut path = entry.clone();
            if let Some(v) = &var
                && group_labels.iter().all(Option::is_some)
            {
                let mut values: Vec<String> = group_labels.iter().flatten().cloned().collect();
                // What the path already knew narrows the group.
                if let Some(f) = &known {
                    values.retain(|l| f.equals(l) != Some(false));
                }
                path.facts.insert(v.clone(), Fact::one_of(values));
            }
            // The case's statements, then the next case's while no `break` (or `return`)
            // ends the path.
            for &next in &cases[at..] {
                let mut cc = next.walk();
                let stmts: Vec<Node> = next
                    .named_children(&mut cc)
                    .filter(|s| Some(*s) != next.field("value"))
                    .collect();
                for st in stmts {
                    self.statement(st, &mut path);
                }
                if path.dead || ends_case(next) {
                    break;
                }
            }
            // `break` ends a case, not the function.
            path.dead = path.dead && entry.dead;
            out.push(path);
        }
        // A switch over every enumerator of an enum the file defines has no path of no case.
        let covers_enum = !has_default && covers_an_enum(n, &labels, self.src);
        if !has_default
            && !covers_enum
            && known
                .as_ref()
                .is_none_or(|f| labels.iter().all(|l| f.equals(l) != Some(true)))
        {
            let mut none = entry.clone();
            if let Some(v) = &var {
                none.facts.insert(v.clone(), Fact::IsNot(labels));
            }
            out.push(none);
        }
        if out.is_empty() {
            out.push(entry);
        }
        out
    }

    pub(super) fn looped(&mut self, n: Node<'t>, flow: &mut Flow) {
        // `do { .. } while (0)`, a macro's statement: its body, once.
        if n.kind() == "do_statement"
            && n.field("condition").is_some_and(|c| {
                matches!(
                    self.text(c)
                        .trim_matches(|ch: char| ch == '(' || ch == ')' || ch.is_whitespace()),
                    "0" | "false"
                )
            })
        {
            if let Some(b) = n.field("body") {
                self.statement(b, flow);
            }
            return;
        }
        if let Some(init) = n.field("initializer") {
            if is_statement(init.kind()) {
                self.statement(init, flow);
            } else {
                self.expr(init, flow, false);
            }
        }
        // `for (x : range)` reads the range's elements (a container's or an array's memory).
        let mut range = LocSet::new();
        if n.kind() == "for_range_loop"
            && let Some(r) = n.field("right")
        {
            range = self.expr(r, flow, false);
            self.access(r, &range, false, flow);
            // The loop variable is each element in turn; a reference to it, the element.
            if let Some(d) = n.field("declarator")
                && let Some(name) = declared_name(d, self.src)
            {
                let elements = self.field_value(&range, ELEMENTS, flow);
                if contains_kind(d, "reference_declarator") {
                    self.outliving_vars.insert(name.clone());
                }
                flow.vars.insert(name.clone(), elements);
                flow.objects.remove(&name);
                if contains_kind(d, "reference_declarator") && !range.is_empty() {
                    flow.element_refs.insert(name, range.clone());
                } else {
                    flow.element_refs.remove(&name);
                }
            }
        }
        let body = n.field("body");
        let cond = n.field("condition");
        let update = n.field("update");
        let do_while = n.kind() == "do_statement";
        // The elements it visits one per round, and the work it starts.
        let items = self.loop_items(n, &range, flow);
        let loop_mark = self.mark();
        // The state at the loop head: entry joined with the end of each round.
        let mut head = flow.clone();
        if do_while && let Some(b) = body {
            self.statement(b, &mut head);
        }
        // A loop whose body waits (`for (i...) cudaStreamSynchronize(streams[i])`) is taken to
        // run at least once: it waits for what the loop before it, over the same range, issued
        // (the path where it runs zero times is the one where nothing was issued).
        let waits = !do_while && body.is_some_and(|b| self.waits_inside(b));
        // A counter (`for (int f = 0; ..; ++f)`) is its first value in the first round only, and
        // above it in every later one: `if (f > 0)` in the body is decided each round.
        let counter = self.counting_up(n);
        let mut rounds: Option<Flow> = None;
        for round_index in 0..LOOP_ROUNDS {
            let mut round = head.clone();
            if let Some((var, first)) = &counter {
                if round_index == 0 {
                    round.facts.insert(var.clone(), Fact::Is(first.to_string()));
                } else {
                    round.facts.insert(var.clone(), Fact::Above(*first));
                }
            }
            let mut items = items.clone();
            if round_index > 0 {
                items.union_with(&self.loop_offset_views(n));
            }
            if !items.is_empty() {
                let started: OpSet = self.since(loop_mark).ops.into_iter().collect();
                self.next_round(&items, &started, &mut round);
            }
            if let Some(c) = cond {
                self.expr(c, &mut round, false);
            }
            if let Some(b) = body {
                self.statement(b, &mut round);
            }
            if let Some(u) = update {
                self.expr(u, &mut round, false);
            }
            round.dead = false;
            match &mut rounds {
                Some(r) => r.join(&round),
                None => rounds = Some(round.clone()),
            }
            let mut next = head.clone();
            next.join(&round);
            if next == head {
                break;
            }
            head = next;
        }
        *flow = match rounds {
            Some(r) if waits => r,
            _ => head,
        };
        // The loop ends where its condition is tested (a `while (cudaEventQuery(e) ==
        // cudaErrorNotReady)` poll has waited by then).
        if !do_while && let Some(c) = cond {
            self.expr(c, flow, false);
        }
        if let Some((var, _)) = counter {
            flow.facts.remove(&var);
        }
        // `for (;;)`, `while (true)` without a `break` of its own: it is left only by `return`
        // or `throw` (a polling helper's `if (cudaStreamQuery(s) == cudaSuccess) return;`), so
        // no path goes on past it.
        if self.endless(n) && !body.is_some_and(|b| breaks_out(b)) {
            flow.dead = true;
        }
    }

    /// Whether a loop's condition can never end it: none (`for (;;)`), or a constant true.
    fn endless(&self, n: Node<'t>) -> bool {
        match n.kind() {
            "for_statement" => n.field("condition").is_none(),
            "while_statement" | "do_statement" => n.field("condition").is_some_and(|c| {
                let t: String = self
                    .text(c)
                    .chars()
                    .filter(|c| !c.is_whitespace() && *c != '(' && *c != ')')
                    .collect();
                t == "true" || t == "1"
            }),
            _ => false,
        }
    }

    /// The counter of a `for` loop that starts at a number and only counts up by its update
    /// (`for (int i = 0; i < n; ++i)`, `i += 2`): its name and first value. `None` when the body
    /// assigns it too.
    fn counting_up(&self, n: Node<'t>) -> Option<(String, i64)> {
        if n.kind() != "for_statement" {
            return None;
        }
        let init = n.field("initializer")?;
        let (name, first) = match init.kind() {
            "declaration" => {
                let d = init.field("declarator").filter(|d| d.kind() == "init_declarator")?;
                (d.field("declarator")?, d.field("value")?)
            }
            "assignment_expression" => (init.field("left")?, init.field("right")?),
            _ => return None,
        };
        if name.kind() != "identifier" || first.kind() != "number_literal" {
            return None;
        }
        let var = self.text(name).to_string();
        let first = super::parse_int(self.text(first))?;
        let update = n.field("update")?;
        let counts_up = match update.kind() {
            "update_expression" => {
                update.field("argument").is_some_and(|a| self.text(a) == var) && self.text(update).contains("++")
            }
            "assignment_expression" => {
                update.field("left").is_some_and(|l| self.text(l) == var)
                    && update.field("operator").is_some_and(|o| self.text(o) == "+=")
                    && update
                        .field("right")
                        .filter(|r| r.kind() == "number_literal")
                        .and_then(|r| super::parse_int(self.text(r)))
                        .is_some_and(|k| k > 0)
            }
            _ => false,
        };
        if !counts_up {
            return None;
        }
        // Assigned in the body (`i = 0;`, `i--`, `&i` handed on): not a plain counter. Only a
        // counter some branch of the body tests is worth a fact (a fact per round costs rounds).
        let body = n.field("body")?;
        let mut stack = vec![body];
        let mut steps = 0;
        let mut tested = false;
        while let Some(x) = stack.pop() {
            steps += 1;
            if steps > 20_000 {
                return None;
            }
            if matches!(x.kind(), "if_statement" | "conditional_expression")
                && x.field("condition").is_some_and(|c| mentions(c, &var, self.src))
            {
                tested = true;
            }
            let target = match x.kind() {
                "assignment_expression" => x.field("left"),
                "update_expression" => x.field("argument"),
                "pointer_expression" if self.text(x).starts_with('&') => x.field("argument"),
                _ => None,
            };
            if target.is_some_and(|t| self.text(t) == var) {
                return None;
            }
            let mut c = x.walk();
            stack.extend(x.named_children(&mut c));
        }
        tested.then_some((var, first))
    }

    pub(super) fn declaration(&mut self, n: Node<'t>, flow: &mut Flow) {
        let written_ty = n.field("type").map(|t| self.text(t)).unwrap_or("");
        let ty = self.classes.resolve(written_ty);
        let mut c = n.walk();
        let decls: Vec<Node> = n.children_by_field_name("declarator", &mut c).collect();
        for d in decls {
            let (declarator, value) = if d.kind() == "init_declarator" {
                (d.field("declarator"), d.field("value"))
            } else {
                (Some(d), None)
            };
            let Some(declarator) = declarator else { continue };
            let Some(name) = declared_name(declarator, self.src) else {
                continue;
            };
            let is_array = declarator_has(declarator, "array_declarator");
            let is_pointer = declarator_has(declarator, "pointer_declarator");
            let is_reference = declarator_has(declarator, "reference_declarator");
            if is_reference || self.text(n).trim_start().starts_with("static") {
                self.outliving_vars.insert(name.clone());
            }
            self.var_types.insert(
                name.clone(),
                (written_ty, array_lengths(declarator, self.src), is_pointer),
            );
            if let Some(v) = value
                && v.kind() == "lambda_expression"
            {
                self.lambdas.insert(self.text(declarator), v);
            }
            // An object of a class the file defines: made, its constructor run on it.
            if !is_pointer
                && !is_reference
                && !is_array
                && let Some(class) = self.class_of_type(ty)
                && value.is_none_or(|v| !self.calls_own_function(v))
            {
                let args: Vec<Node<'t>> = match value {
                    // `Foo f(a, b);`, which the parser reads as a function's declaration.
                    None if declarator.kind() == "function_declarator" => objects::argument_nodes(declarator),
                    None => Vec::new(),
                    Some(v) if matches!(v.kind(), "argument_list" | "initializer_list") => objects::argument_nodes(v),
                    // `Foo f = Foo(a, b);`
                    Some(v)
                        if v.kind() == "call_expression"
                            && v.field("function")
                                .is_some_and(|f| self.class_of_type(self.text(f)) == Some(class)) =>
                    {
                        v.field("arguments").map(objects::argument_nodes).unwrap_or_default()
                    }
                    Some(v) => {
                        // A copy of another object: that object.
                        let vals = self.expr(v, flow, false);
                        if v.kind() == "identifier"
                            && let Some(&o) = flow.objects.get(self.text(v))
                        {
                            flow.objects.insert(name.clone(), o);
                            flow.vars.insert(name, LocSet::new());
                            continue;
                        }
                        let _ = vals;
                        Vec::new()
                    }
                };
                let o = self.loc_at(declarator, "object", Some(MemKind::Pageable), Some(name.clone()), false);
                self.construct(declarator, class, o, &args, flow, 0);
                flow.objects.insert(name.clone(), o);
                flow.vars.insert(name, LocSet::new());
                continue;
            }
            // A smart pointer made over a pointer: its deleter is checked against it.
            let smart_args = match value {
                Some(v) if matches!(v.kind(), "argument_list" | "initializer_list") => Some(objects::argument_nodes(v)),
                // `std::unique_ptr<float[]> p(raw);`, read by the parser as a function's declaration.
                None if declarator.kind() == "function_declarator" => Some(objects::argument_nodes(declarator)),
                _ => None,
            };
            if !is_pointer
                && objects::smart_pointer(ty).is_some()
                && let Some(args) = smart_args
            {
                self.smart_pointer_made(ty, &args, flow);
                let held = args.first().map(|a| self.expr(*a, flow, false)).unwrap_or_default();
                self.name_new(&held, &name);
                flow.objects.remove(&name);
                flow.vars.insert(name, held);
                continue;
            }
            let container = (!is_pointer).then(|| self.container_kind_of(ty)).flatten();
            let target = if is_array || container.is_some() {
                // Memory the variable is: a stack array, a `std::vector`'s buffer, a
                // `thrust::device_vector`'s.
                let l = self.container(declarator, container.unwrap_or(MemKind::Pageable), &name);
                if let Some(v) = value {
                    self.expr(v, flow, false);
                }
                if self.locs[l.0 as usize].bytes.is_none() {
                    self.locs[l.0 as usize].bytes = self.fixed_bytes(&name, ty, is_array, value);
                }
                self.vector_lengths.remove(&name);
                if !is_array
                    && let Some(bytes) = self.locs[l.0 as usize].bytes
                    && let Some(elem) = objects::template_args(self.classes.resolve(ty)).first().copied()
                    && let Some(each) = self.byte_count(&format!("sizeof({elem})")).filter(|e| *e > 0)
                {
                    self.vector_lengths.insert(name.clone(), bytes / each);
                }
                LocSet::single(l)
            } else if let Some(v) = value {
                let mark = self.mark();
                let mut vals = self.expr(v, flow, false);
                let since = self.since(mark);
                if v.kind() == "call_expression" {
                    flow.statuses.insert(name.clone(), since);
                } else {
                    flow.statuses.remove(&name);
                }
                // `cudaStream_t s = 0;`: the legacy stream.
                if is_null(self.text(v)) && ty.contains("Stream") {
                    vals = LocSet::single(self.legacy);
                }
                if self.calls_own_function(v) {
                    self.rename(&vals, &name);
                } else {
                    self.name_new(&vals, &name);
                }
                // `float* d = nullptr;`: no memory until something gives it some.
                let device_pointer = ty.trim() == "CUdeviceptr";
                if (is_pointer || device_pointer)
                    && is_null(self.text(v))
                    && !ty.contains("Stream")
                    && !ty.contains("Event")
                {
                    vals = LocSet::single(self.null);
                }
                if vals.is_empty() && is_pointer {
                    vals = LocSet::single(self.unknown);
                }
                // `const int nx = get_arg(..);`: a number points to nothing, whatever the helper
                // returned (its own local, by value).
                if !is_pointer && !is_array && !device_pointer && super::objects::is_scalar_type(ty) {
                    vals = LocSet::new();
                }
                vals
            } else if is_pointer
                && self.text(n).trim_start().starts_with("static")
                && self.changed_names.as_ref().is_some_and(|c| !c.contains(&name))
            {
                // `static float* p;` that nothing in the file assigns: zero-initialized, null.
                LocSet::single(self.null)
            } else {
                LocSet::new()
            };
            // A local object or scalar (not a handle): host memory of its own, for `&x`; one a
            // helper of the file returns is the helper's object.
            let returned_object = value
                .filter(|v| !is_pointer && self.calls_own_function(*v))
                .and_then(|_| {
                    let mut it = target.iter();
                    match (it.next(), it.next()) {
                        (Some(o), None) => Some(o),
                        _ => None,
                    }
                });
            // `Shard& sh = shards[g];`, `auto& cfg = job.config;`, `Entry& e = lru.back();`: a
            // reference names the object.
            let referenced = value
                .filter(|v| {
                    is_reference
                        && !is_pointer
                        && matches!(
                            v.kind(),
                            "subscript_expression" | "field_expression" | "identifier" | "call_expression"
                        )
                })
                .map(|v| match v.kind() {
                    "identifier" => match flow.objects.get(self.text(v)) {
                        Some(&o) => LocSet::single(o),
                        None => LocSet::new(),
                    },
                    // What the call returned (already run above), when it is an object.
                    "call_expression" => target
                        .iter()
                        .filter(|&o| {
                            self.object_class.contains_key(&o)
                                || flow.fields.keys().any(|(k, f)| *k == o && f != ELEMENTS)
                        })
                        .collect(),
                    _ => self.object_of(v, false, flow),
                })
                .and_then(|objs| {
                    let mut it = objs.iter();
                    match (it.next(), it.next()) {
                        (Some(o), None) => Some(o),
                        _ => None,
                    }
                });
            if let Some(o) = returned_object.or(referenced) {
                flow.objects.insert(name.clone(), o);
            } else if !is_pointer
                && !is_array
                && is_host_object_type(ty)
                && !declarator_has(declarator, "reference_declarator")
            {
                let o = self.loc_at(declarator, "object", Some(MemKind::Pageable), Some(name.clone()), false);
                flow.objects.insert(name.clone(), o);
            } else {
                flow.objects.remove(&name);
            }
            flow.facts.remove(&name);
            if let Some(v) = value
                && matches!(v.kind(), "true" | "false" | "number_literal")
            {
                flow.facts.insert(name.clone(), Fact::Is(self.text(v).to_string()));
            }
            flow.vars.insert(name, target);
        }
    }

    /// Whether a loop body calls a function that waits for the device (a stream, an event or
    /// the device synchronized), directly: not inside a nested branch.
    pub(super) fn waits_inside(&self, body: Node<'t>) -> bool {
        self.waits_within(body, 0)
    }

    /// [`Self::waits_inside`], looking into the file's functions it calls, `depth` of them deep
    /// (bounded by `MAX_INLINE`).
    pub(super) fn waits_within(&self, body: Node<'t>, depth: usize) -> bool {
        // Completing MPI requests and polling (`while (!done) MPI_Test(&req, &done, ..)`) too.
        let is_wait = |e: &Effect| {
            matches!(
                e,
                Effect::SyncStream(_)
                    | Effect::SyncEvent(_)
                    | Effect::SyncDevice
                    | Effect::QueryStream(_)
                    | Effect::QueryEvent(_)
                    | Effect::CompletesRequests { .. }
                    | Effect::TestsRequests { .. }
            )
        };
        let mut stack = vec![body];
        let mut seen = 0;
        while let Some(n) = stack.pop() {
            seen += 1;
            if seen > 10_000 {
                return false;
            }
            match n.kind() {
                "if_statement"
                | "switch_statement"
                | "conditional_expression"
                | "lambda_expression"
                | "for_statement"
                | "while_statement"
                | "do_statement"
                | "for_range_loop" => continue,
                "call_expression" => {
                    let f = n.field("function");
                    let name = f.map(|f| callee_name(f, self.src)).unwrap_or_default();
                    let configured = f.and_then(|f| self.configured_effects(f));
                    if api::effects(&name).is_some_and(|e| e.iter().any(is_wait))
                        || configured.is_some_and(|e| e.iter().any(is_wait))
                    {
                        return true;
                    }
                    // A helper of the file that waits (`wait_for(streams[i])`), or a method of one
                    // of its classes (`w->wait()`).
                    let defs = self
                        .functions
                        .get(name.as_str())
                        .copied()
                        .into_iter()
                        .chain(self.classes.methods_named(&name));
                    for d in defs {
                        if depth < MAX_INLINE
                            && let Some(b) = d.field("body")
                            && self.waits_within(b, depth + 1)
                        {
                            return true;
                        }
                    }
                }
                _ => {}
            }
            let mut c = n.walk();
            stack.extend(n.named_children(&mut c));
        }
        false
    }

    /// Whether `v` is a call of one of the file's functions (its result is named after the
    /// caller's variable: one helper called three times makes one abstract memory, and each
    /// finding should name the variable the caller uses now).
    pub(super) fn calls_own_function(&self, v: Node<'t>) -> bool {
        v.kind() == "call_expression"
            && v.field("function")
                .is_some_and(|f| self.functions.contains_key(callee_name(f, self.src).as_str()))
    }
}

/// Whether the function a `return` belongs to returns a reference (`T& at(size_t i)`).
fn returns_reference(ret: Node<'_>) -> bool {
    let mut up = ret.parent();
    let mut steps = 0;
    while let Some(p) = up {
        steps += 1;
        if steps > 256 || p.kind() == "lambda_expression" {
            return false;
        }
        if p.kind() == "function_definition" {
            return p
                .field("declarator")
                .is_some_and(|d| d.kind() == "reference_declarator");
        }
        up = p.parent();
    }
    false
}

/// Whether the expression names the variable `var` (bounded).
fn mentions(n: Node<'_>, var: &str, src: &str) -> bool {
    let mut stack = vec![n];
    let mut steps = 0;
    while let Some(x) = stack.pop() {
        steps += 1;
        if steps > 2_000 {
            return false;
        }
        if x.kind() == "identifier" && x.utf8_text(src.as_bytes()).is_ok_and(|t| t == var) {
            return true;
        }
        let mut c = x.walk();
        stack.extend(x.named_children(&mut c));
    }
    false
}

/// Whether a loop body has a `break` that leaves this loop (not one of a nested loop or
/// `switch`), or a `goto` (which may leave it too).
fn breaks_out(body: Node<'_>) -> bool {
    let mut stack = vec![body];
    let mut steps = 0;
    while let Some(x) = stack.pop() {
        steps += 1;
        if steps > 20_000 {
            return true;
        }
        match x.kind() {
            "break_statement" | "goto_statement" => return true,
            "for_statement" | "while_statement" | "do_statement" | "for_range_loop" | "switch_statement"
            | "lambda_expression"
                if x != body =>
            {
                continue;
            }
            _ => {}
        }
        let mut c = x.walk();
        stack.extend(x.named_children(&mut c));
    }
    false
}

/// Whether a `case` ends with its own `break` (or `return`, `continue`, `goto`, `throw`), at
/// its level or in a block that is its body: what follows is not run after it.
fn ends_case(case: Node<'_>) -> bool {
    let mut c = case.walk();
    case.named_children(&mut c).any(|s| match s.kind() {
        "break_statement" | "return_statement" | "continue_statement" | "goto_statement" | "throw_statement" => true,
        "compound_statement" => {
            let mut cc = s.walk();
            s.named_children(&mut cc).any(|t| {
                matches!(
                    t.kind(),
                    "break_statement"
                        | "return_statement"
                        | "continue_statement"
                        | "goto_statement"
                        | "throw_statement"
                )
            })
        }
        "expression_statement" => s.named_child(0).is_some_and(|e| e.kind() == "throw_expression"),
        _ => false,
    })
}

/// Whether `labels` name every enumerator of one enum the file defines (`Kind::A` is `A`).
fn covers_an_enum(switch: Node<'_>, labels: &[String], src: &str) -> bool {
    let last = |l: &str| l.rsplit("::").next().unwrap_or(l).trim().to_string();
    let named: std::collections::HashSet<String> = labels.iter().map(|l| last(l)).collect();
    if named.is_empty() {
        return false;
    }
    let mut root = switch;
    while let Some(p) = root.parent() {
        root = p;
    }
    let mut stack = vec![root];
    let mut seen = 0;
    while let Some(x) = stack.pop() {
        seen += 1;
        if seen > 200_000 {
            return false;
        }
        if x.kind() == "enumerator_list" {
            let mut c = x.walk();
            let names: Vec<String> = x
                .named_children(&mut c)
                .filter(|e| e.kind() == "enumerator")
                .filter_map(|e| e.child_by_field_name("name"))
                .map(|n| n.utf8_text(src.as_bytes()).unwrap_or("").to_string())
                .collect();
            if !names.is_empty() && names.iter().any(|n| named.contains(n)) {
                return names.iter().all(|n| named.contains(n));
            }
            continue;
        }
        // Enums sit at file or class scope, not in function bodies.
        if x.kind() == "function_definition" {
            continue;
        }
        let mut c = x.walk();
        stack.extend(x.named_children(&mut c));
    }
    false
}
