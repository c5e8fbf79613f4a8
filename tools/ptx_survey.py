#!/usr/bin/env python3
"""Survey the syntax used by a set of PTX files: directives, opcodes (with all modifiers),
special registers, operand shapes, and odd lexical forms, each with a count and one example
(file:line). Meant to tell a PTX parser author what real nvcc/NVRTC output contains.

    python3 tools/ptx_survey.py isa/tests/corpus/ptx/*.ptx > survey.md
    python3 tools/ptx_survey.py --opcodes-only DIR...    # just the sorted opcode list

A rough lexer, not a parser: statements are split on ';' outside comments/strings, `{`/`}` lines and
labels are recognised by shape. Good enough to inventory; not a reference.
"""
import collections
import re
import sys
from pathlib import Path


def files_from(args):
    out = []
    for a in args:
        p = Path(a)
        out.extend(sorted(p.glob("*.ptx")) if p.is_dir() else [p])
    return out


class Inv:
    def __init__(self):
        self.count = collections.Counter()
        self.example = {}

    def add(self, key, where):
        self.count[key] += 1
        self.example.setdefault(key, where)

    def rows(self):
        return sorted(self.count.items(), key=lambda kv: (-kv[1], kv[0]))


ODD = [
    ("pred_pair_dest  `%r|%p`", re.compile(r"%\w+\|%?\w+|\b\w+\|\w+\b")),
    ("sink `_` operand", re.compile(r"(?<![\w$%.])_(?![\w$])")),
    ("hex f32 immediate 0fXXXXXXXX", re.compile(r"\b0[fF][0-9a-fA-F]{8}\b")),
    ("hex f64 immediate 0dXXXXXXXXXXXXXXXX", re.compile(r"\b0[dD][0-9a-fA-F]{16}\b")),
    ("hex int immediate 0x...", re.compile(r"\b0[xX][0-9a-fA-F]+U?\b")),
    ("negative int immediate", re.compile(r"(?<=[,\s])-\d+\b")),
    ("vector operand {a, b, ...}", re.compile(r"\{\s*%\w+\s*,")),
    ("address [reg+imm]", re.compile(r"\[%\w+\+-?\d+\]")),
    ("address [symbol] / [symbol+imm]", re.compile(r"\[[A-Za-z_$][\w$]*(\+-?\d+)?\]")),
    ("tensor address [tmap, {coords}]", re.compile(r"\[%\w+,\s*\{")),
    ("texture/surface address [tex, {..}]", re.compile(r"\[%rd\d+,\s*\{%")),
    ("negated predicate @!%p", re.compile(r"@!%?\w+")),
    ("predicate guard @%p / @p", re.compile(r"@%?\w+")),
    ("label $L__BBn_m", re.compile(r"\$L__\w+")),
    ("$-names ($str, $str$1)", re.compile(r"\$str(\$\d+)?")),
    ("generic(sym) initializer", re.compile(r"generic\(\w+\)")),
    ("register range decl %r<N>", re.compile(r"%\w+<\d+>")),
    ("%SP / %SPL stack pointers", re.compile(r"%SPL?\b")),
    ("trailing // comment after code", re.compile(r";\s*//")),
    ("param symbol address (mov.b64 %rd, kernel_param_N)", re.compile(r"mov\.b64\s+%rd\d+,\s*\w+_param_\d+;")),
    ("inlined_at in .loc", re.compile(r"inlined_at")),
    ("function_name in .loc", re.compile(r"function_name")),
    ("string literal", re.compile(r"\"[^\"]*\"")),
]

SREG = re.compile(r"%(tid|ntid|ctaid|nctaid|laneid|warpid|nwarpid|smid|nsmid|gridid|lanemask_\w+|clock64|clock_hi|clock|"
                  r"globaltimer\w*|pm\d\w*|envreg\d+|dynamic_smem_size|total_smem_size|aggr_smem_size|"
                  r"cluster_\w+|clusterid|nclusterid|is_explicit_cluster|reserved_smem\w*|current_graph_exec)(\.[xyz])?\b")


HEADER_WORDS = (".visible", ".weak", ".extern", ".entry", ".func", ".common")
PERF = re.compile(r"\.(maxntid|reqntid|minnctapersm|maxnctapersm|maxnreg|explicitcluster|reqnctapercluster|"
                  r"maxclusterrank|noreturn|pragma|blocksareclusters)\b")


def statements(text):
    """Yield (line, kind, text). kind: 'stmt' (ends with ';'), 'line' (.loc/.file/.section/data lines
    inside a .section block, no ';'), 'header' (.entry/.func up to '{' or ';'), 'label', 'open', 'close'."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    buf, buf_line, depth_paren, depth_brace_op = "", 0, 0, 0
    in_section = 0          # >0 while inside `.section name { ... }`
    pending_section = False
    lines = text.split("\n")
    for ln, raw in enumerate(lines, 1):
        line = raw
        # strip // comments (PTX has no // inside strings in practice except .file paths, which use "..")
        if "//" in line:
            q = line.find('"')
            c = line.find("//")
            if q == -1 or c < q:
                line = line[:c]
        st = line.strip()
        if not buf and st.startswith((".loc", ".file", ".version", ".target", ".address_size")):
            yield ln, "line", st
            continue
        if not buf and st.startswith(".section"):
            yield ln, "line", st
            pending_section = True
            continue
        if in_section or pending_section:
            if st == "{":
                in_section += 1; pending_section = False; yield ln, "open", "{ (section)"; continue
            if st == "}":
                in_section -= 1; yield ln, "close", "} (section)"; continue
            if st:
                m = re.match(r"^([A-Za-z_$][\w$]*)\s*:(.*)$", st)
                if m:
                    yield ln, "label", m.group(1)
                    st = m.group(2).strip()
                if st:
                    yield ln, "line", st
            continue
        i = 0
        while i < len(line):
            ch = line[i]
            if not buf.strip():
                if ch in " \t":
                    i += 1; continue
                if ch == "{":
                    yield ln, "open", "{"; i += 1; continue
                if ch == "}":
                    yield ln, "close", "}"; i += 1; continue
                m = re.match(r"([A-Za-z_$][\w$]*)\s*:(?!:)", line[i:])
                if m:
                    yield ln, "label", m.group(1); i += m.end(); continue
                buf, buf_line = "", ln
            b = buf.lstrip()
            is_header = any(b.startswith(w) for w in HEADER_WORDS) and not re.match(r"\.(visible|weak|extern|common)\s+\.(global|shared|const|local)", b)
            if ch == "(":
                depth_paren += 1
            elif ch == ")":
                depth_paren -= 1
            elif ch == "{":
                if is_header and depth_paren == 0:
                    yield buf_line, "header", buf.strip(); buf = ""; yield ln, "open", "{"; i += 1; continue
                depth_brace_op += 1
            elif ch == "}":
                depth_brace_op -= 1
            elif ch == ";" and depth_paren == 0 and depth_brace_op <= 0:
                depth_brace_op = 0
                yield buf_line, "header" if is_header else "stmt", (buf + ";").strip(); buf = ""; i += 1; continue
            buf += ch
            i += 1
        if buf:
            buf += "\n"
        # a header's perf directives (.maxntid 128, 1, 1) sit on their own lines without ';'


def main():
    args = sys.argv[1:]
    opcodes_only = False
    if args and args[0] == "--opcodes-only":
        opcodes_only = True
        args = args[1:]
    files = files_from(args)
    directives, opcodes, bases, sregs, odd, headers, perf = Inv(), Inv(), Inv(), Inv(), Inv(), Inv(), Inv()
    for f in files:
        text = f.read_text(errors="replace")
        raw_lines = text.split("\n")
        for ln, kind, st in statements(text):
            where = f"{f.name}:{ln}"
            if kind in ("open", "close"):
                directives.add(st, where); continue
            if kind == "label":
                directives.add("label $..." if st.startswith("$") else "label (plain)", where); continue
            flat = " ".join(st.split())
            for m in SREG.finditer(flat):
                sregs.add("%" + m.group(1) + (m.group(2) or ""), where)
            for name, rx in ODD:
                src = raw_lines[ln - 1] if "comment" in name else flat
                if rx.search(src):
                    odd.add(name, where)
            if kind == "header":
                words = [w for w in re.findall(r"\.\w+", flat.split("(")[0]) if w in HEADER_WORDS]
                shape = " ".join(words)
                shape += " (retval)" if re.search(r"\.func\s*\(", flat) else ""
                shape += " decl;" if flat.endswith(";") else " {body}"
                headers.add(shape, where)
                for m in PERF.finditer(flat):
                    perf.add("." + m.group(1), where)
                for m in re.finditer(r"\.param\s+(\.align\s+\d+\s+)?(\.ptr\s+\.\w+\s+(\.align\s+\d+\s+)?)?\.(\w+)(\s+\w+)?(\[\d*\])?", flat):
                    pshape = ".param " + ("align " if m.group(1) else "") + ("ptr " if m.group(2) else "") + "." + m.group(4) + ("[N]" if m.group(6) else "")
                    directives.add("header " + pshape, where)
                continue
            if kind == "line":
                head = flat.split()[0] if flat else ""
                if head.startswith("."):
                    directives.add(head + (" (data line, no ;)" if head in (".b8", ".b16", ".b32", ".b64") else ""), where)
                    if head in (".maxntid", ".reqntid", ".minnctapersm", ".maxnreg", ".explicitcluster",
                                ".reqnctapercluster", ".maxclusterrank", ".noreturn"):
                        perf.add(head, where)
                continue
            s = flat
            if s.startswith("@"):
                s = s.split(None, 1)[1] if " " in s else s
            tok = re.match(r"^[.A-Za-z_][\w.:$]*", s)
            if not tok:
                directives.add("?? " + s[:30], where); continue
            t = tok.group(0)
            if t.startswith("."):
                if t in (".maxntid", ".reqntid", ".minnctapersm", ".maxnreg", ".explicitcluster", ".reqnctapercluster", ".maxclusterrank", ".noreturn"):
                    perf.add(t, where)
                head = t
                words = re.findall(r"\.(?:attribute\(\.\w+\)|[A-Za-z_]\w*)", s.split("=")[0])
                if t in (".global", ".shared", ".const", ".local", ".extern", ".visible", ".weak", ".common"):
                    space = [w for w in words if w in (".global", ".shared", ".const", ".local")]
                    link = [w for w in words if w in (".visible", ".extern", ".weak", ".common")]
                    head = " ".join(link + space)
                    if ".attribute(.managed)" in words: head += " .attribute(.managed)"
                    if re.search(r"\[\]\s*;$", s.split("=")[0] + ";"): head += " name[]"
                    elif re.search(r"\[\d+\]", s.split("=")[0]): head += " name[N]"
                    if "=" in s:
                        init = s.split("=", 1)[1]
                        head += " = {list}" if "{" in init else " = scalar"
                        if "generic(" in init: head += " (generic(sym) addr)"
                        elif re.search(r"[A-Za-z_]\w*", init.replace("0f", "").replace("0d", "")) and not re.search(r"\b0[fd][0-9A-F]+\b", init): head += " (symbol addr)"
                elif t == ".reg":
                    head = ".reg" + (" %name<N>" if "<" in s else " name")
                directives.add(head, where)
            else:
                opcodes.add(t, where)
                bases.add(t.split(".")[0], where)
    if opcodes_only:
        for k, n in opcodes.rows():
            print(f"{n:7d}  {k}")
        return
    print(f"# PTX syntax survey: {len(files)} files\n")
    print("Generated by tools/ptx_survey.py (a rough statement splitter, not a parser).\n")
    for title, inv in (("Statement shapes and data directives", directives), ("Function headers", headers),
                       ("Performance-tuning directives", perf), ("Special registers", sregs),
                       ("Lexical and operand forms", odd), ("Base opcodes", bases),
                       ("Full opcodes (with modifiers)", opcodes)):
        print(f"## {title} ({len(inv.count)})\n")
        print("| count | item | first seen |\n|---:|---|---|")
        for k, n in inv.rows():
            print(f"| {n} | `{k}` | {inv.example[k]} |")
        print()


if __name__ == "__main__":
    main()
