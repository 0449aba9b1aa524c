"""The command palette (ctrl+p): every screen and every project, through the app's verbs."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

from perftui.tui.kit import format as fmt

if TYPE_CHECKING:
    from perftui.tui.app import PerftuiApp


class PerftuiCommands(Provider):
    """Command palette entries for every screen and every project."""

    def _commands(self) -> list[tuple[str, Callable[[], Any], str]]:
        app = cast("PerftuiApp", self.app)
        commands: list[tuple[str, Callable[[], Any], str]] = [
            ("Projects", app.go_home, "The home screen: every project with its best results"),
            ("New project", app.new_project, "Pick a model file, engine and device"),
            (
                "Compare projects",
                app.compare_projects,
                "Two projects on one latency/throughput chart, sweet spot, layers side by side",
            ),
            (
                "Add sample projects",
                app.add_samples,
                "The shipped sample models, with a short benchmark of each",
            ),
            ("Help", app.action_help, "The keys of the current screen"),
        ]
        for project in app.safe_projects():
            name = project.name
            commands.append(
                (
                    f"Open project {name}",
                    partial(app.open_project, name),
                    f"{project.engine}/{project.device}: runs, charts, profiles",
                )
            )
            commands.append(
                (
                    f"Benchmark {name}",
                    partial(app.configure_benchmark, name),
                    "Configure and start a benchmark of this project",
                )
            )
            commands.append(
                (
                    f"Tune {name}",
                    partial(app.tune_project, name),
                    "Find the most throughput under a latency budget",
                )
            )
            commands.append(
                (
                    f"Rename project {name}",
                    partial(app.rename_project, name),
                    "Give the project another name (its runs stay with it)",
                )
            )
            commands.append(
                (
                    f"Optimize project {name}",
                    partial(app.optimize_project, name),
                    f"Make its INT8 version ({fmt.quantizer(project.engine)}) and check its "
                    "accuracy",
                )
            )
        return commands

    async def discover(self) -> Hits:
        for text, command, help_text in self._commands():
            yield DiscoveryHit(text, command, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for text, command, help_text in self._commands():
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, matcher.highlight(text), command, help=help_text)
