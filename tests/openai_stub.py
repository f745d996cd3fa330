"""A stand-in OpenAI-compatible server for tests: it answers /v1/chat/completions with the next
scripted assistant message (streamed when asked to), lists one model at /v1/models, keeps the
requests, and can misbehave on cue: ``DROP`` closes the connection in the middle of a reply (a
server that died), ``GARBAGE`` answers 200 with a body that is not JSON, ``HOLD`` never answers (a
server busy with the requests before it)."""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DROP, GARBAGE, HOLD = "drop the connection", "a body that is not JSON", "hold the request unanswered"
HOLD_S = 600  # longer than any test waits: only stopping the server ends it


class StubServer:
    def __init__(self, messages, model="served-model", usage=(100, 10), port=0, on_request=None):
        self.messages = list(messages)
        self.requests = []
        self.model = model
        self.on_request = on_request
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                if not self.path.rstrip("/").endswith("/models"):
                    return self.send_error(404)
                self.send_json({"object": "list", "data": [{"id": stub.model, "object": "model", "owned_by": "me"}]})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                stub.requests.append(body)
                if stub.on_request is not None:
                    stub.on_request(body)
                scripted = stub.messages.pop(0)
                if scripted == HOLD:
                    time.sleep(HOLD_S)
                    return
                if scripted == DROP:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", "500")
                    self.end_headers()
                    self.wfile.write(b'{"id": "chatcmpl-x", "choices": [{"mess')
                    self.wfile.flush()
                    self.close_connection = True
                    return
                if scripted == GARBAGE:
                    data = b"<html>502 Bad Gateway</html>"
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    return self.wfile.write(data)
                if body.get("stream"):
                    return self.stream(scripted["content"])
                self.send_json({
                    "id": f"chatcmpl-{len(stub.requests)}", "object": "chat.completion", "created": 0, "model": body["model"],
                    "choices": [{"index": 0, "message": {"role": "assistant", **scripted}, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": sum(usage)},
                })

            def send_json(self, payload):
                data = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def stream(self, text):
                """The reply as server-sent events, in two pieces."""
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                pieces = [{"role": "assistant", "content": text[:10]}, {"content": text[10:]}, {}]
                for n, delta in enumerate(pieces):
                    chunk = {"id": "chatcmpl-s", "object": "chat.completion.chunk", "created": 0, "model": "m",
                             "choices": [{"index": 0, "delta": delta, "finish_reason": "stop" if n == 2 else None}]}
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
