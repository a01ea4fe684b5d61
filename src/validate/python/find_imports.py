# The import half of car's Python check (see compile_check.py, which runs it only when the edit
# added imports). `check(tree, lines, args)` finds the absolute imports on LINES ("all", or
# comma-separated line numbers) and prints, for each module found nowhere,
# "M<TAB>line<TAB>col<TAB>module<TAB>top<TAB>how": `top` is 1 when the top-level package exists
# (a submodule is missing), `how` is "always" (runs whenever the module is imported) or
# "conditional" (inside a function, `if`, `with`, a loop or a `try` that does not expect it).
#
# Nothing from the project is ever imported or run. `-I -S` keep the user's environment and `site`
# (with its `.pth` files, `sitecustomize` and `usercustomize`) out; `sys.path` is never changed,
# so every module this script imports comes from the standard library. Modules are *found*, by
# the import system's own path finder over explicit folders: the project's source roots (`r:`),
# the interpreter's own `sys.path`, its site-packages, the project's other environments (`s:`),
# and what their `.pth` files and editable installs point to, read as text. With `x:isolated`
# (the project runs in a virtual environment without system site-packages), the interpreter's own
# and the user's site-packages are left out: only the environments' folders count. A dotted name
# is walked folder by folder, so no package's `__init__.py` runs. Must run on Python 3.6+.
import sys

FINDER = sys.modules["_frozen_importlib_external"].PathFinder


def children(node):
    for field in node._fields:
        value = getattr(node, field, None)
        if isinstance(value, list):
            for item in value:
                if hasattr(item, "_fields"):
                    yield item
        elif hasattr(value, "_fields"):
            yield value


def descendants(node):
    pending = [node]
    while pending:
        node = pending.pop()
        yield node
        pending.extend(children(node))


# A test that names one of these is about another environment (type checkers, other Python
# versions or platforms): a module missing here is expected there.
ENVIRONMENT_NAMES = {"TYPE_CHECKING", "version_info", "platform", "implementation", "hexversion",
                     "maxsize", "PY2", "PY3", "PYPY", "IS_PYPY", "WINDOWS", "IS_WINDOWS"}
IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}


def names_in(node):
    for part in descendants(node):
        name = getattr(part, "id", None) or getattr(part, "attr", None)
        if isinstance(name, str):
            yield name


def is_environment_test(test):
    names = set(names_in(test))
    return bool(names & ENVIRONMENT_NAMES) or {"os", "name"} <= names or "system" in names


def catches_import_error(handler):
    return handler.type is None or bool(set(names_in(handler.type)) & IMPORT_ERRORS)


def suppresses_import_error(node):
    return any(set(names_in(item.context_expr)) & IMPORT_ERRORS for item in node.items)


def added_imports(tree, wanted):
    """(line, col, module, how) of absolute imports on wanted lines. Imports that expect to be
    missing are left out: in a `try` that catches ImportError, under `suppress(ImportError)`, or
    under a test of TYPE_CHECKING, the Python version or the platform."""
    import _ast

    tries = tuple(getattr(_ast, n) for n in ("Try", "TryStar") if hasattr(_ast, n))
    functions = (_ast.FunctionDef, _ast.AsyncFunctionDef, _ast.Lambda)
    branches = (_ast.If, _ast.For, _ast.AsyncFor, _ast.While) + tuple(
        getattr(_ast, n) for n in ("Match",) if hasattr(_ast, n))
    withs = (_ast.With, _ast.AsyncWith)
    found = []
    pending = [(tree, "always")]
    while pending:
        node, how = pending.pop()
        if isinstance(node, (_ast.Import, _ast.ImportFrom)):
            if wanted is not None and node.lineno not in wanted:
                continue
            if isinstance(node, _ast.Import):
                for alias in node.names:
                    found.append((node.lineno, node.col_offset + 1, alias.name, how))
            elif node.level == 0 and node.module:
                found.append((node.lineno, node.col_offset + 1, node.module, how))
            continue
        if isinstance(node, _ast.If) and is_environment_test(node.test):
            continue
        if isinstance(node, tries):
            expected = any(catches_import_error(h) for h in node.handlers)
            if not expected:
                pending.extend((part, "conditional") for part in node.body)
            rest = node.handlers + node.orelse + node.finalbody
            pending.extend((part, "conditional") for part in rest)
            continue
        if isinstance(node, withs):
            if not suppresses_import_error(node):
                pending.extend((part, "conditional") for part in node.body)
            continue
        inner = "conditional" if isinstance(node, functions + branches) else how
        pending.extend((child, inner) for child in children(node))
    found.sort()
    return found


class Folder:
    """A package found outside the path finder (an editable install's mapping)."""

    def __init__(self, path):
        self.submodule_search_locations = [path]


def walk_down(spec, parts):
    """Whether parts[1:] exist below the top-level `spec`, found folder by folder."""
    for index in range(1, len(parts)):
        locations = spec.submodule_search_locations
        if locations is None:
            # A module, not a package: `import os.path` works only because `os` puts `os.path`
            # into sys.modules itself. Knowable only for a module already loaded (never import
            # one to find out); otherwise rather miss.
            parent = ".".join(parts[:index])
            if parent in sys.modules:
                return ".".join(parts[: index + 1]) in sys.modules
            return True
        spec = FINDER.find_spec(".".join(parts[: index + 1]), list(locations))
        if spec is None:
            return False
    return True


class Places:
    """Where modules are looked for, widened only as far as a module is still missing."""

    def __init__(self, roots, sites, isolated=False):
        self.roots = roots
        self.sites = sites
        self.isolated = isolated
        self.stage = 0
        self.folders = []
        self.editables = {}

    def widen(self):
        """Stage 1: site-packages of the interpreter and of the project's environments. Stage 2:
        what their `.pth` files and editable installs add. False when there is nothing more."""
        self.stage += 1
        if self.stage == 1:
            self.folders = site_folders(self.sites, self.isolated)
            return True
        if self.stage == 2:
            extra, self.editables = pth_folders(self.folders)
            self.folders = extra
            return bool(extra or self.editables)
        return False

    def tops(self, name):
        if self.stage == 0:
            module = sys.modules.get(name)
            spec = getattr(module, "__spec__", None) if module else None
            if spec is not None:
                yield spec
            for finder in sys.meta_path:
                method = getattr(finder, "find_spec", None)
                spec = method(name, None) if method else None
                if spec is not None:
                    yield spec
            folders = self.roots
        else:
            folders = self.folders
            if name in self.editables:
                yield self.editables[name]
        for folder in folders:
            spec = FINDER.find_spec(name, [folder])
            if spec is not None:
                yield spec


def site_folders(extra, isolated=False):
    import os
    import site  # the standard library's (sys.path is unchanged); -S: its main() never runs

    folders = []
    try:
        if not isolated:
            folders.extend(site.getsitepackages())
            folders.append(site.getusersitepackages())
    except AttributeError:  # an old virtualenv's site.py
        pass
    folders.extend(extra)
    seen = set()
    return [f for f in folders if f not in seen and not seen.add(f) and os.path.isdir(f)]


def pth_folders(sites):
    """Folders the `.pth` files of `sites` add, and the packages editable installs map, read as
    text: an `import` line of a `.pth` file is never run."""
    import os

    folders, editables = [], {}
    for site_dir in sites:
        try:
            names = sorted(os.listdir(site_dir))
        except OSError:
            continue
        for name in names:
            path = os.path.join(site_dir, name)
            if name.endswith(".pth") or name.endswith(".egg-link"):
                for line in read_lines(path)[:1 if name.endswith(".egg-link") else None]:
                    line = line.strip()
                    if line and not line.startswith(("#", "import ", "import\t")):
                        folder = os.path.join(site_dir, line)
                        if os.path.isdir(folder):
                            folders.append(folder)
            elif name.startswith("__editable__") and name.endswith("_finder.py"):
                editables.update(editable_mapping(path))
    return folders, editables


def read_lines(path):
    try:
        with open(path, "rb") as handle:
            return handle.read(1 << 20).decode("utf-8", "replace").splitlines()
    except OSError:
        return []


def editable_mapping(path):
    """setuptools' editable finder holds `MAPPING = {'pkg': '/src/pkg', ...}`: read, not run."""
    import ast
    import os

    for line in read_lines(path):
        if line.startswith("MAPPING") and "=" in line:
            try:
                mapping = ast.literal_eval(line.split("=", 1)[1].strip())
            except (ValueError, SyntaxError):
                return {}
            if isinstance(mapping, dict):
                return {str(k): Folder(str(v)) for k, v in mapping.items() if os.path.isdir(str(v))}
    return {}


def find(imports, places):
    """The imports not found anywhere, each with whether its top-level package exists."""
    missing = [(item, False) for item in imports]
    while missing:
        still = []
        for item, top_found in missing:
            parts = item[2].split(".")
            specs = list(places.tops(parts[0]))
            if any(walk_down(spec, parts) for spec in specs):
                continue
            still.append((item, top_found or bool(specs)))
        missing = still
        if not missing or not places.widen():
            break
    return missing


def check(tree, lines, args):
    roots = [arg[2:] for arg in args if arg.startswith("r:")]
    sites = [arg[2:] for arg in args if arg.startswith("s:")]
    wanted = None if lines == "all" else {int(n) for n in lines.split(",") if n}
    imports = added_imports(tree, wanted)
    if not imports:
        return
    import os

    roots.extend(p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p)
    isolated = "x:isolated" in args
    for (line, col, module, how), top_found in find(imports, Places(roots, sites, isolated)):
        emit("M", line, col, module, int(top_found), how)
