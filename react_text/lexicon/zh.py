"""Chinese words and characters the engine reads text by, one list per concept."""

from __future__ import annotations

__all__ = ["COUNT", "DIGITS", "FUNCTION_CHARS", "MEASURE_WORDS", "NEGATION_CHARS", "NUMBER_UNITS", "ONE_TO_TEN",
           "PERCENT", "REFUSALS", "STOPWORDS", "STOP_PAIRS", "is_chinese"]

DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
"""Digits of a Chinese numeral."""
NUMBER_UNITS = {"十": 10, "百": 100, "千": 1000, "万": 10_000, "亿": 100_000_000}
"""Place units of a Chinese numeral (``三百``, ``两万``)."""
ONE_TO_TEN = "一二三四五六七八九十"
"""The numerals one to ten in order, for writing a count ("第三")."""

NEGATION_CHARS = "不没无别勿非未免"
"""Characters by which a Chinese request may ask for something off ("不要", "没有", "无需", "别", "免"):
``checks.stated_flags`` sets no flag where one occurs."""
PERCENT = "百分之"
"""What writes a number after it as a percentage ("百分之5", "百分之五")."""
LIST_JOINERS = "和与及或跟、"
"""Characters that join the items of one list ("北京和上海"), beside the comma (``checks.request_lists``)."""
RESPECTIVE_WORDS: tuple[str, ...] = ("分别对应", "依次")
"""Words that pair two lists off item by item (``checks.request_lists``); a bare 分别 also means "each", so it is not
one."""
RANGE_WORDS: tuple[str, ...] = ("之间",)
"""Words after two values joined like a list ("在1和1000之间") that make them a range's ends, not a list."""
MEASURE_WORDS = "名个位座条本辆种次家所只头台件张支艘棵"
"""The measure words that follow 多少/几 in a question that counts ("多少名", "几座")."""
COUNT = f"(?:多少|几)[{MEASURE_WORDS}人]"
"""A question that counts, as a regex fragment: 多少 or 几 and a measure word ("多少名", "几座", "多少人")."""

STOPWORDS = frozenset("什么 多少 哪个 哪些 怎么 为什么 是否 如何 请问 一下 的 是 了 吗 呢 在 和".split())
"""Words (and character pairs) of a query that say nothing about its topic."""
STOP_PAIRS = frozenset("多少 是多 什么 是什 哪个 哪里 哪一 一个 的是 是谁 有多 这个 那个 我们 你们 请问".split())
"""Character pairs that say nothing about which few-shot episode a question is like (``prompting.episodes``)."""
FUNCTION_CHARS = frozenset("的是了在有多少几吗呢什么哪谁个请问和与及或")
"""Function characters: a character pair holding one says nothing about the topic (``prompting.evidence``)."""

REFUSALS: tuple[str, ...] = (
    "无法", "不知道", "不清楚", "不确定", "不能确定", "不能回答", "不能提供", "不能预测", "不能得知", "不可能知道",
    "没有找到", "未找到", "找不到", "查不到", "搜不到", "没有查到", "未能找到", "没有相关", "无相关",
    "未提及", "没有提到", "没有提及", "未知", "无从", "没有记载", "没有记录", "暂无", "无可奉告", "不得而知",
    r"没有[^。，,.;；]{0,10}(?:信息|资料|记录|数据|内容)",
)
"""Phrases that decline to answer, as regex fragments."""


def is_chinese(lang: str) -> bool:
    """Whether a language code (``zh``, ``zh-CN``, ``ZH``) names Chinese: the one test every reader of a prompt's
    language uses."""
    return lang.lower().startswith("zh")
