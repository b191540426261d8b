"""graph/apps/lazy_reexports.py: a re-export-only package ``__init__`` runs its imports on first
use, and every name still means what the package's own ``__init__`` would have bound."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from cairn.graph.apps.lazy_reexports import plan_reexports


def test_a_re_export_only_init_is_planned():
    source = textwrap.dedent(
        '''
        """Doc."""
        from __future__ import annotations
        from .run import Run as Run
        from .shared import A, B as Bee
        from pkg.other import thing
        __version__ = "1.2"
        __all__ = ["Run", "A"]
        '''
    )
    names, literals = plan_reexports(source, "pkg")
    assert names == {
        "Run": ("pkg.run", "Run"),
        "A": ("pkg.shared", "A"),
        "Bee": ("pkg.shared", "B"),
        "thing": ("pkg.other", "thing"),
    }
    assert literals == {"__doc__": "Doc.", "__version__": "1.2", "__all__": ["Run", "A"]}


def test_anything_but_re_exports_loads_the_package_normally():
    refused = [
        "from .run import *\n",  # a star import: the names are unknown without running it
        "from .run import Run\nsetup()\n",  # a call: a side effect to keep
        "import os\n",  # a plain import binds a module, maybe for a side effect
        "from .run import Run\nx = make()\n",  # an assignment that is not a literal
        "from .run import Run\nDEBUG = True\n",  # a public name assigned: left alone
        "if True:\n    from .run import Run\n",
        "def f(): pass\n",
        "from .a import x\nfrom .b import x\n",  # bound twice: the last one wins when run
        "this is not python\n",
        "from . import run\n",  # the package's own attribute (a submodule): not a re-export
    ]
    for source in refused:
        assert plan_reexports(source, "pkg") is None, source
    # A re-exported name that is also one of the package's modules: importing that module would
    # set the attribute before the re-export does.
    assert plan_reexports("from .run import run\n", "pkg", frozenset({"run"})) is None


CHECK_REAL = """
import importlib.metadata, sys
from cairn.graph.apps.lazy_reexports import install
install()
import langgraph.graph, langgraph.runtime
assert "langsmith.types.run" not in sys.modules, "langsmith's API models were imported"
assert "langgraph_sdk.client" not in sys.modules, "the LangGraph SDK client was imported"
import langgraph_sdk, langsmith.types
from langsmith.types import Run
from langsmith.types.run import Run as RunFromModule
assert Run is RunFromModule
assert "Run" in dir(langsmith.types) and "Run" in langsmith.types.__all__
from langgraph_sdk import get_client
from langgraph_sdk.client import get_client as get_client_from_module
assert get_client is get_client_from_module
assert langgraph_sdk.__version__ == importlib.metadata.version("langgraph-sdk")
try:
    langgraph_sdk.no_such_name
except AttributeError as exc:
    assert "no_such_name" in str(exc)
else:
    raise AssertionError("an unknown name resolved")
import inspect
assert "RunSelectField" in inspect.getsource(langsmith.types)  # the real loader answers the rest
import langsmith.client  # the client (tracing) still works with the deferred types
print("ok")
"""


def test_langsmith_types_and_the_sdk_client_load_on_first_use():
    out = subprocess.run([sys.executable, "-c", CHECK_REAL], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "ok\n"


CHECK_IMPURE = """
import sys
sys.path.insert(0, {root!r})
from cairn.graph.apps.lazy_reexports import DeferredReexports
sys.meta_path.insert(0, DeferredReexports(frozenset({{"pure", "impure"}})))
import pure, impure
print(sorted(m for m in sys.modules if m.startswith(("pure.", "impure."))), impure.LOG, pure.value)
print(sorted(m for m in sys.modules if m.startswith(("pure.", "impure."))))
"""


def test_only_a_pure_init_is_deferred(tmp_path):
    for name, init in (
        ("pure", "from .part import value\n"),
        ("impure", "from .part import value\nLOG = ['init ran']\n"),
    ):
        package = tmp_path / name
        package.mkdir()
        (package / "__init__.py").write_text(init)
        (package / "part.py").write_text("value = 42\n")
    out = subprocess.run(
        [sys.executable, "-c", CHECK_IMPURE.format(root=str(tmp_path))], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    before, after = out.stdout.splitlines()
    # impure ran its __init__ (a public assignment is not a literal re-export plan); pure.part
    # was imported only when `pure.value` was read.
    assert before == "['impure.part'] ['init ran'] 42"
    assert after == "['impure.part', 'pure.part']"
