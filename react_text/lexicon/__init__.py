"""The words and characters the engine reads natural language by: one definition per concept.

Why one package at the bottom: the parser, the checks, the prompt's leads and the search tool each
read questions and answers; when each kept its own list of number words or its own idea of a Chinese
character, the copies drifted apart (one list lacked the teens). ``en`` and ``zh`` hold the word lists
of each language (a third language is one more module), ``cjk`` the character ranges, ``numbers`` how
numbers are written in words, ``question`` what a question holds and asks, ``answers`` what an answer's
text is (a refusal, a tool's failure); ``messages`` the words the engine writes back, one data file per
language under ``prompts/corrections/``. Pure data and functions over text; imports nothing of the engine.
"""
