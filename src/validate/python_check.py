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


def compile_errors(source, name):
    try:
        compile(source, name, "exec", 0, True)
    except SyntaxError as error:
        kind = type(error).__name__
        emit("E", error.lineno or 1, error.offset or 1, kind + ": " + str(error.msg))
        return True
    except (ValueError, TypeError) as error:
        emit("E", 1, 1, type(error).__name__ + ": " + str(error))
        return True
    return False


def added_imports(tree, wanted):
    """(line, col, module) of absolute imports on wanted lines, outside try blocks (a guarded
    import is allowed to be missing)."""
    import ast

    guards = tuple(t for t in (getattr(ast, "Try", None), getattr(ast, "TryStar", None)) if t)
    found = []

    def visit(node, guarded):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, guards):
                for part in child.body:
                    visit_one(part, True)
                for part in child.handlers + child.orelse + child.finalbody:
                    visit_one(part, guarded)
                continue
            visit_one(child, guarded)

    def visit_one(node, guarded):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if guarded or (wanted is not None and node.lineno not in wanted):
                return
            if isinstance(node, ast.Import):
                for alias in node.names:
                    found.append((node.lineno, node.col_offset + 1, alias.name))
            elif node.level == 0 and node.module:
                found.append((node.lineno, node.col_offset + 1, node.module))
            return
        visit(node, guarded)

    visit(tree, False)
    return found


def module_exists(dotted):
    """Finds a module without importing it or its parents. A submodule of something that is not
    a package (os.path) may be an attribute, so it counts as found."""
    import importlib.machinery
    import importlib.util

    parts = dotted.split(".")
    try:
        spec = importlib.util.find_spec(parts[0])
        for index in range(1, len(parts)):
            if spec is None or spec.submodule_search_locations is None:
                break
            name = ".".join(parts[: index + 1])
            spec = importlib.machinery.PathFinder.find_spec(
                name, list(spec.submodule_search_locations)
            )
    except (ImportError, ValueError, AttributeError):
        return True
    return spec is not None


def enable_site_packages():
    """-S kept start-up fast; imports need site-packages (and .pth finders of editable installs)."""
    import os
    import site

    site.ENABLE_USER_SITE = not os.environ.get("PYTHONNOUSERSITE")
    site.main()


def main():
    name, lines = sys.argv[1], sys.argv[2]
    sys.path.extend(sys.argv[3:])
    source = sys.stdin.buffer.read().decode("utf-8", "surrogateescape")
    if compile_errors(source, name) or not lines:
        return
    import ast
    import os

    tree = compile(source, name, "exec", ast.PyCF_ONLY_AST, True)
    wanted = None if lines == "all" else {int(n) for n in lines.split(",") if n}
    imports = added_imports(tree, wanted)
    if not imports:
        return
    sys.path.extend(p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p)
    missing = [item for item in imports if not module_exists(item[2])]
    if missing:
        enable_site_packages()
        missing = [item for item in missing if not module_exists(item[2])]
    for line, col, module in missing:
        emit("M", line, col, module)


main()
