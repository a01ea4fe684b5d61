# car's Python check, run as `python -I -S -B -W ignore -c <this> NAME LINES [PATH...]` with the
# source on stdin. One interpreter start does everything:
#   1. compile() the source (catches what only the compiler knows: 'return' outside function,
#      IndentationError), writing nothing to __pycache__;
#   2. for the imports on LINES ("all", or comma-separated line numbers the edit added), check that
#      each module can be found, without importing (and so running) any of them.
# Output, one line each: "E<TAB>line<TAB>col<TAB>message" or "M<TAB>line<TAB>col<TAB>module".
# Must run on Python 3.6+.
import sys


def emit(*fields):
    text = "\t".join(str(f).replace("\t", " ").replace("\n", " ") for f in fields)
    sys.stdout.buffer.write((text + "\n").encode("utf-8", "replace"))


# ast.PyCF_ONLY_AST, without importing `ast` (its imports cost more than the whole check).
ONLY_AST = 0x400


def compile_errors(source, name, want_tree):
    """compile() in two steps when the tree is wanted (parser, then compiler), so both kinds of
    errors are caught either way. Returns (had_error, tree)."""
    tree = None
    try:
        if want_tree:
            tree = compile(source, name, "exec", ONLY_AST, True)
            compile(tree, name, "exec", 0, True)
        else:
            compile(source, name, "exec", 0, True)
    except SyntaxError as error:
        kind = type(error).__name__
        emit("E", error.lineno or 1, error.offset or 1, kind + ": " + str(error.msg))
        return True, None
    except (ValueError, TypeError) as error:
        emit("E", 1, 1, type(error).__name__ + ": " + str(error))
        return True, None
    return False, tree


def children(node):
    for field in node._fields:
        value = getattr(node, field, None)
        if isinstance(value, list):
            for item in value:
                if hasattr(item, "_fields"):
                    yield item
        elif hasattr(value, "_fields"):
            yield value


def added_imports(tree, wanted):
    """(line, col, module) of absolute imports on wanted lines that always run. An import inside
    `try` (optional dependency), `if` (TYPE_CHECKING, version or platform checks) or `with`
    (contextlib.suppress(ImportError)) is allowed to be missing."""
    import _ast

    names = ("Try", "TryStar")
    guards = tuple(getattr(_ast, n) for n in names if hasattr(_ast, n))
    conditional = tuple(getattr(_ast, n) for n in ("If", "With", "AsyncWith"))
    found = []
    pending = [(tree, False)]
    while pending:
        node, guarded = pending.pop()
        if isinstance(node, (_ast.Import, _ast.ImportFrom)):
            if guarded or (wanted is not None and node.lineno not in wanted):
                continue
            if isinstance(node, _ast.Import):
                for alias in node.names:
                    found.append((node.lineno, node.col_offset + 1, alias.name))
            elif node.level == 0 and node.module:
                found.append((node.lineno, node.col_offset + 1, node.module))
            continue
        if isinstance(node, conditional):
            pending.extend((child, True) for child in children(node))
            continue
        if isinstance(node, guards):
            pending.extend((part, True) for part in node.body)
            rest = node.handlers + node.orelse + node.finalbody
            pending.extend((part, guarded) for part in rest)
            continue
        pending.extend((child, guarded) for child in children(node))
    found.sort()
    return found


def find_spec(name, path):
    """What importlib.util.find_spec does for a name whose parent is known, without importing
    importlib.util (or the module)."""
    for finder in sys.meta_path:
        method = getattr(finder, "find_spec", None)
        if method is None:
            continue
        spec = method(name, path)
        if spec is not None:
            return spec
    return None


def module_exists(dotted):
    """Finds a module without importing it or its parents. A submodule of something that is not
    a package (os.path) may be an attribute, so it counts as found."""
    parts = dotted.split(".")
    try:
        module = sys.modules.get(parts[0])
        spec = getattr(module, "__spec__", None) if module else None
        spec = spec or find_spec(parts[0], None)
        for index in range(1, len(parts)):
            if spec is None or spec.submodule_search_locations is None:
                break
            name = ".".join(parts[: index + 1])
            spec = find_spec(name, list(spec.submodule_search_locations))
    except (ImportError, ValueError, AttributeError, TypeError):
        return True
    return spec is not None


def add_site_packages(full):
    """-S kept start-up fast; third-party imports need site-packages. First only the folders
    (cheap); `full` runs site.main() for what .pth files add (editable installs' finders)."""
    import os
    import site

    if not full:
        try:
            folders = list(site.getsitepackages())
            if not os.environ.get("PYTHONNOUSERSITE"):
                folders.append(site.getusersitepackages())
        except AttributeError:  # old virtualenv's site.py; the full pass below still runs
            return
        sys.path.extend(folder for folder in folders if os.path.isdir(folder))
        return
    site.ENABLE_USER_SITE = not os.environ.get("PYTHONNOUSERSITE")
    site.main()


def main():
    name, lines = sys.argv[1], sys.argv[2]
    sys.path.extend(sys.argv[3:])
    source = sys.stdin.buffer.read().decode("utf-8", "surrogateescape")
    had_error, tree = compile_errors(source, name, bool(lines))
    if had_error or tree is None:
        return
    wanted = None if lines == "all" else {int(n) for n in lines.split(",") if n}
    imports = added_imports(tree, wanted)
    if not imports:
        return
    import os

    sys.path.extend(p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p)
    missing = [item for item in imports if not module_exists(item[2])]
    for full in (False, True):
        if missing:
            add_site_packages(full)
            missing = [item for item in missing if not module_exists(item[2])]
    for line, col, module in missing:
        emit("M", line, col, module)


main()
