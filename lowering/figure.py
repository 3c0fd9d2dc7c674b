"""Figures: bar charts, one panel under another, written to a file (``luthier-run --plot``,
``luthier-opt --report --plot``).

matplotlib is an optional extra (``pip install 'luthier-xdsl[plot]'``), imported only when
a figure is drawn; the figure is written in the format its file's extension names
(``.png``, ``.svg``, ``.pdf``), whole or not at all.
"""

from __future__ import annotations

import io
import os
from collections.abc import Sequence
from dataclasses import dataclass

from luthier.amdgpu_dialects.errors import LuthierError
from luthier.lowering.output import write_atomically

#: Formats a figure can be written in, by extension.
FORMATS = ("png", "svg", "pdf")


class FigureError(LuthierError):
    """A figure that cannot be written: no matplotlib, an extension that names no format,
    a file that cannot be written."""


@dataclass(frozen=True)
class Panel:
    """One panel: a title and bars (label, value), horizontal for long labels; with
    ``before``, each bar is drawn beside the value it had before."""

    title: str
    labels: Sequence[str]
    values: Sequence[float]
    horizontal: bool = False
    before: Sequence[float] | None = None


def check_path(path: str) -> None:
    """Refuse, before any work, a path whose extension names no format."""
    extension = os.path.splitext(path)[1].lstrip(".").lower()
    if extension not in FORMATS:
        raise FigureError(f"--plot {path}: a figure is written as "
                          f"{', '.join('.' + name for name in FORMATS)}, by extension")


def write_figure(path: str, panels: Sequence[Panel]) -> None:
    """Draw ``panels`` one under the other and write them to ``path``."""
    check_path(path)
    extension = os.path.splitext(path)[1].lstrip(".").lower()
    try:
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib import pyplot
    except ImportError:
        raise FigureError("--plot needs matplotlib: pip install 'luthier-xdsl[plot]'") \
            from None
    heights = [max(2.5, 0.22 * len(panel.labels)) if panel.horizontal else 3.0
               for panel in panels]
    figure, axes = pyplot.subplots(len(panels), 1, figsize=(10, sum(heights) + 0.5),
                                   gridspec_kw={"height_ratios": heights}, squeeze=False)
    for axis, panel in zip(axes[:, 0], panels, strict=True):
        positions = list(range(len(panel.labels)))
        width = 0.4 if panel.before is not None else 0.8
        shift = width / 2 if panel.before is not None else 0.0
        if panel.horizontal:
            if panel.before is not None:
                axis.barh([p + shift for p in positions], panel.before, height=width,
                          color="tab:gray", label="before")
            axis.barh([p - shift for p in positions], panel.values, height=width,
                      color="tab:blue", label="after" if panel.before is not None else None)
            axis.set_yticks(positions, panel.labels, fontsize=8)
        else:
            if panel.before is not None:
                axis.bar([p - shift for p in positions], panel.before, width=width,
                         color="tab:gray", label="before")
            axis.bar([p + shift for p in positions], panel.values, width=width,
                     color="tab:blue", label="after" if panel.before is not None else None)
            step = max(1, len(positions) // 32)
            axis.set_xticks(positions[::step], panel.labels[::step], fontsize=8,
                            rotation=90 if len(positions) > 16 else 0)
        if panel.before is not None:
            axis.legend(fontsize=8)
        axis.set_title(panel.title, fontsize=10)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format=extension)  # pyright: ignore[reportUnknownMemberType]
    pyplot.close(figure)
    try:
        write_atomically(path, buffer.getvalue())
    except OSError as error:
        raise FigureError(f"--plot {path}: cannot write: {error.strerror}") from None
