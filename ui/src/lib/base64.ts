/** Base64 of bytes, in chunks (no giant argument lists, no stack overflow). */
export function bytesToBase64(bytes: Uint8Array): string {
  let bin = '';
  const CHUNK = 0x8000;
  for (let i = 0; i < bytes.length; i += CHUNK) {
    bin += String.fromCharCode.apply(null, Array.from(bytes.subarray(i, i + CHUNK)));
  }
  return btoa(bin);
}

export async function fileToBase64(f: Blob): Promise<string> {
  return bytesToBase64(new Uint8Array(await f.arrayBuffer()));
}

/** A name for a pasted file that has none (screenshots). */
export function pastedName(f: { name?: string; type: string }, now = new Date()): string {
  if (f.name && f.name !== 'image.png') return f.name;
  const ext = f.type.split('/')[1]?.replace('jpeg', 'jpg').replace(/[^a-z0-9]/gi, '') || 'bin';
  const stamp = now.toISOString().replace(/[:T]/g, '-').slice(0, 19);
  return `pasted-${stamp}.${ext}`;
}
