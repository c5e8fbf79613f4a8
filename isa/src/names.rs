//! Kernel names as the tools print them. A C++ kernel's PTX entry is its mangled name
//! (`_Z6KernelP4NodePiPbS2_S2_S1_i`); `c++filt` and Nsight Compute's `--print-kernel-base
//! demangled` print `Kernel(Node*, int*, bool*, bool*, bool*, int*, int)`, ncu's default
//! (`function`) prints `Kernel`. [`demangle`] gives the first form, [`base_name`] reduces any
//! of the three to the last: the function's own name, without return type, scope, template
//! arguments or parameters, so names from different tools can be compared.

/// The demangled name (`void scale<4>(float*, int)`); names that are not C++ mangled
/// (`extern "C"` kernels) come back unchanged.
pub fn demangle(name: &str) -> String {
    cpp_demangle::Symbol::new(name)
        .ok()
        .and_then(|s| s.demangle(&cpp_demangle::DemangleOptions::default()).ok())
        .unwrap_or_else(|| name.to_string())
}

/// The function's own name: `_Z6expandIiEvPKi`, `void expand<int>(int const*)`, `ns::expand`
/// and `expand` all give `expand`.
pub fn base_name(name: &str) -> String {
    let name = name.trim();
    let full = if name.starts_with("_Z") { demangle(name) } else { name.to_string() };
    // Everything before the parameter list, template arguments removed (nested angle brackets
    // and parentheses inside them included).
    let mut head = String::new();
    let mut depth = 0usize;
    for c in full.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            '(' if depth == 0 => break,
            _ if depth == 0 => head.push(c),
            _ => {}
        }
    }
    let last = head.split_whitespace().last().unwrap_or("");
    last.rsplit("::").next().unwrap_or(last).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_from_every_tool_meet() {
        assert_eq!(demangle("_Z1kILi3EEvPi"), "void k<3>(int*)");
        assert_eq!(demangle("_Z6KernelP4NodePiPbS2_S2_S1_i"), "Kernel(Node*, int*, bool*, bool*, bool*, int*, int)");
        assert_eq!(demangle("vecadd"), "vecadd");
        for n in ["_Z6KernelP4NodePiPbS2_S2_S1_i", "Kernel(Node *, int *, bool *, bool *, bool *, int *, int)", "Kernel"] {
            assert_eq!(base_name(n), "Kernel", "{n}");
        }
        for n in ["_Z6expandIiEvPKiS1_PiPKhPhi", "void expand<int>(const int *, int *)", "expand<int>", "ns::detail::expand<std::pair<int, float>>"] {
            assert_eq!(base_name(n), "expand", "{n}");
        }
        assert_eq!(base_name("strided_copy(float *, int)"), "strided_copy");
        assert_eq!(base_name("vector_add"), "vector_add");
    }
}
