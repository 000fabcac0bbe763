"""Typed mutators of relayout's JSON files (profile, site map, plan) for mutation-campaign.py.

Each mutator knows the verdict its output must get:
  REFUSE  invalid by construction: relayout must stop with one error naming the file;
  ACCEPT  valid by construction: relayout must decide (or rewrite) exactly as on the seed;
  ANY     don't care: either, but never a crash or a hang.
A mutator returns None when the seed offers it nothing to work on (the campaign draws another).
What counts as valid follows docs/formats.md and docs/formats/*.schema.json: every number of a
site map and a profile is an integer (1e2, 5.0 and integers past 2^64 are not), members the
schema does not name are allowed (forward compatibility), member names inside one object are
unique (RFC 8259 says SHOULD; relayout's writers never repeat one, so a repeat is corruption).
"""

import copy
import json
import random

REFUSE, ACCEPT, ANY = "refuse", "accept", "any"
RAW = "\u0001relayout-raw\u0001"  # replaced by raw JSON text after dumping


class Mutation:
    def __init__(self, name, expect, data, **extra):
        self.name, self.expect, self.data, self.extra = name, expect, data, extra


# ---- JSON helpers -------------------------------------------------------------------------------

def dump(doc, style=0):
    if style == 1:
        return json.dumps(doc, separators=(",", ":"))
    if style == 2:
        return json.dumps(doc, indent="\t") + "\n\n"
    return json.dumps(doc, indent=1) + "\n"


def walk(node, path=()):
    yield path, node
    if isinstance(node, dict):
        for k, v in node.items():
            yield from walk(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from walk(v, path + (i,))


def get(doc, path):
    for p in path:
        doc = doc[p]
    return doc


def put(doc, path, value):
    get(doc, path[:-1])[path[-1]] = value


def remove(doc, path):
    del get(doc, path[:-1])[path[-1]]


def with_raw(doc, path, raw, style=0):
    """The document's text with the value at path written as raw JSON text."""
    d = copy.deepcopy(doc)
    put(d, path, RAW)
    return dump(d, style).replace(json.dumps(RAW), raw, 1).encode()


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def paths(doc, pred, under=()):
    return [p for p, v in walk(get(doc, under), under) if pred(p, v)]


def pick(rng, items):
    return rng.choice(items) if items else None


def in_details(p):
    return "details" in p


def escaped_string(rng, text):
    """The JSON text of a string with one character written as a \\u escape (the same string)."""
    if not text:
        return json.dumps(text)
    i = rng.randrange(len(text))
    return json.dumps(text[:i])[:-1] + "\\u%04x" % ord(text[i]) + json.dumps(text[i + 1:])[1:]


def shuffled_keys(rng, node):
    if isinstance(node, dict):
        items = list(node.items())
        rng.shuffle(items)
        return {k: shuffled_keys(rng, v) for k, v in items}
    if isinstance(node, list):
        return [shuffled_keys(rng, v) for v in node]
    return node


def spaced(rng, text):
    """Insert JSON white space at random token boundaries (outside strings)."""
    out, in_str, esc = [], False, False
    for ch in text:
        if in_str:
            out.append(ch)
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
            continue
        if ch in ",:[]{}" and rng.random() < 0.3:
            out.append(rng.choice([" ", "\n", "\t", "\r\n", "  \n "]))
        out.append(ch)
        if ch == '"':
            in_str = True
    return "".join(out)


# ---- mutators shared by every JSON kind ---------------------------------------------------------

def m_reorder(rng, doc, ctx):
    return Mutation("reorder-keys", ACCEPT, dump(shuffled_keys(rng, doc), rng.randrange(3)).encode())


def m_whitespace(rng, doc, ctx):
    return Mutation("whitespace", ACCEPT, (" \n" + spaced(rng, dump(doc, rng.randrange(3))) + "\n\t ").encode())


def m_escape(rng, doc, ctx):
    """One character of a string value, or of a member name, written as a \\u escape."""
    strings = paths(doc, lambda p, v: isinstance(v, str) and v)
    keys = paths(doc, lambda p, v: isinstance(v, dict) and v)
    if rng.random() < 0.5 and keys:
        p = rng.choice(keys)
        obj = get(doc, p)
        key = rng.choice(list(obj))
        d = copy.deepcopy(doc)
        o = get(d, p)
        o2 = {(RAW if k == key else k): v for k, v in o.items()}
        if p:
            put(d, p, o2)
        else:
            d = o2
        text = dump(d).replace(json.dumps(RAW), escaped_string(rng, key), 1)
        return Mutation("escape-member-name", ACCEPT, text.encode(), path=list(p) + [key])
    p = pick(rng, strings)
    if p is None:
        return None
    return Mutation("escape-string", ACCEPT, with_raw(doc, p, escaped_string(rng, get(doc, p))), path=list(p))


def m_minus_zero(rng, doc, ctx):
    """An integer 0 spelled -0: still an integer for the schema."""
    p = pick(rng, paths(doc, lambda p, v: is_int(v) and v == 0))
    if p is None:
        return None
    return Mutation("minus-zero", ACCEPT, with_raw(doc, p, "-0"), path=list(p))


def m_wrong_format(rng, doc, ctx):
    d = copy.deepcopy(doc)
    choice = rng.randrange(5)
    if choice == 0:
        d["format"] = rng.choice(["relayout-plan", "relayout-sitemap", "relayout-profile", "relayout-report", ""])
        if d["format"] == doc["format"]:
            d["format"] = "relayout-x"
    elif choice == 1:
        d["version"] = rng.choice([0, 2, 99, -1])
    elif choice == 2:
        return Mutation("version-spelling", REFUSE, with_raw(doc, ("version",), rng.choice(['"1"', "1.0", "1e0", "true"])))
    elif choice == 3:
        del d["format"]
    else:
        d = rng.choice([[], [d], "relayout", 1, None])
    return Mutation("wrong-format-or-version", REFUSE, dump(d).encode())


def m_duplicate_key(rng, doc, ctx):
    """A member repeated in its object, the repeat with another value (the parser would keep one)."""
    objs = paths(doc, lambda p, v: isinstance(v, dict) and v and not in_details(p))
    p = pick(rng, objs)
    if p is None:
        return None
    obj = get(doc, p)
    key = rng.choice(list(obj))
    value = obj[key]
    other = (value + 1) if is_int(value) else ("x" + value if isinstance(value, str) else 7)
    d = copy.deepcopy(doc)
    o = get(d, p)
    o[RAW] = other
    text = dump(d).replace(json.dumps(RAW), json.dumps(key), 1)
    return Mutation("duplicate-member", REFUSE, text.encode(), path=list(p) + [key])


def m_type_change(rng, doc, ctx, skip=in_details):
    """A value of the wrong JSON type where the schema names one."""
    cands = paths(doc, lambda p, v: p and not skip(p) and not isinstance(v, (dict,)) and ctx.typed(p))
    p = pick(rng, cands)
    if p is None:
        return None
    v = get(doc, p)
    if isinstance(v, bool):
        new = rng.choice([1, "true", None])
    elif is_int(v) or isinstance(v, float):
        new = rng.choice([str(v), None, [v], {"n": v}, True])
    elif isinstance(v, str):
        new = rng.choice([len(v), None, [v], {"s": v}])
    elif v is None:
        new = rng.choice(["null", {}, True])
    else:  # list
        new = rng.choice([{}, "[]", 0, None])
    if ctx.allows(p, new):
        return None
    d = copy.deepcopy(doc)
    put(d, p, new)
    return Mutation("type-change", REFUSE, dump(d).encode(), path=list(p))


def m_missing_required(rng, doc, ctx):
    cands = [p for p, v in walk(doc)
             if isinstance(v, dict) and not in_details(p) and any(k in v for k in ctx.required(p))]
    p = pick(rng, cands)
    if p is None:
        return None
    req = [k for k in ctx.required(p) if k in get(doc, p)]
    if not req:
        return None
    key = rng.choice(req)
    d = copy.deepcopy(doc)
    del get(d, p)[key]
    return Mutation("missing-required", REFUSE, dump(d).encode(), path=list(p) + [key])


def m_unknown_member(rng, doc, ctx):
    """A member the schema does not name, where the schema allows one."""
    cands = [p for p, v in walk(doc) if isinstance(v, dict) and ctx.open_object(p)]
    p = pick(rng, cands)
    if p is None:
        return None
    d = copy.deepcopy(doc)
    get(d, p)["x_relayout_extension_%d" % rng.randrange(1000)] = rng.choice([1, "a", [1, 2], {"k": None}, None])
    return Mutation("unknown-member", ACCEPT, dump(shuffled_keys(rng, d) if rng.random() < 0.3 else d).encode(),
                    path=list(p))


# ---- don't-care byte mutators -------------------------------------------------------------------

def flip_bytes(rng, data):
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(b))
        b[i] = rng.choice([b[i] ^ (1 << rng.randrange(8)), rng.randrange(256), ord(rng.choice('{}[],:"0-9e.\\ '))])
    return bytes(b)


def splice_bytes(rng, data, other):
    a = rng.randrange(len(data) + 1)
    b = rng.randrange(a, min(len(data), a + 400) + 1)
    c = rng.randrange(len(other) + 1)
    d = rng.randrange(c, min(len(other), c + 400) + 1)
    return data[:a] + other[c:d] + data[b:]


def cut_bytes(rng, data):
    choice = rng.randrange(3)
    if choice == 0:
        return data[: rng.randrange(len(data))]
    a = rng.randrange(len(data))
    b = rng.randrange(a, min(len(data), a + 200) + 1)
    if choice == 1:
        return data[:a] + data[b:]
    return data[:b] + data[a:b] + data[b:]


def m_bytes(rng, doc, ctx):
    data = ctx.seed_bytes
    kind = rng.randrange(3)
    if kind == 0:
        return Mutation("byte-flip", ANY, flip_bytes(rng, data))
    if kind == 1:
        return Mutation("splice", ANY, splice_bytes(rng, data, rng.choice(ctx.others)))
    return Mutation("cut-or-repeat", ANY, cut_bytes(rng, data))


def m_random_value(rng, doc, ctx):
    """Any scalar replaced by a random scalar: valid or not, the reader must not crash."""
    p = pick(rng, paths(doc, lambda p, v: p and not isinstance(v, (dict, list))))
    if p is None:
        return None
    raw = rng.choice(["0", "-1", "1", "4294967295", "4294967296", "18446744073709551615", "9223372036854775808",
                      "-9223372036854775809", "1e308", "-1e308", "1e-320", "0.0", '""', '"\\u0000"',
                      '"' + "A" * 5000 + '"', "[]", "{}", "null", "true", '"int"', '"x.y"', '"../../etc"'])
    return Mutation("random-value", ANY, with_raw(doc, p, raw), path=list(p))


# ---- schema-driven context ----------------------------------------------------------------------

class SchemaContext:
    """What a schema says about a path: whether its value is typed, what an object requires, and
    whether it allows members the schema does not name."""

    def __init__(self, schema, doc, seed_bytes, others):
        self.schema, self.doc, self.seed_bytes, self.others = schema, doc, seed_bytes, others

    def _resolve(self, node):
        for _ in range(8):
            if isinstance(node, dict) and "$ref" in node:
                node = self.schema["definitions"][node["$ref"].split("/")[-1]]
        return node

    def at(self, path):
        node = self._resolve(self.schema)
        for token in path:
            if not isinstance(node, dict):
                return None
            if isinstance(token, str) and token in node.get("properties", {}):
                node = node["properties"][token]
            elif isinstance(token, int) and isinstance(node.get("items"), dict):
                node = node["items"]
            elif isinstance(token, str) and isinstance(node.get("additionalProperties"), dict):
                node = node["additionalProperties"]
            else:
                return None
            node = self._resolve(node)
        return node

    def typed(self, path):
        s = self.at(path)
        return isinstance(s, dict) and ("type" in s or "const" in s or "enum" in s)

    def required(self, path):
        s = self.at(path)
        return s.get("required", []) if isinstance(s, dict) else []

    def allows(self, path, value):
        """Whether the schema's type at path admits value's JSON type (not its range)."""
        s = self.at(path) or {}
        if "const" in s:
            return value == s["const"]
        if "enum" in s:
            return value in s["enum"]
        types = s.get("type", [])
        types = [types] if isinstance(types, str) else types
        kind = ("null" if value is None else "boolean" if isinstance(value, bool) else "integer" if is_int(value)
                else "number" if isinstance(value, float) else "string" if isinstance(value, str)
                else "array" if isinstance(value, list) else "object")
        return kind in types or (kind == "integer" and "number" in types)

    def open_object(self, path):
        s = self.at(path)
        return (isinstance(s, dict) and s.get("type") == "object" and "properties" in s
                and "additionalProperties" not in s and "propertyNames" not in s)


COMMON_VALID = [m_reorder, m_whitespace, m_escape, m_minus_zero, m_unknown_member]
COMMON_INVALID = [m_wrong_format, m_duplicate_key, m_type_change, m_missing_required]
COMMON_ANY = [m_bytes, m_random_value]


def draw(rng, valid, invalid, anything, doc, ctx, weights=(0.3, 0.45, 0.25)):
    """Draw a class by weight, then a mutator of it; retry where one has nothing to work on."""
    for _ in range(100):
        group = rng.choices([valid, invalid, anything], weights=weights)[0]
        mutator = rng.choice(group)
        m = mutator(rng, doc, ctx)
        if m is not None:
            if not m.name or m.name == mutator.__name__:
                m.name = mutator.__name__[2:]
            return m
    raise RuntimeError("no mutator applies to this seed")
