"""Mutators of a CUDA source for mutation-campaign.py. The verdict is the same for all of them:
`instrument` and `rewrite --sites S --layout soa` either refuse cleanly, or every file rewrite
wrote compiles with nvcc. Each edit is one a user could make (or a typo)."""

import re

from campaign_json import ANY, Mutation

TOKEN = re.compile(r"[A-Za-z_]\w*|\d+(?:\.\d*)?f?|->|<<|>>|[-+*/%&|^!=<>]=?|[(){}\[\];,.?:~]")


def struct_body(text):
    """(name, start, end) of the first struct definition's body, between its braces."""
    m = re.search(r"\bstruct\s+(\w+)\s*\{", text)
    if not m:
        return None
    end = text.index("};", m.end())
    return m.group(1), m.end(), end


def fields_of(text):
    sb = struct_body(text)
    if not sb:
        return []
    body = re.sub(r"//.*", "", text[sb[1]:sb[2]])
    names = []
    for decl in body.split(";"):
        decl = re.sub(r"\[[^\]]*\]", "", decl).strip()
        if not decl or "(" in decl:
            continue
        parts = decl.split(",")
        first = parts[0].split()
        if len(first) >= 2:
            names.append(first[-1].strip("*&"))
            names += [p.strip().strip("*&") for p in parts[1:] if p.strip()]
    return [n for n in names if re.fullmatch(r"[A-Za-z_]\w*", n)]


def kernel_lines(text):
    """Line numbers inside __global__ function bodies that access an element's field."""
    lines = text.split("\n")
    out, depth, inside = [], 0, False
    for i, line in enumerate(lines):
        if "__global__" in line:
            inside, depth = True, 0
        if inside:
            depth += line.count("{") - line.count("}")
            if re.search(r"\]\s*\.\s*\w+|->\s*\w+", line) and "__global__" not in line:
                out.append(i)
            if depth <= 0 and "}" in line:
                inside = False
    return out


def src_delete_line(rng, text, ctx):
    lines = text.split("\n")
    i = rng.randrange(len(lines))
    del lines[i]
    return Mutation("delete-line", ANY, "\n".join(lines).encode(), line=i + 1)


def src_duplicate_line(rng, text, ctx):
    lines = text.split("\n")
    i = rng.randrange(len(lines))
    lines.insert(i, lines[i])
    return Mutation("duplicate-line", ANY, "\n".join(lines).encode(), line=i + 1)


def src_token(rng, text, ctx):
    toks = list(TOKEN.finditer(text))
    t = rng.choice(toks)
    if rng.random() < 0.5:
        return Mutation("delete-token", ANY, (text[: t.start()] + text[t.end():]).encode(), token=t.group())
    return Mutation("duplicate-token", ANY, (text[: t.end()] + " " + t.group() + text[t.end():]).encode(), token=t.group())


def src_rename_use(rng, text, ctx):
    names = fields_of(text)
    uses = [m for m in re.finditer(r"(\.|->)\s*(\w+)\b", text) if m.group(2) in names]
    if not uses:
        return None
    m = rng.choice(uses)
    new = rng.choice([n for n in names if n != m.group(2)] + ["nosuch"])
    return Mutation("rename-field-use", ANY, (text[: m.start(2)] + new + text[m.end(2):]).encode(), old=m.group(2), new=new)


def src_field_type(rng, text, ctx):
    sb = struct_body(text)
    if not sb:
        return None
    _, a, b = sb
    body = text[a:b]
    types = list(re.finditer(r"\b(float|double|int|unsigned|char|short|long)\b", body))
    if not types:
        return None
    t = rng.choice(types)
    new = rng.choice(["double", "int", "char", "short", "long long", "float2", "unsigned char", "bool", "__half",
                      "const float", "volatile float", "float&"])
    body = body[: t.start()] + new + body[t.end():]
    return Mutation("field-type", ANY, (text[:a] + body + text[b:]).encode(), new=new)


def src_ifdef_arch(rng, text, ctx):
    lines = text.split("\n")
    cands = kernel_lines(text)
    if not cands:
        return None
    i = rng.choice(cands)
    names = fields_of(text)
    other = re.sub(r"\.(\w+)\b", lambda m: "." + rng.choice(names) if m.group(1) in names else m.group(0), lines[i])
    lines[i: i + 1] = ["#ifdef __CUDA_ARCH__", lines[i], "#else", other, "#endif"]
    return Mutation("ifdef-cuda-arch", ANY, "\n".join(lines).encode(), line=i + 1)


def src_member_function(rng, text, ctx):
    sb = struct_body(text)
    names = fields_of(text)
    if not sb or not names:
        return None
    name, a, b = sb
    f = rng.choice(names)
    choice = rng.randrange(3)
    if choice == 0:
        member = "\n  __host__ __device__ float get_%s() const { return %s; }\n" % (f, f)
    elif choice == 1:
        member = "\n  __device__ void bump() { %s += 1; }\n" % f
    else:
        member = "\n  %s& operator+=(const %s& o) { %s += o.%s; return *this; }\n" % (name, name, f, f)
    out = text[:b] + member + text[b:]
    cands = kernel_lines(out)
    if cands and rng.random() < 0.7:
        lines = out.split("\n")
        i = rng.choice(cands)
        use = {0: "  { float t_ = p[i].get_%s(); (void)t_; }" % f, 1: "  p[i].bump();", 2: "  p[i] += p[i];"}[choice]
        lines.insert(i + 1, use)
        out = "\n".join(lines)
    return Mutation("member-function", ANY, out.encode(), field=f)


def src_address_of(rng, text, ctx):
    cands = kernel_lines(text)
    names = fields_of(text)
    sb = struct_body(text)
    if not cands or not names or not sb:
        return None
    lines = text.split("\n")
    i = rng.choice(cands)
    f = rng.choice(names)
    line = rng.choice(["  { float* q_ = &p[i].%s; *q_ += 0.0f; }" % f,
                       "  { %s* e_ = &p[i]; e_->%s += 0.0f; }" % (sb[0], f),
                       "  { %s c_ = p[i]; p[i] = c_; }" % sb[0],
                       "  { char* b_ = (char*)&p[i]; (void)b_; }"])
    lines.insert(i + 1, line)
    return Mutation("address-of-element", ANY, "\n".join(lines).encode(), line=i + 2)


def src_unusual_member(rng, text, ctx):
    sb = struct_body(text)
    if not sb:
        return None
    member = rng.choice(["union { float f; int i; } u_;", "struct { float a, b; } pair_;", "unsigned flag_ : 3;",
                         "float hist_[4];", "static const int k_ = 3;", "float* ptr_;", "int : 0;"])
    return Mutation("unusual-member", ANY, (text[: sb[2]] + "  " + member + "\n" + text[sb[2]:]).encode(), member=member)


def src_byte_count(rng, text, ctx):
    sb = struct_body(text)
    uses = list(re.finditer(r"\bn \* sizeof\((\w+)\)", text))
    if not uses or not sb:
        return None
    m = rng.choice(uses)
    new = rng.choice(["(n * sizeof(%s) + 255) / 256 * 256", "n * sizeof(%s) - sizeof(float)", "sizeof(%s) * n",
                      "n * sizeof(%s) / 2", "(size_t)n * sizeof(%s)"]) % m.group(1)
    return Mutation("byte-count", ANY, (text[: m.start()] + new + text[m.end():]).encode(), new=new)


SOURCE_MUTATORS = [src_delete_line, src_duplicate_line, src_token, src_rename_use, src_field_type, src_ifdef_arch,
                   src_member_function, src_address_of, src_unusual_member, src_byte_count]


def mutate_source(rng, text, ctx):
    for _ in range(100):
        mutator = rng.choice(SOURCE_MUTATORS)
        m = mutator(rng, text, ctx)
        if m is not None:
            return m
    raise RuntimeError("no source mutator applies")
