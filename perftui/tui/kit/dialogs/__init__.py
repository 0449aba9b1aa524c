"""The dashboard's dialogs, one per module: confirm, prompt, help and the store error."""

from perftui.tui.kit.dialogs.confirm import ConfirmScreen
from perftui.tui.kit.dialogs.help import HelpScreen, help_for
from perftui.tui.kit.dialogs.prompt import PromptScreen
from perftui.tui.kit.dialogs.store_error import StoreErrorScreen

__all__ = ["ConfirmScreen", "HelpScreen", "PromptScreen", "StoreErrorScreen", "help_for"]
