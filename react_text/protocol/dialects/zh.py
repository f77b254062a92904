"""The classic layout with Chinese labels: ``行动：tool`` then ``行动输入：{json}``; ``最终答案：...``."""

from __future__ import annotations

from dataclasses import dataclass

from ...types import Args
from .base import Dialect, json_text


@dataclass(frozen=True)
class Chinese(Dialect):
    def write_action(self, tool: str, args: Args, n: int = 1) -> str:
        return f"行动：{tool}\n行动输入：{json_text(args)}"

    def write_final(self, answer: str, n: int = 1) -> str:
        return f"最终答案：{answer}"


DIALECT = Chinese(
    "zh",
    "思考：",
    "观察：",
    ("\n观察", "\nObservation", "\n问题：", "\nQuestion:"),
    language="zh",
)
