"""The report notebooks' figures, shown with alternative text that names what each one plots.

A figure shown with `plt.show()` reaches the rendered report as an image without alternative text (nbconvert
then logs "Alternative text is missing" and writes a placeholder). `show` puts the figure's axes titles into
its output's metadata, which the report's template (templates/report.html.j2) writes as the image's `alt`.
docs/reports.md, "The run report".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def alt_text(fig: Figure) -> str:
    """The figure's axes titles, in order, or what kind of figure it is when none has a title."""
    titles = [ax.get_title() for ax in fig.axes if ax.get_title()]
    return "; ".join(titles) if titles else "A chart of this run"


def show(fig: Figure) -> None:
    """Show `fig` in the notebook with its axes titles as alternative text, then close it, so that the notebook
    does not show it a second time at the end of the cell."""
    import matplotlib.pyplot as plt
    from IPython.display import display

    display(fig, metadata={"image/png": {"alt": alt_text(fig)}})
    plt.close(fig)
