// The official OpenAI SDK for JavaScript (npm `openai`) against `baton
// serve`: models, a whole completion, a streamed one with usage, an unknown
// model, and the files API (upload a Word document, list, retrieve,
// content, a chat message that refers to it, delete). Prints one JSON
// object for the Rust test to check.
//
//   node openai_sdk.mjs BASE_URL DOCX_PATH API_KEY
import { readFileSync } from "node:fs";
import OpenAI, { toFile } from "openai";

const [base, docxPath, apiKey] = process.argv.slice(2);
const client = new OpenAI({ baseURL: `${base}/v1`, apiKey, maxRetries: 0 });
const out = {};

out.models = [];
for await (const m of client.models.list()) out.models.push(m.id);

const done = await client.chat.completions.create({
  model: "assistant",
  messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Capital of France?" }],
});
out.whole = { text: done.choices[0].message.content, finish: done.choices[0].finish_reason,
  usage: done.usage.total_tokens, object: done.object };

const text = [];
let usage = null;
let finish = null;
const stream = await client.chat.completions.create({
  model: "assistant", stream: true, stream_options: { include_usage: true },
  messages: [{ role: "user", content: "And Spain?" }],
});
for await (const chunk of stream) {
  if (chunk.usage) usage = chunk.usage.total_tokens;
  for (const c of chunk.choices) {
    if (c.delta.content) text.push(c.delta.content);
    if (c.finish_reason) finish = c.finish_reason;
  }
}
out.streamed = { text: text.join(""), finish, usage };

try {
  await client.chat.completions.create({ model: "nobody", messages: [{ role: "user", content: "hi" }] });
} catch (e) {
  if (!(e instanceof OpenAI.NotFoundError)) throw e;
  out.unknown = { status: e.status, code: e.code, message: e.message };
}

const original = readFileSync(docxPath);
const up = await client.files.create({ file: await toFile(original, "report.docx"), purpose: "user_data" });
const listed = [];
for await (const f of client.files.list()) listed.push(f.id);
const got = await client.files.retrieve(up.id);
const content = Buffer.from(await (await client.files.content(up.id)).arrayBuffer());
const about = await client.chat.completions.create({
  model: "assistant",
  messages: [{ role: "user", content: [
    { type: "text", text: "Summarise the attached report." },
    { type: "file", file: { file_id: up.id } },
  ] }],
});
const deleted = await client.files.delete(up.id);
let gone = null;
try {
  await client.files.retrieve(up.id);
} catch (e) {
  gone = e.status;
}
out.files = { id: up.id, object: up.object, bytes: up.bytes, filename: got.filename, purpose: got.purpose,
  listed: listed.includes(up.id), same_content: content.equals(original),
  answer: about.choices[0].message.content, deleted: deleted.deleted, after_delete: gone };

console.log(JSON.stringify(out));
