"""The official OpenAI Python SDK against `baton serve`: models, a whole
completion, a streamed one with usage, an unknown model, and the files
API (upload a Word document, list, retrieve, content, a chat message that
refers to it, delete). Prints one JSON object for the Rust test to check.

    python openai_sdk.py BASE_URL DOCX_PATH API_KEY"""

import json
import sys

import openai

client = openai.OpenAI(base_url=sys.argv[1] + "/v1", api_key=sys.argv[3], max_retries=0)
out = {"models": [m.id for m in client.models.list()]}

done = client.chat.completions.create(
    model="assistant",
    messages=[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Capital of France?"}],
)
out["whole"] = {"text": done.choices[0].message.content, "finish": done.choices[0].finish_reason,
                "usage": done.usage.total_tokens, "object": done.object}

text, usage, finish = [], None, None
for chunk in client.chat.completions.create(
    model="assistant", stream=True, stream_options={"include_usage": True},
    messages=[{"role": "user", "content": "And Spain?"}],
):
    if chunk.usage is not None:
        usage = chunk.usage.total_tokens
    for c in chunk.choices:
        if c.delta.content:
            text.append(c.delta.content)
        if c.finish_reason:
            finish = c.finish_reason
out["streamed"] = {"text": "".join(text), "finish": finish, "usage": usage}

try:
    client.chat.completions.create(model="nobody", messages=[{"role": "user", "content": "hi"}])
except openai.NotFoundError as e:
    out["unknown"] = {"status": e.status_code, "code": e.code, "message": e.message}

with open(sys.argv[2], "rb") as f:
    original = f.read()
up = client.files.create(file=("report.docx", original), purpose="user_data")
listed = [f.id for f in client.files.list()]
got = client.files.retrieve(up.id)
content = client.files.content(up.id).read()
about = client.chat.completions.create(
    model="assistant",
    messages=[{"role": "user", "content": [
        {"type": "text", "text": "Summarise the attached report."},
        {"type": "file", "file": {"file_id": up.id}},
    ]}],
)
deleted = client.files.delete(up.id)
try:
    client.files.retrieve(up.id)
    gone = None
except openai.NotFoundError as e:
    gone = e.status_code
out["files"] = {"id": up.id, "object": up.object, "bytes": up.bytes, "filename": got.filename,
                "purpose": got.purpose, "listed": up.id in listed, "same_content": content == original,
                "answer": about.choices[0].message.content, "deleted": deleted.deleted, "after_delete": gone}

print(json.dumps(out))
