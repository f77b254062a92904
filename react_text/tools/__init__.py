"""Tools: one model of a tool, checking arguments, calling, rendering results, the built-ins."""
