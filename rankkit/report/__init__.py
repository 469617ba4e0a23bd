"""Metric reports: one :class:`Report` from ``evaluate`` and ``compare``, exported to HTML, Markdown,
LaTeX, CSV, JSON and Parquet, with the record of how every number was made; ``verify`` recomputes
a saved report from the inputs it names."""

from rankkit.report.build import report
from rankkit.report.model import Report
from rankkit.report.verify import Verification, verify

__all__ = ["report", "Report", "verify", "Verification"]
