// Generated Markdown for the fake backend: realistic mixes of paragraphs,
// lists, code fences and tables, deterministic (seeded).
export function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

const WORDS = (
  'the model reads each file and builds a compact index so later questions can be answered quickly ' +
  'ownership borrowing lifetimes traits async runtime channel stream token budget context window ' +
  'attachment converter markdown table heading paragraph summary result error retry timeout provider ' +
  'workspace session keychain settings anonymize terms subagent tool call arguments duration'
).split(' ');

const CODE_RUST = [
  'fn main() {',
  '    let mut total = 0u64;',
  '    for i in 0..10 {',
  '        total += i * i;',
  '    }',
  '    println!("total = {total}");',
  '}',
  'struct Index { docs: Vec<String> }',
  'impl Index { fn len(&self) -> usize { self.docs.len() } }',
];
const CODE_PY = [
  'def summarize(items):',
  '    """Return the mean and count."""',
  '    total = sum(items)',
  '    return total / len(items), len(items)',
  'for n in range(3):',
  '    print(summarize([n, n + 1, n + 2]))',
];

export function markdownDoc(targetTokens: number, seed = 7): string {
  const r = rng(seed);
  const word = () => WORDS[Math.floor(r() * WORDS.length)]!;
  const out: string[] = [];
  let tokens = 0;
  let n = 0;
  while (tokens < targetTokens) {
    n++;
    const kind = n % 9;
    if (kind === 1) {
      const w = Array.from({ length: 3 + Math.floor(r() * 4) }, word).join(' ');
      out.push(`## ${w}\n\n`);
      tokens += 5;
    } else if (kind === 3 || kind === 7) {
      const items = 3 + Math.floor(r() * 5);
      let s = '';
      for (let i = 0; i < items; i++) {
        const w = Array.from({ length: 4 + Math.floor(r() * 8) }, word).join(' ');
        s += `- **${word()}**: ${w}\n`;
        tokens += 10;
      }
      out.push(s + '\n');
    } else if (kind === 5) {
      const rust = r() < 0.5;
      const src = rust ? CODE_RUST : CODE_PY;
      const lines = 4 + Math.floor(r() * 12);
      let s = '```' + (rust ? 'rust' : 'python') + '\n';
      for (let i = 0; i < lines; i++) s += src[i % src.length] + '\n';
      s += '```\n\n';
      tokens += lines * 8;
      out.push(s);
    } else if (kind === 8 && r() < 0.5) {
      let s = '| name | value | note |\n|---|---:|---|\n';
      for (let i = 0; i < 4; i++) s += `| ${word()} | ${Math.floor(r() * 1000)} | ${word()} ${word()} |\n`;
      tokens += 30;
      out.push(s + '\n');
    } else {
      const len = 25 + Math.floor(r() * 40);
      const ws = Array.from({ length: len }, word);
      ws[0] = ws[0]!.charAt(0).toUpperCase() + ws[0]!.slice(1);
      if (r() < 0.4) ws[3] = '`' + ws[3] + '`';
      if (r() < 0.3) ws[6] = `[${ws[6]}](https://example.com/${ws[6]})`;
      out.push(ws.join(' ') + '.\n\n');
      tokens += len;
    }
  }
  return out.join('');
}

/** Split text into tokens (a word with its trailing space, or a run of spaces). */
export function tokenize(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}
