"""A scripted, OpenAI-compatible chat-completions server (Python standard library only).

The project's copy of ../shared/real-kernel/fake-llm.py (which may change): the kernel suite and
the stream recorder run this one (scripts/real-kernel/kernel-pair.ts). It adds `reject`.

The real iac-code kernel calls it instead of DashScope. What it answers depends on the words of the
last user message (lower case), so a test picks a kernel behaviour by what it asks:

  files      -> a list_files tool call                 (TOOL_CALL_* with a result)
  read       -> a read_file tool call on README.md
  bash       -> a bash tool call writing out.txt        (the kernel asks for permission first)
  write      -> a write_file tool call                  (the kernel asks for permission first)
  think      -> reasoning_content, then text            (run the kernel with --thinking-exposure raw-thinking)
  slow       -> 40 text chunks, 0.5 s apart             (for cancel and disconnect tests)
  big        -> about 200 KB of text in 2 KB chunks
  fail       -> HTTP 500 from the model provider, streaming or not (the kernel retries, then fails)
  reject     -> HTTP 401 whose error message quotes the API key it was sent, as providers do
                (the kernel fails at once; its reason carries a secret the adapter must not show)
  anything else -> streams "Hello from the fake model. You said: <text>" word by word

A user message carrying images is answered "I received N image(s)." After a tool result the model
closes the turn with a short text. Every request body is appended, one JSON line each, to
$FAKE_LLM_LOG (default /tmp/fake-llm-requests.jsonl), so a test can check what the kernel sent.

    python3 fake-llm.py [port]        (default 18080; binds 127.0.0.1)
"""
import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOG = os.environ.get("FAKE_LLM_LOG", "/tmp/fake-llm-requests.jsonl")
USAGE = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}


def chunk(cid, model, delta, finish=None):
    return {"id": cid, "object": "chat.completion.chunk", "created": int(time.time()), "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def text_of(message):
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
    return ""


def images_in(message):
    content = message.get("content")
    if not isinstance(content, list):
        return 0
    return sum(1 for p in content if isinstance(p, dict) and p.get("type") in ("image_url", "image"))


def rejection(headers):
    """The 401 a provider answers for a bad key, quoting the key it was sent."""
    key = (headers.get("Authorization") or "").removeprefix("Bearer ").strip()
    return {"error": {"message": f"Incorrect API key provided: {key}. Check the key and try again.",
                      "type": "invalid_request_error", "code": "invalid_api_key"}}


def tool_call(cid, model, name, args):
    encoded = json.dumps(args)
    half = len(encoded) // 2
    return [chunk(cid, model, {"tool_calls": [{"index": 0, "id": "call_fake_1", "type": "function",
                                               "function": {"name": name, "arguments": ""}}]}),
            chunk(cid, model, {"tool_calls": [{"index": 0, "function": {"arguments": encoded[:half]}}]}),
            chunk(cid, model, {"tool_calls": [{"index": 0, "function": {"arguments": encoded[half:]}}]}),
            chunk(cid, model, {}, "tool_calls")]


def words(cid, model, sentence):
    return [chunk(cid, model, {"content": word + " "}) for word in sentence.split(" ") if word]


def script(messages, cid, model):
    """The chunks to stream and the pause between them, chosen by the conversation so far."""
    last = messages[-1] if messages else {}
    opening = [chunk(cid, model, {"role": "assistant", "content": ""})]
    if last.get("role") == "tool":
        return opening + words(cid, model, "Done: the tool answered.") + [chunk(cid, model, {}, "stop")], 0.02
    user = next((m for m in reversed(messages) if m.get("role") == "user"), {})
    text = text_of(user).lower()
    if images_in(user):
        return opening + words(cid, model, f"I received {images_in(user)} image(s).") + [chunk(cid, model, {}, "stop")], 0.02
    if "fail" in text:
        return None, 0
    if "slow" in text:
        return opening + [chunk(cid, model, {"content": f"part {i} "}) for i in range(40)] + [chunk(cid, model, {}, "stop")], 0.5
    if "big" in text:
        return opening + [chunk(cid, model, {"content": ("x" * 2047) + "\n"}) for _ in range(100)] + [chunk(cid, model, {}, "stop")], 0
    if "think" in text:
        return opening + [chunk(cid, model, {"reasoning_content": "Thinking: "}),
                          chunk(cid, model, {"reasoning_content": "the user wants a plan."})] + \
            words(cid, model, "Here is the plan.") + [chunk(cid, model, {}, "stop")], 0.02
    lead = words(cid, model, "Let me check.")
    if "bash" in text:
        return opening + lead + tool_call(cid, model, "bash", {"command": "echo hi > out.txt", "description": "write a file"}), 0.02
    if "write" in text:
        return opening + lead + tool_call(cid, model, "write_file", {"path": "notes.txt", "content": "hello\n"}), 0.02
    if "read" in text:
        return opening + lead + tool_call(cid, model, "read_file", {"path": "README.md"}), 0.02
    if "files" in text:
        return opening + lead + tool_call(cid, model, "list_files", {"path": "."}), 0.02
    said = text_of(user)[:200]
    return opening + words(cid, model, f"Hello from the fake model. You said: {said}") + [chunk(cid, model, {}, "stop")], 0.01


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        sys.stderr.write("fake-llm: " + fmt % args + "\n")

    def reply_json(self, status, value):
        body = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.reply_json(200, {"object": "list", "data": [{"id": "qwen3.8-max", "object": "model"}]})

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        request = json.loads(self.rfile.read(length) or b"{}")
        with open(LOG, "a") as log:
            log.write(json.dumps({"path": self.path, "body": request}) + "\n")
        model = request.get("model", "fake")
        cid = "chatcmpl-fake-%d" % int(time.time() * 1000)
        user = next((m for m in reversed(request.get("messages", [])) if m.get("role") == "user"), {})
        if "reject" in text_of(user).lower() and not images_in(user):
            self.reply_json(401, rejection(self.headers))
            return
        if not request.get("stream"):
            if "fail" in text_of(user).lower():
                self.reply_json(500, {"error": {"message": "fake provider outage", "type": "server_error", "code": "internal_error"}})
                return
            self.reply_json(200, {"id": cid, "object": "chat.completion", "created": int(time.time()), "model": model,
                                  "choices": [{"index": 0, "finish_reason": "stop",
                                               "message": {"role": "assistant", "content": "Fake title"}}],
                                  "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}})
            return
        chunks, pause = script(request.get("messages", []), cid, model)
        if chunks is None:
            self.reply_json(500, {"error": {"message": "fake provider outage", "type": "server_error", "code": "internal_error"}})
            return
        if (request.get("stream_options") or {}).get("include_usage"):
            chunks.append({"id": cid, "object": "chat.completion.chunk", "created": int(time.time()), "model": model,
                           "choices": [], "usage": USAGE})
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        try:
            for c in chunks:
                self.wfile.write(("data: " + json.dumps(c) + "\n\n").encode())
                self.wfile.flush()
                if pause:
                    time.sleep(pause)
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True


if __name__ == "__main__":
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 18080
    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
