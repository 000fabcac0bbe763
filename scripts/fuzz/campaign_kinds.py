"""Mutators of each input kind (profile, site map, plan, trace) for mutation-campaign.py; the rules
that make a mutation valid or invalid are docs/formats.md's and docs/analysis.md's (see each)."""

import copy
import struct

from campaign_json import (ACCEPT, ANY, REFUSE, COMMON_ANY, COMMON_INVALID, COMMON_VALID, Mutation, dump, draw,
                           get, is_int, paths, pick, put, with_raw)


def edited(name, expect, doc, change, **extra):
    d = copy.deepcopy(doc)
    if change(d) is False:
        return None
    return Mutation(name, expect, dump(d).encode(), **extra)


# ---- profile ------------------------------------------------------------------------------------

def counter_paths(doc):
    """Every measured count: site rows, per-kernel rows, loop counts."""
    out = []
    for u, unit in enumerate(doc.get("units", [])):
        out += [("units", u, "sites", s, c) for s, row in enumerate(unit.get("sites", [])) for c in range(len(row))]
        out += [("units", u, "kernel_sites", k, "counters", c) for k, e in enumerate(unit.get("kernel_sites", []))
                for c in range(len(e["counters"]))]
        out += [("units", u, "loops", i) for i in range(len(unit.get("loops", [])))]
    return out


def p_bad_counter(rng, doc, ctx):
    p = pick(rng, counter_paths(doc))
    if p is None:
        return None
    v = get(doc, p)
    raw = rng.choice([str(-v - 1), "%d.5" % v, "%d.0" % v, "%de0" % v, "1e2", str(2**64 + rng.randrange(10**6)),
                      str(2**64 * 1000), "-0.0"])
    return Mutation("bad-counter", REFUSE, with_raw(doc, p, raw), path=list(p), raw=raw)


def p_row_length(rng, doc, ctx):
    rows = [("units", u, "sites", s) for u, unit in enumerate(doc["units"]) for s in range(len(unit["sites"]))]
    rows += [("units", u, "kernel_sites", k, "counters") for u, unit in enumerate(doc["units"])
             for k in range(len(unit.get("kernel_sites", [])))]
    p = pick(rng, rows)
    if p is None:
        return None
    return edited("counter-row-length", REFUSE, doc,
                  lambda d: get(d, p).append(0) if rng.random() < 0.5 else get(d, p).pop(), path=list(p))


def p_site_count(rng, doc, ctx):
    """A unit with one site row more or fewer than its site map has sites."""
    u = ctx.matched_unit
    if u is None:
        return None
    def change(d):
        rows = d["units"][u]["sites"]
        if rng.random() < 0.5 and rows:
            rows.pop(rng.randrange(len(rows)))
        else:
            rows.append([1, 32, 4, 1, 31 * 32, 0])
    return edited("site-row-count", REFUSE, doc, change, unit=u)


def p_classified(rng, doc, ctx):
    cands = [(u, k) for u, unit in enumerate(doc["units"]) for k in range(len(unit.get("kernel_blocks", [])))]
    c = pick(rng, cands)
    if c is None:
        return None
    u, k = c
    entry = doc["units"][u]["kernel_blocks"][k]
    if entry["blocks"] == 0:
        return None
    # Above blocks is valid: a checkpoint launch's blocks count for the launches it stands for.
    # Zero is refused for a kernel whose sites have counts; one without (it reaches no hook, and
    # runs its plain copy always) may classify none.
    counted = getattr(ctx, "counted_kernels", None)
    expect = REFUSE if counted is None or u != ctx.matched_unit or entry["kernel"] in counted else ANY
    return edited("classified-zero", expect, doc, lambda d: put(d, ("units", u, "kernel_blocks", k, "classified"), 0))


def p_impossible(rng, doc, ctx):
    """Counters no warp can write (docs/formats.md, "Profile"): lines above sectors, more than 32
    active lanes per warp-level execution, more than 31 near lanes per lane execution."""
    cands = []
    for u, unit in enumerate(doc["units"]):
        cols = unit.get("counter_columns", [])
        if not {"warp_execs", "lane_execs", "sectors", "lines", "near_lanes"} <= set(cols):
            continue
        cands += [(u, s, cols) for s, row in enumerate(unit["sites"]) if row[cols.index("warp_execs")] > 0]
    c = pick(rng, cands)
    if c is None:
        return None
    u, s, cols = c
    row = doc["units"][u]["sites"][s]
    at = {name: cols.index(name) for name in cols}
    rule = rng.choice(["lines", "lanes", "near"])
    if rule == "lines":
        column, value = at["lines"], row[at["sectors"]] + 1 + rng.randrange(1000)
    elif rule == "lanes":
        column, value = at["lane_execs"], 32 * row[at["warp_execs"]] + 1 + rng.randrange(1000)
    else:
        column, value = at["near_lanes"], 31 * row[at["lane_execs"]] + 1 + rng.randrange(1000)
    return edited("impossible-" + rule, REFUSE, doc, lambda d: put(d, ("units", u, "sites", s, column), value))


def p_loop_count(rng, doc, ctx):
    """`loops` must hold one count per loop of the site map, or none."""
    u = ctx.matched_unit
    if u is None:
        return None
    loops = doc["units"][u].get("loops")
    n = ctx.sitemap_loops
    def change(d):
        unit = d["units"][u]
        if loops:
            if rng.random() < 0.5 and len(loops) > 1:  # emptied, it would be "none": valid
                unit["loops"].pop()
            else:
                unit["loops"].append(rng.randrange(1000))
        else:
            unit["loops"] = [1] * (n + 1 + rng.randrange(3))
    return edited("loop-count-length", REFUSE, doc, change, unit=u)


def p_zero_period(rng, doc, ctx):
    u = rng.randrange(len(doc["units"]))
    key = rng.choice(["block_period", "exec_period"] + (["trace"] if "trace" in doc else []))
    if key == "trace":
        return edited("trace-block-period-zero", REFUSE, doc, lambda d: put(d, ("trace", "block_period"), 0))
    return edited(key + "-zero", REFUSE, doc, lambda d: put(d, ("units", u, key), 0))


def p_columns(rng, doc, ctx):
    u = rng.randrange(len(doc["units"]))
    def change(d):
        cols = d["units"][u]["counter_columns"]
        if rng.random() < 0.5:
            i = rng.randrange(len(cols) - 1)
            cols[i], cols[i + 1] = cols[i + 1], cols[i]
        else:
            cols[rng.randrange(len(cols))] = "bytes"
    return edited("counter-columns", REFUSE, doc, change)


def p_kernel_site_range(rng, doc, ctx):
    cands = [(u, k) for u, unit in enumerate(doc["units"]) for k in range(len(unit.get("kernel_sites", [])))]
    c = pick(rng, cands)
    if c is None:
        return None
    u, k = c
    n = len(doc["units"][u]["sites"])
    return edited("kernel-site-out-of-range", REFUSE, doc,
                  lambda d: put(d, ("units", u, "kernel_sites", k, "site"), n + rng.randrange(5)))


def p_unit_kernels(rng, doc, ctx):
    launches = doc.get("trace", {}).get("launches", [])
    cands = [i for i, l in enumerate(launches) if "unit_kernels" in l]
    i = pick(rng, cands)
    if i is None:
        return None
    def change(d):
        uk = d["trace"]["launches"][i]["unit_kernels"]
        if rng.random() < 0.5:
            uk[str(len(d["units"]) + rng.randrange(3))] = 0
        else:
            uk[rng.choice(list(uk))] = 100000 + rng.randrange(10)
    return edited("unit-kernels-out-of-range", REFUSE, doc, change)


def p_other_source(rng, doc, ctx):
    """The unit's sha256 changed: the profile describes another source. Refused, unless the unit
    lists `functions` (then it is matched function by function, docs/formats.md)."""
    u = ctx.matched_unit
    if u is None:
        return None
    expect = ANY if "functions" in doc["units"][u] else REFUSE
    return edited("other-source", expect, doc, lambda d: put(d, ("units", u, "sha256"), "0" * 64))


def p_scale(rng, doc, ctx):
    """Every counter times one integer: the decision is scale-invariant (docs/analysis.md: signs of
    sums weighted by counts, ratios n and shared share, Counts equal within 10%)."""
    k = rng.choice([2, 3, 7, 10, 1000])
    if any(get(doc, p) * k >= 2**53 for p in counter_paths(doc)):
        k = 2
        if any(get(doc, p) * k >= 2**53 for p in counter_paths(doc)):
            return None
    def change(d):
        for p in counter_paths(d):
            put(d, p, get(d, p) * k)
    return edited("scale-counters-x%d" % k, ACCEPT, doc, change)


def p_device(rng, doc, ctx):
    key = rng.choice(["device", "created", "command"])
    value = {"device": rng.choice(["", "NVIDIA GeForce RTX 4090", "Ωmega GPU \u2603", "x" * 300]),
             "created": rng.choice(["", "yesterday", "2030-01-01T00:00:00Z"]),
             "command": rng.choice([[], ["./a.out", "--tiny"], ["é", ""]])}[key]
    return edited("rename-" + key, ACCEPT, doc, lambda d: put(d, (key,), value))


PROFILE_VALID = COMMON_VALID + [p_scale, p_device]
PROFILE_INVALID = COMMON_INVALID + [p_bad_counter, p_row_length, p_site_count, p_classified, p_impossible, p_loop_count,
                                    p_zero_period, p_columns, p_kernel_site_range, p_unit_kernels, p_other_source]


def mutate_profile(rng, doc, ctx):
    return draw(rng, PROFILE_VALID, PROFILE_INVALID, COMMON_ANY, doc, ctx)


# ---- site map -----------------------------------------------------------------------------------

def s_field_name(rng, doc, ctx):
    cands = [(s, f) for s, st in enumerate(doc["structs"]) for f in range(len(st["fields"]))]
    s, f = rng.choice(cands)
    fields = doc["structs"][s]["fields"]
    if len(fields) > 1 and rng.random() < 0.5:
        other = rng.choice([i for i in range(len(fields)) if i != f])
        return edited("duplicate-field", REFUSE, doc,
                      lambda d: put(d, ("structs", s, "fields", f, "name"), fields[other]["name"]))
    return edited("field-not-identifier", REFUSE, doc,
                  lambda d: put(d, ("structs", s, "fields", f, "name"), rng.choice(["1x", "x-y", "a b", "x.y", "é"])))


def s_duplicate_struct(rng, doc, ctx):
    s = rng.randrange(len(doc["structs"]))
    return edited("duplicate-struct", REFUSE, doc, lambda d: d["structs"].append(copy.deepcopy(d["structs"][s])))


def s_site_names(rng, doc, ctx):
    i = pick(rng, range(len(doc["sites"])))
    if i is None:
        return None
    key, value = rng.choice([("field", "no_such_field"), ("struct", "NoSuchStruct")])
    return edited("site-unknown-" + key, REFUSE, doc, lambda d: put(d, ("sites", i, key), value))


def s_loop_parent(rng, doc, ctx):
    n = len(doc["loops"])
    if n == 0:
        return None
    i = rng.randrange(n)
    choice = rng.randrange(3)
    if choice == 0:
        return edited("loop-own-parent", REFUSE, doc, lambda d: put(d, ("loops", i, "parent"), i))
    if choice == 1:
        return edited("loop-parent-out-of-range", REFUSE, doc, lambda d: put(d, ("loops", i, "parent"), n + rng.randrange(999)))
    if n < 2:
        return None
    j = rng.choice([x for x in range(n) if x != i])
    def change(d):
        d["loops"][i]["parent"], d["loops"][j]["parent"] = j, i
    return edited("loop-cycle", REFUSE, doc, change)


def s_ids(rng, doc, ctx):
    key = rng.choice(["sites", "loops", "kernels"])
    items = doc.get(key, [])
    if not items:
        return None
    i = rng.randrange(len(items))
    return edited(key + "-id-not-position", REFUSE, doc,
                  lambda d: put(d, (key, i, "id"), i + 1 + rng.randrange(len(items) + 3)))


def s_site_loop(rng, doc, ctx):
    i = pick(rng, range(len(doc["sites"])))
    if i is None:
        return None
    return edited("site-loop-out-of-range", REFUSE, doc,
                  lambda d: put(d, ("sites", i, "loop"), len(d["loops"]) + rng.randrange(999)))


def s_field_outside(rng, doc, ctx):
    cands = [(s, f) for s, st in enumerate(doc["structs"]) for f, fl in enumerate(st["fields"]) if fl["size"] > 0]
    s, f = rng.choice(cands)
    size = doc["structs"][s]["size"]
    choice = rng.randrange(4)
    if choice == 0:
        return edited("field-past-struct-end", REFUSE, doc,
                      lambda d: put(d, ("structs", s, "fields", f, "offset"), size - d["structs"][s]["fields"][f]["size"] + 1 + rng.randrange(64)))
    if choice == 1:
        return edited("field-size-zero", REFUSE, doc, lambda d: put(d, ("structs", s, "fields", f, "size"), 0))
    if choice == 2:
        return edited("struct-size-zero", REFUSE, doc, lambda d: put(d, ("structs", s, "size"), 0))
    return edited("negative-offset", REFUSE, doc, lambda d: put(d, ("structs", s, "fields", f, "offset"), -4))


def s_site_outside(rng, doc, ctx):
    """A site touching bytes outside its field (its offset/size are those of what it touched, inside
    the field: docs/formats.md)."""
    fields = {(st["name"], fl["name"]): fl for st in doc["structs"] for fl in st["fields"]}
    cands = [i for i, s in enumerate(doc["sites"]) if fields.get((s["struct"], s["field"]), {}).get("size", 0) > 0]
    i = pick(rng, cands)
    if i is None:
        return None
    site = doc["sites"][i]
    fl = fields[(site["struct"], site["field"])]
    return edited("site-outside-its-field", REFUSE, doc,
                  lambda d: put(d, ("sites", i, "offset"), fl["offset"] + fl["size"] + rng.randrange(64)))


def s_files_range(rng, doc, ctx):
    if not doc.get("files"):
        return None
    f = rng.randrange(len(doc["files"]))
    key = rng.choice(["sites", "loops", "kernels"])
    return edited("files-range-past-end", REFUSE, doc,
                  lambda d: put(d, ("files", f, key), len(d.get(key, [])) + 1 + rng.randrange(10)))


def s_zero_period(rng, doc, ctx):
    return edited("block-period-zero", REFUSE, doc, lambda d: put(d, ("block_period",), 0))


def s_twice(rng, doc, ctx):
    """The same site map given twice (docs/formats.md: site maps given together describe different units)."""
    return Mutation("given-twice", REFUSE, dump(doc).encode(), twice=True)


def s_locations(rng, doc, ctx):
    """Locations only label the reports."""
    cands = paths(doc, lambda p, v: len(p) >= 2 and p[-2] == "location" and p[-1] in ("line", "col"))
    chosen = rng.sample(cands, min(len(cands), rng.randint(1, 5)))
    return edited("move-locations", ACCEPT, doc, lambda d: [put(d, p, rng.randrange(1, 100000)) for p in chosen])


def s_drop_extents(rng, doc, ctx):
    """`extents` is optional: without it the reader takes them from `type` (docs/formats.md)."""
    cands = [("structs", s, "fields", f) for s, st in enumerate(doc["structs"]) for f, fl in enumerate(st["fields"])
             if "extents" in fl]
    if not cands:
        return None
    chosen = rng.sample(cands, rng.randint(1, len(cands)))
    return edited("drop-extents", ACCEPT, doc, lambda d: [get(d, p).pop("extents") for p in chosen])


def s_source_path(rng, doc, ctx):
    """The profile meets the site map by the source's sha256; the path only names it."""
    return edited("rename-source-path", ACCEPT, doc,
                  lambda d: put(d, ("source", "path"), rng.choice(["/elsewhere/a.cu", "renamed.cu", "dir with space/x.cu"])))


SITEMAP_VALID = COMMON_VALID + [s_locations, s_drop_extents, s_source_path]
SITEMAP_INVALID = COMMON_INVALID + [s_field_name, s_duplicate_struct, s_site_names, s_loop_parent, s_ids, s_site_loop,
                                    s_field_outside, s_site_outside, s_files_range, s_zero_period, s_twice]


def mutate_sitemap(rng, doc, ctx):
    return draw(rng, SITEMAP_VALID, SITEMAP_INVALID, COMMON_ANY, doc, ctx)


# ---- plan ---------------------------------------------------------------------------------------

# Keywords, reserved names and a type the device struct uses: refused (docs/formats.md, "Plan").
KEYWORDS = ["int", "class", "float", "struct", "return", "template", "__global__", "size_t", "this", "new",
            "operator", "_Reserved", "__x", "sizeof", "unsigned", "const"]
# Names of other things that C++ allows as a member's name: don't care, but the rewrite must compile.
LEGAL_NAMES = ["std", "cudaMalloc", "printf", "relayoutPlace", "override", "final", "main"]


def split_structs(doc):
    return [i for i, s in enumerate(doc["structs"]) if s["layout"] != "aos" and s["clusters"]]


def pl_unknown_field(rng, doc, ctx):
    i = pick(rng, split_structs(doc))
    if i is None:
        i = pick(rng, range(len(doc["structs"])))
        if i is None or not doc["structs"][i].get("fields"):
            return None
        return edited("unknown-struct-field", REFUSE, doc,
                      lambda d: d["structs"][i]["fields"].append("no_such_field"))
    c = rng.randrange(len(doc["structs"][i]["clusters"]))
    return edited("cluster-unknown-field", REFUSE, doc,
                  lambda d: d["structs"][i]["clusters"][c]["fields"].append("no_such_field"))


def pl_field_twice(rng, doc, ctx):
    i = pick(rng, split_structs(doc))
    if i is None or len(doc["structs"][i]["clusters"]) < 2:
        return None
    cl = doc["structs"][i]["clusters"]
    a, b = rng.sample(range(len(cl)), 2)
    return edited("field-in-two-clusters", REFUSE, doc,
                  lambda d: d["structs"][i]["clusters"][b]["fields"].append(cl[a]["fields"][0]))


def pl_field_missing(rng, doc, ctx):
    i = pick(rng, split_structs(doc))
    if i is None or len(doc["structs"][i]["clusters"]) < 2:
        return None
    c = rng.randrange(len(doc["structs"][i]["clusters"]))
    return edited("cluster-dropped", REFUSE, doc, lambda d: d["structs"][i]["clusters"].pop(c))


def pl_keyword_cluster(rng, doc, ctx):
    cands = [(i, c) for i in split_structs(doc) for c, cl in enumerate(doc["structs"][i]["clusters"])
             if len(cl["fields"]) > 1]
    c = pick(rng, cands)
    if c is None:
        return None
    i, k = c
    names = KEYWORDS + LEGAL_NAMES + [f for f in doc["structs"][i].get("fields", [])
                                      if f not in doc["structs"][i]["clusters"][k]["fields"]]
    name = rng.choice(names)
    kind = "keyword" if name in KEYWORDS else "other-entity" if name in LEGAL_NAMES else "like-a-field"
    return edited("cluster-named-" + kind, ANY if name in LEGAL_NAMES else REFUSE, doc,
                  lambda d: put(d, ("structs", i, "clusters", k, "name"), name), cluster=name)


def pl_cluster_names(rng, doc, ctx):
    cands = [i for i in split_structs(doc) if len(doc["structs"][i]["clusters"]) >= 2]
    i = pick(rng, cands)
    if i is None:
        return None
    cl = doc["structs"][i]["clusters"]
    a, b = rng.sample(range(len(cl)), 2)
    # A cluster of one field is a plain array named after the field (docs/formats.md): its name in
    # the plan is not emitted, so only a repeated or broken name of a sub-struct is invalid (a
    # one-field cluster's name in analyze's plans is its field's, which the array takes).
    expect = REFUSE if len(cl[b]["fields"]) > 1 else ANY
    if rng.random() < 0.5:
        return edited("cluster-names-repeat", expect, doc, lambda d: put(d, ("structs", i, "clusters", b, "name"), cl[a]["name"]))
    return edited("cluster-name-bad", expect, doc,
                  lambda d: put(d, ("structs", i, "clusters", b, "name"), rng.choice(["", "1a", "a-b", "a b", "x::y"])))


def pl_soa_pair(rng, doc, ctx):
    cands = [i for i, s in enumerate(doc["structs"]) if s["layout"] == "soa" and len(s["clusters"]) >= 2]
    i = pick(rng, cands)
    if i is None:
        return None
    def change(d):
        cl = d["structs"][i]["clusters"]
        second = cl.pop(1)
        cl[0]["fields"] += second["fields"]
    return edited("soa-cluster-of-two", REFUSE, doc, change)


def pl_layout(rng, doc, ctx):
    i = rng.randrange(len(doc["structs"]))
    return edited("layout-unknown", REFUSE, doc, lambda d: put(d, ("structs", i, "layout"), rng.choice(["SoA", "aosoa", ""])))


def pl_struct(rng, doc, ctx):
    i = rng.randrange(len(doc["structs"]))
    if rng.random() < 0.5:
        return edited("duplicate-struct", REFUSE, doc, lambda d: d["structs"].append(copy.deepcopy(d["structs"][i])))
    if doc["structs"][i]["layout"] == "aos":
        return None  # an AoS entry of an unknown struct changes nothing: no verdict by construction
    return edited("unknown-struct", REFUSE, doc, lambda d: put(d, ("structs", i, "name"), "NoSuchStruct"))


def pl_fields(rng, doc, ctx):
    cands = [i for i, s in enumerate(doc["structs"]) if s.get("fields")]
    i = pick(rng, cands)
    if i is None:
        return None
    f = doc["structs"][i]["fields"]
    if rng.random() < 0.5 or len(f) < 2:
        return edited("struct-field-repeated", REFUSE, doc, lambda d: d["structs"][i]["fields"].append(f[0]))
    return edited("struct-field-not-identifier", REFUSE, doc,
                  lambda d: put(d, ("structs", i, "fields", rng.randrange(len(f))), rng.choice(["1x", "a-b", "x y"])))


def pl_sha(rng, doc, ctx):
    """The source changed since the plan: refused (names the source, or the plan)."""
    s = pick(rng, range(len(doc["sources"])))
    if s is None:
        return None
    return edited("other-source", REFUSE, doc, lambda d: put(d, ("sources", s, "sha256"), "0" * 64), names_source=True)


def pl_informational(rng, doc, ctx):
    """score, reason, details, padding_bytes and mode are informational to rewrite (docs/formats.md)."""
    i = rng.randrange(len(doc["structs"]))
    choice = rng.randrange(5)
    if choice == 0:
        return edited("score-changed", ACCEPT, doc, lambda d: put(d, ("structs", i, "score"), rng.choice([0, -1.5, 1e300, 3])))
    if choice == 1:
        return edited("reason-changed", ACCEPT, doc, lambda d: put(d, ("structs", i, "reason"), rng.choice(["", "é*/ \\n", "x" * 500])))
    if choice == 2:
        return edited("details-dropped", ACCEPT, doc, lambda d: d["structs"][i].pop("details", None))
    if choice == 3:
        return edited("mode-changed", ACCEPT, doc, lambda d: put(d, ("mode",), rng.choice(["paper", "model", "forced"])))
    def change(d):
        det = d["structs"][i].setdefault("details", {})
        det[rng.choice(["sites", "site_count", "model", "x"])] = rng.choice([None, "x", [1, {"a": []}], -1e308])
    return edited("details-changed", ACCEPT, doc, change)


def pl_struct_order(rng, doc, ctx):
    if len(doc["structs"]) < 2:
        return None
    return edited("structs-reordered", ACCEPT, doc, lambda d: d["structs"].reverse())


PLAN_VALID = COMMON_VALID + [pl_informational, pl_struct_order]
PLAN_INVALID = COMMON_INVALID + [pl_unknown_field, pl_field_twice, pl_field_missing, pl_keyword_cluster,
                                 pl_cluster_names, pl_soa_pair, pl_layout, pl_struct, pl_fields, pl_sha]


def plan_type_skip(p):
    return "details" in p


def mutate_plan(rng, doc, ctx):
    return draw(rng, PLAN_VALID, PLAN_INVALID, COMMON_ANY, doc, ctx)


# ---- trace (binary; docs/formats.md, "Trace") ---------------------------------------------------

HEADER = 64
RECORD = 32
# record: addr u64, element u64, launch u32, warp u32, site u32, unit u8, field u8, lane u8, group u8
REC = struct.Struct("<QQIIIBBBB")


def record(data, i):
    return list(REC.unpack_from(data, HEADER + RECORD * i))


def with_record(data, i, values):
    b = bytearray(data)
    REC.pack_into(b, HEADER + RECORD * i, *values)
    return bytes(b)


def with_header(data, fmt, offset, value):
    b = bytearray(data)
    struct.pack_into(fmt, b, offset, value)
    return bytes(b)


def group_starts(data, limit=4096):
    n = (len(data) - HEADER) // RECORD
    starts, i = [], 0
    while i < n and len(starts) < limit:
        starts.append(i)
        i += max(1, record(data, i)[8])
    return starts


def t_header(rng, data, ctx):
    choice = rng.randrange(6)
    if choice == 0:
        return Mutation("magic", REFUSE, b"RLTRACX\0" + data[8:])
    if choice == 1:
        return Mutation("version", REFUSE, with_header(data, "<I", 8, rng.choice([0, 2, 0xFFFFFFFF])))
    if choice == 2:
        return Mutation("record-size", REFUSE, with_header(data, "<I", 12, rng.choice([0, 16, 33, 64])))
    if choice == 3:
        return Mutation("block-period-zero", REFUSE, with_header(data, "<I", 32, 0))
    n = struct.unpack_from("<Q", data, 16)[0]
    if choice == 4:
        return Mutation("records-count", REFUSE, with_header(data, "<Q", 16, n + rng.choice([1, 2, 1000, 2**63])))
    if n == 0:
        return None
    return Mutation("records-count-short", REFUSE, with_header(data, "<Q", 16, n - rng.randint(1, min(n, 3))))


def t_truncate(rng, data, ctx):
    n = (len(data) - HEADER) // RECORD
    choice = rng.randrange(3)
    if choice == 0:
        return Mutation("truncated-in-header", REFUSE, data[: rng.randrange(HEADER)])
    if choice == 1 and n:
        cut = HEADER + RECORD * rng.randrange(n) + rng.randrange(1, RECORD)
        return Mutation("truncated-in-record", REFUSE, data[:cut])
    return Mutation("trailing-bytes", REFUSE, data + bytes(rng.randint(1, 40)))


def t_record_range(rng, data, ctx):
    starts = group_starts(data)
    if not starts:
        return None
    i = rng.choice(starts)
    r = record(data, i)
    g = r[8]
    what = rng.choice(["site", "unit", "launch", "group", "lane", "field"])
    if what == "site":
        r[4] = ctx.sites_per_unit[r[5]] + rng.randrange(100) if r[5] < len(ctx.sites_per_unit) else 10**6
    elif what == "unit":
        r[5] = ctx.units + rng.randrange(255 - ctx.units + 1)
    elif what == "launch":
        r[2] = ctx.launches + rng.randrange(1000)
    elif what == "group":
        r[8] = rng.choice([0, 33, 200, 255])
    elif what == "lane":
        r[7] = rng.choice([32, 100, 255])
    else:
        r[6] = (r[6] + 1 + rng.randrange(254)) % 256  # not the site's field
    out = with_record(data, i, r)
    if what in ("site", "unit", "field"):  # the whole group, so only the range is wrong
        for j in range(i + 1, min(i + g, (len(data) - HEADER) // RECORD)):
            rj = record(data, j)
            rj[4], rj[5], rj[6] = r[4], r[5], r[6]
            out = with_record(out, j, rj)
    return Mutation("record-" + what + "-out-of-range", REFUSE, out, record=i)


def t_group(rng, data, ctx):
    starts = [i for i in group_starts(data) if record(data, i)[8] >= 2]
    if not starts:
        return None
    i = rng.choice(starts)
    g = record(data, i)[8]
    j = i + rng.randrange(1, g)
    r = record(data, j)
    what = rng.randrange(3)
    if what == 0:
        r[4] ^= 1 + rng.randrange(3)  # another site inside a group
        name = "group-mixed-site"
    elif what == 1:
        r[7] = record(data, j - 1)[7]  # a lane repeated
        name = "group-lane-not-increasing"
    else:
        r[3] ^= 1  # another warp
        name = "group-mixed-warp"
    return Mutation(name, REFUSE, with_record(data, j, r), record=j)


def t_unused_header(rng, data, ctx):
    """`dropped` and `capacity` describe the buffers; the replay reads neither (analysis/src)."""
    off = rng.choice([24, 40])
    return Mutation("header-" + ("dropped" if off == 24 else "capacity"), ACCEPT,
                    with_header(data, "<Q", off, rng.choice([0, 1, 12345, 2**40])))


def t_identity(rng, data, ctx):
    return Mutation("unchanged-copy", ACCEPT, data)


def t_bytes(rng, data, ctx):
    choice = rng.randrange(4)
    if choice == 0:  # flips in records: addresses, elements, warps are any values
        b = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            i = rng.randrange(HEADER, len(b)) if len(b) > HEADER else rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
        return Mutation("record-bit-flips", ANY, bytes(b))
    if choice == 1:
        b = bytearray(data)
        b[48 + rng.randrange(16)] = rng.randrange(1, 256)
        return Mutation("reserved-bytes", ANY, bytes(b))
    if choice == 2:  # whole groups removed, header kept consistent
        starts = group_starts(data)
        if len(starts) < 2:
            return None
        k = rng.randrange(len(starts) - 1)
        a, b2 = starts[k], starts[k + 1]
        out = data[: HEADER + RECORD * a] + data[HEADER + RECORD * b2:]
        n = struct.unpack_from("<Q", data, 16)[0]
        return Mutation("group-removed", ANY, with_header(out, "<Q", 16, n - (b2 - a)))
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        b[rng.randrange(len(b))] = rng.randrange(256)
    return Mutation("byte-flips", ANY, bytes(b))


TRACE_VALID = [t_unused_header, t_identity]
TRACE_INVALID = [t_header, t_truncate, t_record_range, t_group]
TRACE_ANY = [t_bytes]


def mutate_trace(rng, data, ctx):
    return draw(rng, TRACE_VALID, TRACE_INVALID, TRACE_ANY, data, ctx, weights=(0.2, 0.55, 0.25))
