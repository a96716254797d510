"""The official OpenAI Python SDK against `baton serve`: models, a whole
completion, a streamed one with usage, and an unknown model. Prints one
JSON object for the Rust test to check."""

import json
import sys

import openai

client = openai.OpenAI(base_url=sys.argv[1] + "/v1", api_key="not-needed-on-loopback", max_retries=0)
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

print(json.dumps(out))
