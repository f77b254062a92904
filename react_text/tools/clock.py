"""The current_time tool: the one fact a model cannot know from its training."""

from __future__ import annotations

from datetime import datetime

from .spec import tool

__all__ = ["current_time"]


_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


@tool(timeout=2.0, aliases=("当前时间", "时间"))
def current_time() -> str:
    """Get the current local date and time (ISO 8601, with the weekday)."""
    now = datetime.now().astimezone()
    return f"{now.isoformat(timespec='seconds')} ({_WEEKDAYS[now.weekday()]})"
