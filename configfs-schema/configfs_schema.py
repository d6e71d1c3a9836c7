#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Tool for rbd's machine-readable configfs description.

configfs_schema.py validate
    Check rbd-configfs.json against its JSON Schema (schema.json) and
    the rules a schema cannot say (unique names, min <= default <= max,
    and every value an attribute ties to a C macro in "constants" equal
    to that macro in rbd_proto.h or rbd_limits.h, which the drivers use).
configfs_schema.py compare TREE_ID LISTING [RELEASE]
    Compare a live configfs tree with the description, both ways:
    every live entry must be described, and every described entry must
    exist live, as on kernel RELEASE (default: the running one; an
    entry with "since_kernel" exists from that version on). LISTING has
    one line per entry below the tree's path:
    "D <path>", "L <path>" or "F <mode> <path>" (tests/schema/001 makes
    it with find). Placeholder groups (<target>, ...) must have at least
    one live instance.
configfs_schema.py rst
    Print Documentation/configfs-abi.rst, generated from the description.
configfs_schema.py check-rst FILE
    Fail if FILE differs from what "rst" prints.

Exit status: 0 when all is well, 1 when a check fails, 2 on usage errors.
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "rbd-configfs.json")
SCHEMA = os.path.join(HERE, "schema.json")
# The headers whose macros "constants" may name.
HEADERS = [os.path.join(HERE, "..", "include", "uapi", "rbd", "rbd_proto.h"),
           os.path.join(HERE, "..", "drivers", "rbd_common", "rbd_limits.h")]


def load():
    with open(DATA, encoding="utf-8") as f:
        return json.load(f)


def c_constants():
    """The integer macros of HEADERS, by name (SZ_<n>K and SZ_<n>M known)."""
    consts = {}
    for header in HEADERS:
        with open(header, encoding="utf-8") as f:
            for m in re.finditer(r"^#define\s+(RBD_\w+)\s+(.+?)\s*$", f.read(), re.M):
                expr = re.sub(r"\bSZ_(\d+)([KM])\b",
                              lambda z: str(int(z[1]) << (10 if z[2] == "K" else 20)),
                              m[2])
                expr = re.sub(r"\b(\d+)U?L{0,2}\b", r"\1", expr)
                if re.fullmatch(r"[\d\s()<>|+*-]+", expr):
                    consts[m[1]] = eval(expr, {"__builtins__": {}})  # digits and operators only
    return consts


def check_constants(where, a, consts):
    """Problems with attribute a's "constants", as messages."""
    errors = []
    for key, macro in a.get("constants", {}).items():
        if macro not in consts:
            errors.append(f"{where}/{a['name']}: {key}: no integer macro {macro}")
        elif a.get(key) != consts[macro]:
            errors.append(f"{where}/{a['name']}: {key} is {a.get(key)}, "
                          f"but {macro} is {consts[macro]}")
    return errors


def walk(group, path=()):
    """Yield (path tuple, group) for every group, depth first."""
    path = path + (group["name"],)
    yield path, group
    for child in group["groups"]:
        yield from walk(child, path)


def cmd_validate():
    import jsonschema  # Debian: python3-jsonschema

    data = load()
    with open(SCHEMA, encoding="utf-8") as f:
        schema = json.load(f)
    errors = []
    validator = jsonschema.Draft202012Validator(
        schema, format_checker=jsonschema.FormatChecker())
    for err in sorted(validator.iter_errors(data), key=str):
        loc = "/".join(str(p) for p in err.absolute_path)
        errors.append(f"schema: {loc}: {err.message}")
    if not errors:
        consts = c_constants()
        for tree in data["trees"]:
            for path, group in walk(tree["root"]):
                where = tree["path"] + "/" + "/".join(path[1:])
                names = [a["name"] for a in group["attributes"]]
                names += [g["name"] for g in group["groups"]]
                names += [lk["name"] for lk in group.get("links", [])]
                dups = {n for n in names if names.count(n) > 1}
                if dups:
                    errors.append(f"{where}: duplicate names {sorted(dups)}")
                for a in group["attributes"]:
                    errors += check_constants(where, a, consts)
                    d = a.get("default")
                    if isinstance(d, int) and not isinstance(d, bool):
                        if "min" in a and d < a["min"]:
                            errors.append(f"{where}/{a['name']}: default below min")
                        if "max" in a and d > a["max"]:
                            errors.append(f"{where}/{a['name']}: default above max")
                    if "min" in a and "max" in a and a["min"] > a["max"]:
                        errors.append(f"{where}/{a['name']}: min above max")
    for e in errors:
        print(e)
    print(f"validate: {len(errors)} problems" if errors else "validate: ok")
    return 1 if errors else 0


def kernel_version(release):
    """(major, minor) of a kernel release string such as 6.12.118+deb12."""
    m = re.match(r"(\d+)\.(\d+)", release)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


def exists_on(entry, kernel):
    """Whether a described entry exists on a kernel (major, minor)."""
    since = entry.get("since_kernel")
    return since is None or kernel >= kernel_version(since)


def match(entries, name, kernel=(999, 0)):
    """The described entry that a live name stands for, or None."""
    entries = [e for e in entries if exists_on(e, kernel)]
    for e in entries:
        if "name_pattern" not in e and e["name"] == name:
            return e
    for e in entries:
        if "name_pattern" in e and re.fullmatch(e["name_pattern"], name):
            return e
    return None


def cmd_compare(tree_id, listing, release=None):
    kernel = kernel_version(release or os.uname().release)
    data = load()
    trees = [t for t in data["trees"] if t["id"] == tree_id]
    if not trees:
        print(f"compare: no tree '{tree_id}'", file=sys.stderr)
        return 2
    tree = trees[0]
    base = tree["path"].rstrip("/")
    live = []
    with open(listing, encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            kind, mode, path = parts[0], None, parts[-1]
            if kind == "F":
                mode = parts[1]
            if path != base and not path.startswith(base + "/"):
                continue
            live.append((kind, mode, path))

    problems = []
    seen = set()  # ids of described entries that have a live instance
    root = tree["root"]
    seen.add(id(root))
    nodes = {base: root}  # live directory path -> described group
    for kind, mode, path in sorted(live, key=lambda e: e[2].count("/")):
        if path == base:
            continue
        parent, name = path.rsplit("/", 1)
        group = nodes.get(parent)
        if group is None:
            continue  # below an undescribed directory: reported there
        if kind == "D":
            entry = match(group["groups"], name, kernel)
        elif kind == "L":
            entry = match(group.get("links", []), name, kernel)
        else:
            entry = match(group["attributes"], name, kernel)
        if entry is None:
            what = {"D": "directory", "L": "symlink", "F": "attribute"}[kind]
            problems.append(f"undocumented {what}: {path}")
            continue
        seen.add(id(entry))
        if kind == "D":
            nodes[path] = entry
        elif kind == "F" and int(mode, 8) & 0o777 != int(entry["mode"], 8):
            problems.append(f"mode of {path} is {mode}, described as {entry['mode']}")

    def missing(group, path):
        for a in group["attributes"]:
            if id(a) not in seen and exists_on(a, kernel):
                problems.append(f"described but missing attribute: {path}/{a['name']}")
        for lk in group.get("links", []):
            if id(lk) not in seen:
                problems.append(f"described but missing symlink: {path}/{lk['name']}")
        for g in group["groups"]:
            if id(g) not in seen:
                problems.append(f"described but missing directory: {path}/{g['name']}")
            else:
                missing(g, f"{path}/{g['name']}")

    missing(root, base)
    for p in problems:
        print(p)
    print(f"compare {tree_id}: {len(live)} live entries, {len(problems)} problems")
    return 1 if problems else 0


def rst_value(v):
    if isinstance(v, bool):
        return str(int(v))
    return str(v)


def cmd_rst(out):
    data = load()
    w = out.write
    w(".. SPDX-License-Identifier: GPL-2.0\n")
    w(".. Generated by configfs-schema/configfs_schema.py from\n")
    w("   configfs-schema/rbd-configfs.json; do not edit.\n\n")
    title = "The rbd configfs ABI"
    w(f"{'=' * len(title)}\n{title}\n{'=' * len(title)}\n\n")
    w("rbd is configured through two configfs trees: the LIO fabric ``rbd``\n"
      "of the target module rbdt and the session tree of the initiator\n"
      "module rbdi. This page is generated from their machine-readable\n"
      "description, ``configfs-schema/rbd-configfs.json`` (validated by\n"
      "``configfs-schema/schema.json``); a guest test compares both live\n"
      "trees with that description in both directions.\n\n"
      "Writable: *always* means any time; *disabled* only while the\n"
      "session's ``enable`` is 0 (-EBUSY otherwise); *never* read-only.\n"
      "A write outside the range fails with -EINVAL and a kernel log line\n"
      "naming the object, the attribute and the allowed values.\n\n")
    for tree in data["trees"]:
        head = f"{tree['path']} ({tree['module']})"
        w(f"{head}\n{'=' * len(head)}\n\n{tree['description']}\n\n")
        for path, group in walk(tree["root"]):
            full = "/".join((tree["path"],) + path[1:])
            w(f"``{full}/``\n{'-' * (len(full) + 5)}\n\n")
            made = "mkdir by the user" if group["created_by"] == "user" else \
                "made by the kernel with its parent"
            w(f"{group['description']}\n\n")
            w(f"Created: {made}.")
            if "provided_by" in group:
                w(f" Provided by: {group['provided_by']}.")
            w("\n\n")
            if "name_pattern" in group:
                w(f"Name pattern: ``{group['name_pattern']}``\n\n")
            for lk in group.get("links", []):
                w(f"Symlink ``{lk['name']}`` -> ``{lk['points_to']}``: "
                  f"{lk['description']}\n\n")
            if not group["attributes"]:
                continue
            w(".. list-table::\n   :header-rows: 1\n   :widths: 20 8 7 12 15 9 29\n\n")
            w("   * - Attribute\n     - Type\n     - Mode\n     - Default\n"
              "     - Range\n     - Writable\n     - Description\n")
            for a in group["attributes"]:
                rng = ""
                if "min" in a or "max" in a:
                    rng = f"{a.get('min', '')}..{a.get('max', '')}"
                if "multiple_of" in a:
                    rng += f", multiple of {a['multiple_of']}"
                if "values" in a:
                    rng = ", ".join(a["values"])
                if a.get("unit"):
                    rng += f" ({a['unit']})" if rng else a["unit"]
                default = rst_value(a["default"]) if "default" in a else ""
                desc = a["description"]
                if "since_kernel" in a:
                    desc += f" (Linux {a['since_kernel']} and later.)"
                if a.get("provided_by", group.get("provided_by")) == "target_core_mod":
                    desc += " [LIO core]"
                w(f"   * - ``{a['name']}``\n     - {a['type']}\n     - {a['mode']}\n"
                  f"     - {default or '-'}\n     - {rng or '-'}\n"
                  f"     - {a['writable']}\n     - {desc}\n")
            w("\n")
    return 0


def cmd_check_rst(path):
    import io

    buf = io.StringIO()
    cmd_rst(buf)
    try:
        with open(path, encoding="utf-8") as f:
            current = f.read()
    except OSError as e:
        print(f"check-rst: {e}")
        return 1
    if current != buf.getvalue():
        print(f"check-rst: {path} is out of date; regenerate it with "
              f"'configfs-schema/configfs_schema.py rst > {path}'")
        return 1
    print(f"check-rst: {path} is current")
    return 0


def main(argv):
    if len(argv) == 2 and argv[1] == "validate":
        return cmd_validate()
    if len(argv) in (4, 5) and argv[1] == "compare":
        return cmd_compare(argv[2], argv[3], argv[4] if len(argv) == 5 else None)
    if len(argv) == 2 and argv[1] == "rst":
        return cmd_rst(sys.stdout)
    if len(argv) == 3 and argv[1] == "check-rst":
        return cmd_check_rst(argv[2])
    if len(argv) == 2 and argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
