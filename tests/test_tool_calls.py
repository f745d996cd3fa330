"""Reading tool calls from what local models actually write (recorded outputs, several formats,
sloppy JSON)."""

import pytest

from staragent.agent.planners.tool_calls import loads_lenient, parse_tool_calls, strip_reasoning


def calls(text):
    return [(c["name"], c["args"]) for c in parse_tool_calls(text).tool_calls]


def test_qwen3_reply_with_reasoning_and_one_call():
    out = parse_tool_calls(
        "<think>\nThe user asks about a price; search first.\n</think>\n\n"
        '<tool_call>\n{"name": "cross_modal_search", "arguments": {"query": "grinder price", "k": 5}}\n</tool_call>'
    )
    assert [(c["name"], c["args"]) for c in out.tool_calls] == [("cross_modal_search", {"query": "grinder price", "k": 5})]
    assert out.content == "" and "search first" in out.reasoning
    assert out.tool_calls[0]["id"].startswith("call_") and out.tool_calls[0]["type"] == "tool_call"


def test_several_calls_keep_their_order_and_get_distinct_ids():
    text = (
        "Let me look at both.\n"
        '<tool_call>{"name": "transcribe_speech", "arguments": {"timestamp": "00:00:10-00:00:20"}}</tool_call>\n'
        '<tool_call>{"name": "extract_scene_text", "arguments": {"timestamp": "00:00:10-00:00:20"}}</tool_call>'
    )
    out = parse_tool_calls(text)
    assert [c["name"] for c in out.tool_calls] == ["transcribe_speech", "extract_scene_text"]
    assert len({c["id"] for c in out.tool_calls}) == 2
    assert out.content == "Let me look at both."


@pytest.mark.parametrize(
    "text, expected",
    [
        # generation stopped at the end token before the closing tag
        ('<tool_call>\n{"name": "calculator", "arguments": {"expression": "129.5 * 2"}}', [("calculator", {"expression": "129.5 * 2"})]),
        # a second block opened before the first was closed
        ('<tool_call>{"name": "a", "arguments": {}}<tool_call>{"name": "b", "arguments": {"x": 1}}</tool_call>', [("a", {}), ("b", {"x": 1})]),
        # trailing commas and a comment
        ('<tool_call>{"name": "calculator", "arguments": {"expression": "1+1",},\n// done\n}</tool_call>', [("calculator", {"expression": "1+1"})]),
        # Python-style quotes and literals
        ("<tool_call>{'name': 'cross_modal_search', 'arguments': {'query': 'dog', 'exact': True}}</tool_call>", [("cross_modal_search", {"query": "dog", "exact": True})]),
        # arguments given as a JSON string
        ('<tool_call>{"name": "calculator", "arguments": "{\\"expression\\": \\"2+2\\"}"}</tool_call>', [("calculator", {"expression": "2+2"})]),
        # cut off in the middle: missing quote and closing brackets
        ('<tool_call>{"name": "cross_modal_search", "arguments": {"query": "keynote speaker', [("cross_modal_search", {"query": "keynote speaker"})]),
        # "parameters" instead of "arguments", and no arguments at all
        ('<tool_call>{"name": "web_search", "parameters": {"query": "Porto"}}</tool_call>', [("web_search", {"query": "Porto"})]),
        ('<tool_call>{"name": "list_things"}</tool_call>', [("list_things", {})]),
        # a list of calls inside one block, OpenAI-shaped entries
        ('<tool_call>[{"type": "function", "function": {"name": "a", "arguments": {"k": 1}}}, {"name": "b", "arguments": {}}]</tool_call>', [("a", {"k": 1}), ("b", {})]),
    ],
)
def test_hermes_blocks_are_read_despite_the_usual_mistakes(text, expected):
    assert calls(text) == expected


def test_other_families_formats():
    assert calls('<function=calculator>{"expression": "3*4"}</function>') == [("calculator", {"expression": "3*4"})]
    assert calls('[TOOL_CALLS] [{"name": "calculator", "arguments": {"expression": "3*4"}}]') == [("calculator", {"expression": "3*4"})]
    fenced = 'I will search.\n```json\n{"name": "cross_modal_search", "arguments": {"query": "price"}}\n```'
    out = parse_tool_calls(fenced)
    assert [(c["name"], c["args"]) for c in out.tool_calls] == [("cross_modal_search", {"query": "price"})] and out.content == "I will search."
    assert calls('{"name": "calculator", "arguments": {"expression": "1"}}') == [("calculator", {"expression": "1"})]


def test_plain_answers_stay_answers():
    answer = 'The price is $129.50 (0:02). The slide reads {"Coffee Grinder Z9"}.'
    out = parse_tool_calls("<think>done</think>" + answer)
    assert out.tool_calls == [] and out.invalid_tool_calls == [] and out.content == answer
    json_answer = '```json\n{"price": 129.5}\n```'  # JSON that is not a call is content
    assert parse_tool_calls(json_answer).content == json_answer


def test_only_a_leading_think_block_is_reasoning():
    text, reasoning = strip_reasoning("<think>\nI should search for the speaker.\n</think>\n\nDr. Amara Singh.")
    assert text == "Dr. Amara Singh." and reasoning == "I should search for the speaker."
    assert strip_reasoning("<think>still thinking when the budget ran out")[0] == ""
    answer = "A reasoning block ends with </think>; text after it is the answer."
    assert strip_reasoning(answer) == (answer, "")
    assert strip_reasoning(f"<think>quote the tag</think>{answer}") == (answer, "quote the tag")


def test_unreadable_calls_are_reported_not_dropped():
    out = parse_tool_calls("<tool_call>search for the price please</tool_call>")
    assert out.tool_calls == [] and len(out.invalid_tool_calls) == 1
    bad = out.invalid_tool_calls[0]
    assert bad["type"] == "invalid_tool_call" and bad["args"] == "search for the price please" and bad["error"]
    nameless = parse_tool_calls('<tool_call>{"arguments": {"q": 1}}</tool_call>').invalid_tool_calls
    assert nameless and "no tool name" in nameless[0]["error"]


def test_lenient_json_gives_up_on_nonsense():
    assert loads_lenient("[1, 2,]") == [1, 2]
    with pytest.raises(ValueError):
        loads_lenient("not json at all")


# ---------------------------------------------------------------- recorded replies that used to go wrong

# Qwen3's own chat template (not the hand-written one of tiny_models.py) has the model write its
# reasoning in <think>...</think>, then each call as a JSON object on its own line between
# <tool_call> and </tool_call> lines; generation stops at <|im_end|>, which the engine removes.
QWEN3_RECORDED = (
    "<think>\nThe user asks what the grinder costs. The price is probably on a slide, so I will search for it "
    "and read the slide text around the first hit.\n</think>\n\n"
    '<tool_call>\n{"name": "cross_modal_search", "arguments": {"query": "coffee grinder price", "k": 5}}\n</tool_call>\n'
    '<tool_call>\n{"name": "extract_scene_text", "arguments": {"timestamp": "00:00:00-00:00:10"}}\n</tool_call>'
)


def test_qwen3_recorded_output_with_reasoning_and_two_calls():
    out = parse_tool_calls(QWEN3_RECORDED)
    assert [(c["name"], c["args"]) for c in out.tool_calls] == [
        ("cross_modal_search", {"query": "coffee grinder price", "k": 5}),
        ("extract_scene_text", {"timestamp": "00:00:00-00:00:10"}),
    ]
    assert out.content == "" and out.invalid_tool_calls == [] and "price is probably on a slide" in out.reasoning
    # with enable_thinking=False the prompt itself ends in an empty think block; the reply is the call alone
    alone = parse_tool_calls('<tool_call>\n{"name": "transcribe_speech", "arguments": {"timestamp": "00:01:00-00:01:30"}}\n</tool_call>')
    assert alone.content == "" and [c["name"] for c in alone.tool_calls] == ["transcribe_speech"]


def test_a_malformed_call_is_an_invalid_call_not_an_answer():
    out = parse_tool_calls('Let me search.\n<tool_call>{"name": "cross_modal_search", "arguments": {query: price}}')
    assert out.tool_calls == [] and out.content == "Let me search."
    [bad] = out.invalid_tool_calls
    assert bad["name"] == "cross_modal_search" and "double quotes" in bad["error"] and "{query: price}" in bad["args"]


def test_every_object_in_one_block_is_a_call():
    text = '<tool_call>\n{"name": "a", "arguments": {"x": 1}}\n{"name": "b", "arguments": {"y": [1, {"z": 2}]}}\n</tool_call>'
    assert calls(text) == [("a", {"x": 1}), ("b", {"y": [1, {"z": 2}]})]


def test_single_quoted_objects_with_json_literals():
    text = "<tool_call>{'name': 'search', 'arguments': {'exact': true, 'k': null, 'note': 'true to its word'}}</tool_call>"
    assert calls(text) == [("search", {"exact": True, "k": None, "note": "true to its word"})]
    assert loads_lenient("{'on': false, 'off': null}") == {"on": False, "off": None}


def test_an_answer_that_mentions_the_tag_stays_whole():
    answer = "Qwen models wrap calls in <tool_call> tags; this answer calls nothing. The grinder costs $129.50."
    assert parse_tool_calls(answer).content == answer and parse_tool_calls(answer).invalid_tool_calls == []
    inline = "Put JSON between <tool_call> and </tool_call>, as the docs say."
    assert parse_tool_calls(inline).content == inline and not parse_tool_calls(inline).tool_calls


def test_text_after_a_call_is_kept():
    out = parse_tool_calls('I will look.\n<tool_call>\n{"name": "a", "arguments": {}}\n</tool_call>\nThen I answer.')
    assert out.content == "I will look.\nThen I answer." and calls('<tool_call>{"name": "a", "arguments": {}}</tool_call>') == [("a", {})]
