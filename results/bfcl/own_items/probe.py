"""Does Qwen slip items across parts on reworded requests? The shim with own_items on and off."""
import json
from react_text import tool_calls
from react_text.backends.build import build_backend
SHOWS = {"type": "object", "required": ["service", "shows"], "properties": {
    "service": {"type": "string", "description": "Name of the streaming service."},
    "shows": {"type": "array", "items": {"type": "string"}, "description": "Names of the shows to look up."}}}
tools = [{"type": "function", "function": {"name": "show_ratings", "description": "Ratings of shows on a streaming service.", "parameters": SHOWS}}]
PARKS = {"type": "object", "required": ["city", "amenities"], "properties": {
    "city": {"type": "string", "description": "The city."},
    "amenities": {"type": "array", "items": {"type": "string"}, "description": "Amenities the park must have."}}}
ptools = [{"type": "function", "function": {"name": "find_parks", "description": "Find parks in a city with given amenities.", "parameters": PARKS}}]
asks = [(tools, "Get the ratings on Netflix for 'Dark', and on Hulu for 'Shogun' and 'Reservation Dogs'."),
        (tools, "Show ratings on Netflix for 'Friends', and Hulu for 'The Office' and 'Stranger Things'."),
        (tools, "What are the ratings of 'Lupin' on Netflix and of 'The Bear' and 'Severance' on Hulu?"),
        (ptools, "Find parks in Oslo that have a pool and a skate park, then parks in Bergen that have a playground and a running track."),
        (ptools, "Find parks in Denver with a dog park and a lake, and in Austin with a zoo and a pool.")]
b = build_backend("llama")
for t, q in asks:
    for checks in ("default", "-own_items"):
        out = tool_calls([{"role": "user", "content": q}], t, backend=b, checks=checks)
        calls = [json.loads(c["function"]["arguments"]) for c in (out["message"].get("tool_calls") or [])]
        print(checks, "|", q[:60], "|", calls, out.get("step_checks"), flush=True)
