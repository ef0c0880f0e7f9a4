"""SkyRL's real generator data classes (`skyrl.train.generators.base`), for the tests.

SkyRL publishes `skyrl` on PyPI (0.3.0 is pinned in requirements-engines.txt, installed with
--no-deps). On Python >= 3.12 `import skyrl.train.generators.base` works. On Python 3.11 (this
repository's venv) the package import fails inside SkyRL itself, before any generator code runs:
`skyrl.train.generators.base` imports `skyrl.backends`, whose `__init__` imports the Tinker backend,
whose pydantic models use `typing.TypedDict`, which pydantic refuses below 3.12 (PydanticUserError).

`load()` then loads the two real source files the classes live in, `skyrl/train/generators/base.py`
and `skyrl/backends/skyrl_train/inference_servers/base.py`, from the installed distribution, with empty
parent packages instead of the Tinker-importing `__init__` files. The classes (`GeneratorInterface`,
`GeneratorInput`, `GeneratorOutput`, `TrajectoryID`, `BatchMetadata`) are SkyRL's own code, unchanged.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from pathlib import Path
from typing import Any


def load() -> tuple[Any, str]:
    """(the real `skyrl.train.generators.base` module, how it was loaded) or (None, why not)."""
    try:
        return importlib.import_module("skyrl.train.generators.base"), "import"
    except ModuleNotFoundError as e:
        return None, f"SkyRL is not installed: {e}"
    except Exception as e:
        first_error = f"{type(e).__name__}: {str(e).splitlines()[0]}"
    spec = importlib.util.find_spec("skyrl")
    if spec is None or not spec.submodule_search_locations:
        return None, "SkyRL is not installed"
    root = Path(next(iter(spec.submodule_search_locations)))
    for name in list(sys.modules):
        if name == "skyrl" or name.startswith("skyrl."):
            del sys.modules[name]
    for package in (
        "skyrl",
        "skyrl.backends",
        "skyrl.backends.skyrl_train",
        "skyrl.backends.skyrl_train.inference_servers",
        "skyrl.train",
        "skyrl.train.generators",
    ):
        module = types.ModuleType(package)
        module.__path__ = [str(root.joinpath(*package.split(".")[1:]))]
        sys.modules[package] = module
    for name in ("skyrl.backends.skyrl_train.inference_servers.base", "skyrl.train.generators.base"):
        path = root.joinpath(*name.split(".")[1:]).with_suffix(".py")
        file_spec = importlib.util.spec_from_file_location(name, path)
        assert file_spec is not None and file_spec.loader is not None
        module = importlib.util.module_from_spec(file_spec)
        sys.modules[name] = module
        file_spec.loader.exec_module(module)
    return sys.modules["skyrl.train.generators.base"], f"source files (package import failed: {first_error})"
