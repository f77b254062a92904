"""The classic layout with Chinese labels: ``行动：tool`` then ``行动输入：{json}``; ``最终答案：...``."""

from __future__ import annotations

from .classic import Labelled

DIALECT = Labelled(
    "zh",
    "思考：",
    "观察：",
    ("\n观察", "\nObservation", "\n问题：", "\nQuestion:"),
    language="zh",
    action_label="行动：",
    input_label="行动输入：",
    final_label="最终答案：",
)
