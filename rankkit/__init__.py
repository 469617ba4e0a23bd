"""rankkit: ranking quality measured where the data lives, as DuckDB SQL macros."""

import importlib
import sys
import types

from rankkit.errors import InputError, MeasureError, RankkitError, RankkitWarning


def _version() -> str:
    # importlib.metadata (email, zipfile, csv ...) and reading the package's metadata would be most of
    # `import rankkit`: done when the version is asked for (rankkit --version, a report)
    import importlib.metadata

    try:
        return importlib.metadata.version("rankkit-duckdb")  # the distribution's name on the index
    except importlib.metadata.PackageNotFoundError:  # run from a source tree that was never installed
        return "0+unknown"

__all__ = ["__version__", "connect", "evaluate", "compare", "trace", "explore", "report", "verify", "Report",
           "Conventions", "agreement", "leaderboard_agreement", "overlap", "merge_judgments", "source_shares", "fuse", "fusion_sweep", "explore_sweep", "read_qrels",
           "read_run", "RankkitError", "InputError", "MeasureError", "RankkitWarning"]

# The public functions load on first use, so `import rankkit` (and the command line) does not pay
# for pandas, scipy or DuckDB before they are needed.
_PUBLIC = {"connect": "rankkit._sql", "evaluate": "rankkit.evaluate", "compare": "rankkit.compare",
           "trace": "rankkit.tracing", "explore": "rankkit.explore", "read_qrels": "rankkit.io", "read_run": "rankkit.io",
           "Conventions": "rankkit.conventions", "report": "rankkit.report", "verify": "rankkit.report",
           "Report": "rankkit.report", "agreement": "rankkit.agreement",
           "leaderboard_agreement": "rankkit.agreement", "overlap": "rankkit.agreement",
           "merge_judgments": "rankkit.agreement", "source_shares": "rankkit.agreement",
           "fuse": "rankkit.fusion", "fusion_sweep": "rankkit.fusion", "explore_sweep": "rankkit.explore.sweep"}


class _Package(types.ModuleType):
    def __getattr__(self, name: str):
        if name == "__version__":
            super().__setattr__(name, _version())
            return self.__version__
        if name not in _PUBLIC:
            raise AttributeError(f"module 'rankkit' has no attribute {name!r}")
        value = getattr(importlib.import_module(_PUBLIC[name]), name)
        super().__setattr__(name, value)
        return value

    def __setattr__(self, name: str, value) -> None:
        # importing the submodule rankkit.evaluate must not hide the function rankkit.evaluate
        if name in _PUBLIC and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(_PUBLIC) | {"__version__"})


sys.modules[__name__].__class__ = _Package
